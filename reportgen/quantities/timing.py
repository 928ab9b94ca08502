"""Time on the roofline: prefill of one request and the linear pieces of one decode step.

A decode step runs two kinds of kernel one after the other, each on its own roofline: the weight
GEMMs, ``max(2·P_act·B / F, weights_read / BW)``, and attention, ``B · max(attention FLOPs / F,
KV read / BW)`` (linear in B). Their sum, plus all-reduce and step overhead, is
``max(β_compute·B, weights_read/BW + β_kv·B) + all-reduce(B) + step overhead`` with
β_compute = GEMM + attention time per sequence and β_kv = attention time per sequence: a maximum
of two straight lines in B, which is what lets the latency targets be solved for B in closed form
(batch.py) and written as a spreadsheet formula.

A prefill on its own (what a first token waits for) costs its compute plus one weight read, its
all-reduces and a pass's overhead; a prefill riding in the running batch (continuous batching)
costs only its compute and all-reduce transfer, because the weight read and the fixed costs are
shared with the decode step it joins.
"""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array


@quantity("tokens", "{avg_prompt_tokens}*(1-{prefix_cache_hit_rate})")
def prefill_tokens(avg_prompt_tokens: Array, prefix_cache_hit_rate: Array) -> Array:
    """Prompt tokens computed in prefill (those not served from the prefix cache)."""
    return avg_prompt_tokens * (1 - prefix_cache_hit_rate)


@quantity("tokens", "{avg_prompt_tokens}+{avg_output_tokens}/2")
def decode_context_tokens(avg_prompt_tokens: Array, avg_output_tokens: Array) -> Array:
    """Mean context a decode step attends over (prompt plus half the output)."""
    return avg_prompt_tokens + avg_output_tokens / 2


@quantity("FLOP/s", "{tp}*{gpu_tflops}*10^12*{mfu_prefill}")
def instance_flops_prefill(tp: Array, gpu_tflops: Array, mfu_prefill: Array) -> Array:
    """Tensor throughput an instance achieves in prefill (tp · F · MFU_prefill)."""
    return tp * gpu_tflops * 1e12 * mfu_prefill


@quantity("FLOP/s", "{tp}*{gpu_tflops}*10^12*{mfu_decode}")
def instance_flops_decode(tp: Array, gpu_tflops: Array, mfu_decode: Array) -> Array:
    """Tensor throughput an instance achieves in compute-bound decode (tp · F · MFU_decode)."""
    return tp * gpu_tflops * 1e12 * mfu_decode


@quantity("bytes/s", "{tp}*{gpu_bandwidth_tbps}*10^12*{mbu}")
def instance_bandwidth(tp: Array, gpu_bandwidth_tbps: Array, mbu: Array) -> Array:
    """Memory bandwidth an instance achieves (tp · BW · MBU)."""
    return tp * gpu_bandwidth_tbps * 1e12 * mbu


@quantity("s", "IF({tp}>1,2*{layers}*{gpu__link_latency_us}/10^6,0)")
def allreduce_fixed_s(tp: Array, layers: Array, gpu__link_latency_us: Array) -> Array:
    """Latency of a forward pass's tensor-parallel all-reduces (two per layer), independent of
    the tokens exchanged; zero at tp = 1."""
    return np.where(tp > 1, 2 * layers * gpu__link_latency_us / 1e6, 0.0)


@quantity(
    "s/token",
    "IF({tp}>1,2*{layers}*2*({tp}-1)/{tp}*{hidden_size}*{ACTIVATION_BYTES}"
    "/({gpu__link_gbps}*10^9),0)",
)
def allreduce_s_per_token(
    tp: Array, layers: Array, hidden_size: Array, ACTIVATION_BYTES: float, gpu__link_gbps: Array
) -> Array:
    """Transfer time of the all-reduces per token in the pass (ring: 2·(tp−1)/tp of the
    activations over the GPU link: NVLink on SXM parts, PCIe on L40S/L4)."""
    volume = 2 * layers * 2 * (tp - 1) / tp * hidden_size * ACTIVATION_BYTES
    return np.where(tp > 1, volume / (gpu__link_gbps * 1e9), 0.0)


@quantity("s", "{weights_gib}*{BYTES_PER_GIB}/{instance_bandwidth}")
def weights_read_s(weights_gib: Array, BYTES_PER_GIB: float, instance_bandwidth: Array) -> Array:
    """Time to stream all weights from memory once (every dense decode step does)."""
    return weights_gib * BYTES_PER_GIB / instance_bandwidth


@quantity("FLOP", "4*{layers}*{attention_heads}*{head_dim}")
def attention_flops_per_token_pair(layers: Array, attention_heads: Array, head_dim: Array) -> Array:
    """Attention FLOPs of one query token against one context token, all layers together
    (QKᵀ and PV: 2 × 2·H·d per layer)."""
    return 4 * layers * attention_heads * head_dim


@quantity(
    "FLOP",
    "2*{active_params_b}*10^9*{prefill_tokens}"
    "+{attention_flops_per_token_pair}*{prefill_tokens}^2/2",
)
def prefill_flops(
    active_params_b: Array, prefill_tokens: Array, attention_flops_per_token_pair: Array
) -> Array:
    """FLOPs of one request's prefill: 2·P_act per token plus causal attention over the prompt
    (half of the S² token pairs)."""
    return 2 * active_params_b * 1e9 * prefill_tokens + (
        attention_flops_per_token_pair * prefill_tokens**2 / 2
    )


@quantity(
    "ms",
    "1000*({prefill_flops}/{instance_flops_prefill}+{weights_read_s}"
    "+{allreduce_fixed_s}+{allreduce_s_per_token}*{prefill_tokens}+{step_overhead_ms}/1000)",
)
def prefill_ms(
    prefill_flops: Array,
    instance_flops_prefill: Array,
    weights_read_s: Array,
    allreduce_fixed_s: Array,
    allreduce_s_per_token: Array,
    prefill_tokens: Array,
    step_overhead_ms: Array,
) -> Array:
    """Prefill of one request on its own (what its first token waits for): its compute plus one
    read of the weights (a lone pass near the ridge point reaches neither roof, so the two add),
    its all-reduces and one forward pass's fixed overhead."""
    comm = allreduce_fixed_s + allreduce_s_per_token * prefill_tokens
    compute = prefill_flops / instance_flops_prefill
    return 1000 * (compute + weights_read_s + comm + step_overhead_ms / 1000)


@quantity(
    "ms",
    "1000*({prefill_flops}/{instance_flops_prefill}+{allreduce_s_per_token}*{prefill_tokens})",
)
def prefill_in_batch_ms(
    prefill_flops: Array,
    instance_flops_prefill: Array,
    allreduce_s_per_token: Array,
    prefill_tokens: Array,
) -> Array:
    """Instance time one request's prefill adds when it rides in the running batch (continuous
    batching): its compute and all-reduce transfer; the weight read, all-reduce latency and
    step overhead are shared with the decode step it joins."""
    return 1000 * (
        prefill_flops / instance_flops_prefill + allreduce_s_per_token * prefill_tokens
    )


@quantity(
    "s/sequence",
    "MAX({attention_flops_per_token_pair}*{decode_context_tokens}/{instance_flops_decode},"
    "{decode_context_tokens}*{kv_bytes_per_token}/{instance_bandwidth})",
)
def decode_attention_s_per_seq(
    attention_flops_per_token_pair: Array,
    decode_context_tokens: Array,
    instance_flops_decode: Array,
    kv_bytes_per_token: Array,
    instance_bandwidth: Array,
) -> Array:
    """Attention time each sequence adds to a decode step: its own kernel's roofline, the
    larger of its FLOPs and the read of its KV cache (memory-bound in practice)."""
    flops = attention_flops_per_token_pair * decode_context_tokens / instance_flops_decode
    reads = decode_context_tokens * kv_bytes_per_token / instance_bandwidth
    return np.maximum(flops, reads)


@quantity(
    "s/sequence",
    "2*{active_params_b}*10^9/{instance_flops_decode}+{decode_attention_s_per_seq}",
)
def decode_compute_s_per_seq(
    active_params_b: Array, instance_flops_decode: Array, decode_attention_s_per_seq: Array
) -> Array:
    """Time each sequence adds to a decode step on the compute-bound line: its share of the
    weight GEMMs (2·P_act FLOPs) plus its attention."""
    return 2 * active_params_b * 1e9 / instance_flops_decode + decode_attention_s_per_seq


@quantity("s/sequence", "{decode_attention_s_per_seq}")
def decode_kv_read_s_per_seq(decode_attention_s_per_seq: Array) -> Array:
    """Time each sequence adds to a decode step on the bandwidth-bound line (where the weight
    GEMMs are bound by the weight read): its attention, i.e. reading its KV cache."""
    return decode_attention_s_per_seq


@quantity("s", "{allreduce_fixed_s}+{step_overhead_ms}/1000")
def step_fixed_s(allreduce_fixed_s: Array, step_overhead_ms: Array) -> Array:
    """Per-step time that does not grow with the batch: all-reduce latency and scheduler
    overhead."""
    return allreduce_fixed_s + step_overhead_ms / 1000


@quantity("s/sequence", "{prefill_in_batch_ms}/1000/{avg_output_tokens}")
def prefill_stall_s_per_seq(prefill_in_batch_ms: Array, avg_output_tokens: Array) -> Array:
    """Prefill time each sequence in the batch spreads over every output token of the others
    (continuous batching: B prefills per cycle of avg_output_tokens steps)."""
    return prefill_in_batch_ms / 1000 / avg_output_tokens
