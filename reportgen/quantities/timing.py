"""Time on the roofline: prefill of one request and the linear pieces of one decode step.

A decode step with B sequences takes
``max(β_compute·B, weights_read/BW + β_kv·B) + all-reduce(B) + step overhead``:
a maximum of two straight lines in B, which is what lets the latency targets be solved for B in
closed form (batch.py) and written as a spreadsheet formula.
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


@quantity(
    "ms",
    "1000*(MAX((2*{active_params_b}*10^9*{prefill_tokens}+2*{layers}*{attention_heads}"
    "*{head_dim}*{prefill_tokens}^2)/{instance_flops_prefill},{weights_read_s})"
    "+{allreduce_fixed_s}+{allreduce_s_per_token}*{prefill_tokens})",
)
def prefill_ms(
    active_params_b: Array,
    prefill_tokens: Array,
    layers: Array,
    attention_heads: Array,
    head_dim: Array,
    instance_flops_prefill: Array,
    weights_read_s: Array,
    allreduce_fixed_s: Array,
    allreduce_s_per_token: Array,
) -> Array:
    """Prefill of one request: max(compute (2·P_act·S + 2·L·H·d·S²) / F_prefill, weight read)
    plus its all-reduces."""
    flops = 2 * active_params_b * 1e9 * prefill_tokens + (
        2 * layers * attention_heads * head_dim * prefill_tokens**2
    )
    roofline = np.maximum(flops / instance_flops_prefill, weights_read_s)
    return 1000 * (roofline + allreduce_fixed_s + allreduce_s_per_token * prefill_tokens)


@quantity(
    "s/sequence",
    "(2*{active_params_b}*10^9+4*{layers}*{attention_heads}*{head_dim}*{decode_context_tokens})"
    "/{instance_flops_decode}",
)
def decode_compute_s_per_seq(
    active_params_b: Array,
    layers: Array,
    attention_heads: Array,
    head_dim: Array,
    decode_context_tokens: Array,
    instance_flops_decode: Array,
) -> Array:
    """Compute time each sequence adds to a decode step (2·P_act + 4·L·H·d·context FLOPs)."""
    flops = 2 * active_params_b * 1e9 + 4 * layers * attention_heads * head_dim * (
        decode_context_tokens
    )
    return flops / instance_flops_decode


@quantity("s/sequence", "{decode_context_tokens}*{kv_bytes_per_token}/{instance_bandwidth}")
def decode_kv_read_s_per_seq(
    decode_context_tokens: Array, kv_bytes_per_token: Array, instance_bandwidth: Array
) -> Array:
    """Memory time each sequence adds to a decode step (reading its KV cache)."""
    return decode_context_tokens * kv_bytes_per_token / instance_bandwidth


@quantity("s", "{allreduce_fixed_s}+{step_overhead_ms}/1000")
def step_fixed_s(allreduce_fixed_s: Array, step_overhead_ms: Array) -> Array:
    """Per-step time that does not grow with the batch: all-reduce latency and scheduler overhead."""
    return allreduce_fixed_s + step_overhead_ms / 1000


@quantity("s/sequence", "{prefill_ms}/1000/{avg_output_tokens}")
def prefill_stall_s_per_seq(prefill_ms: Array, avg_output_tokens: Array) -> Array:
    """Prefill time each sequence in the batch spreads over every output token of the others
    (continuous batching: B prefills per cycle of avg_output_tokens steps)."""
    return prefill_ms / 1000 / avg_output_tokens
