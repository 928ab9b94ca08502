"""Latency and throughput of one instance running the operating batch (continuous batching)."""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, choose


@quantity(
    "GiB",
    "{pp}*({shared_weights_gib}*{attention_replicas}+{expert_weights_gib}"
    "*(1-(1-{model__experts_per_token}/MAX({model__experts},1))^({batch}/{pp})))",
)
def weights_read_gib_per_step(
    pp: Array,
    shared_weights_gib: Array,
    attention_replicas: Array,
    expert_weights_gib: Array,
    model__experts_per_token: Array,
    model__experts: Array,
    batch: Array,
) -> Array:
    """Weights one decode step reads: all of them for a dense model; for MoE the shared part
    (each GPU its own copy under attention data-parallelism) plus the experts a micro-batch of
    B/pp tokens is expected to touch, E·(1 − (1 − k/E)^(B/pp)) of E; with pp stages every one
    of the pp micro-batches reads them, hence × pp."""
    experts = np.maximum(model__experts, 1)
    touched = 1 - (1 - model__experts_per_token / experts) ** (batch / pp)
    return pp * (shared_weights_gib * attention_replicas + expert_weights_gib * touched)


@quantity(
    "ms",
    "1000*(MAX({decode_compute_s_per_seq}*{batch},"
    "{weights_read_gib_per_step}*{BYTES_PER_GIB}/{instance_bandwidth}"
    "+{decode_kv_read_s_per_seq}*{batch})+{step_fixed_s}+{comm_s_per_token}*{batch})",
)
def decode_step_ms(
    decode_compute_s_per_seq: Array,
    batch: Array,
    weights_read_gib_per_step: Array,
    BYTES_PER_GIB: float,
    instance_bandwidth: Array,
    decode_kv_read_s_per_seq: Array,
    step_fixed_s: Array,
    comm_s_per_token: Array,
) -> Array:
    """One decode step of the whole batch (every sequence one token further): max(compute,
    memory) plus link time and overhead."""
    compute = decode_compute_s_per_seq * batch
    memory = weights_read_gib_per_step * BYTES_PER_GIB / instance_bandwidth + (
        decode_kv_read_s_per_seq * batch
    )
    return 1000 * (np.maximum(compute, memory) + step_fixed_s + comm_s_per_token * batch)


@quantity(
    "text",
    'IF({decode_compute_s_per_seq}*{batch}>={weights_read_gib_per_step}*{BYTES_PER_GIB}'
    '/{instance_bandwidth}+{decode_kv_read_s_per_seq}*{batch},"compute","bandwidth")',
    kind="text",
)
def decode_regime(
    decode_compute_s_per_seq: Array,
    batch: Array,
    weights_read_gib_per_step: Array,
    BYTES_PER_GIB: float,
    instance_bandwidth: Array,
    decode_kv_read_s_per_seq: Array,
) -> Array:
    """Which roofline ceiling binds a decode step at the operating batch."""
    compute = decode_compute_s_per_seq * batch
    memory = weights_read_gib_per_step * BYTES_PER_GIB / instance_bandwidth + (
        decode_kv_read_s_per_seq * batch
    )
    return choose([compute >= memory], ["compute"], "bandwidth")


@quantity("ms", "{decode_step_ms}+{batch}*{prefill_in_batch_ms}/{avg_output_tokens}")
def tpot_ms(
    decode_step_ms: Array, batch: Array, prefill_in_batch_ms: Array, avg_output_tokens: Array
) -> Array:
    """Time per output token as users see it: a decode step plus the prefills of newly admitted
    requests spread over it (B prefills per avg_output_tokens steps)."""
    return decode_step_ms + batch * prefill_in_batch_ms / avg_output_tokens


@quantity("ms", "{prefill_ms}+{decode_step_ms}")
def ttft_ms(prefill_ms: Array, decode_step_ms: Array) -> Array:
    """Time to first token inside the batch: the request's prefill plus one step (no queueing)."""
    return prefill_ms + decode_step_ms


@quantity("s", "({ttft_ms}+{avg_output_tokens}*{tpot_ms})/1000")
def response_time_s(ttft_ms: Array, avg_output_tokens: Array, tpot_ms: Array) -> Array:
    """Mean time from arrival to the last token (TTFT + output tokens × TPOT)."""
    return (ttft_ms + avg_output_tokens * tpot_ms) / 1000


@quantity("req/s", "{batch}/({avg_output_tokens}*{tpot_ms}/1000)")
def instance_rps(batch: Array, avg_output_tokens: Array, tpot_ms: Array) -> Array:
    """Requests one instance completes per second at the operating batch (B / cycle time)."""
    return batch / (avg_output_tokens * tpot_ms / 1000)


@quantity("fraction", "{batch}*{prefill_in_batch_ms}/({avg_output_tokens}*{tpot_ms})")
def prefill_time_share(
    batch: Array, prefill_in_batch_ms: Array, avg_output_tokens: Array, tpot_ms: Array
) -> Array:
    """Share of an instance's time spent in prefill."""
    return batch * prefill_in_batch_ms / (avg_output_tokens * tpot_ms)


@quantity("tokens/s/GPU", "{instance_rps}*{avg_output_tokens}/{gpus_per_instance}")
def output_tokens_per_s_per_gpu(
    instance_rps: Array, avg_output_tokens: Array, gpus_per_instance: Array
) -> Array:
    """Output tokens per second per GPU at the operating batch."""
    return instance_rps * avg_output_tokens / gpus_per_instance


@quantity("tokens/s/GPU", "{gpu_tflops}*10^12*{mfu_decode}/(2*{active_params_b}*10^9)")
def compute_ceiling_tokens_per_s_per_gpu(
    gpu_tflops: Array, mfu_decode: Array, active_params_b: Array
) -> Array:
    """The tutorial's compute ceiling F·MFU / 2P (active parameters for MoE): tokens/s one GPU
    could produce if nothing but matrix multiplies mattered."""
    return gpu_tflops * 1e12 * mfu_decode / (2 * active_params_b * 1e9)
