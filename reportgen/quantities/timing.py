"""Time on the roofline: prefill of one request and the linear pieces of one decode step.

A decode step runs two kinds of kernel one after the other, each on its own roofline: the weight
GEMMs, ``max(2·P_act·B / F, weights_read / BW)``, and attention, ``B · max(attention FLOPs / F,
KV read / BW)`` (linear in B). Their sum, plus link time and step overhead, is
``max(β_compute·B, weights_read/BW + β_kv·B) + link(B) + step overhead`` with
β_compute = GEMM + attention time per sequence and β_kv = attention time per sequence: a maximum
of two straight lines in B, which is what lets the latency targets be solved for B in closed form
(batch.py) and written as a spreadsheet formula.

A prefill on its own (what a first token waits for) costs its compute plus one weight read, its
link time and a pass's overhead; a prefill riding in the running batch (continuous batching)
costs only its compute and link transfer, because the weight read and the fixed costs are
shared with the decode step it joins.

Pipeline parallelism (``pp`` stages of ``tp`` GPUs, a replica of ``tp·pp`` GPUs). Decode runs
the batch as ``pp`` micro-batches of ``B/pp`` sequences, one in each stage at a time (as vLLM's
virtual engines and TensorRT-LLM's in-flight micro-batches do), so no stage waits in the steady
state; a token of one sequence passes all ``pp`` stages in turn. Rates (FLOP/s, bytes/s) are
those of all ``tp·pp`` GPUs, and each piece of a step is what lies on one micro-batch's path:

* compute and KV reads: the same ``β·B`` as one large replica (each stage does ``1/pp`` of the
  layers for ``B/pp`` sequences, pp stages in turn; exact for B ≥ pp);
* the weight read: each micro-batch reads every stage's weights, so a step reads the weights
  ``pp`` times over at the replica's bandwidth (``weights_read_s`` is the time ``tp`` GPUs take
  to read all the weights): pipeline stages add memory, not decode bandwidth;
* tensor-parallel all-reduces: every layer's, for ``B/pp`` tokens (``allreduce_s_per_token``);
* stage-to-stage sends: ``pp − 1`` hops, each a latency plus ``B/pp`` tokens' activations
  (``hidden × ACTIVATION_BYTES`` per token) over the inter-node link (InfiniBand/RoCE, per GPU)
  when the replica spans nodes, else the GPU link.

Prefills riding in the batch are spread over the micro-batches, so each adds its compute once.
A lone prompt's prefill cannot keep the stages busy: it is split into chunks of
PREFILL_CHUNK_TOKENS (chunked prefill) that follow each other through the stages, so its busy
time stretches by ``(m + pp − 1)/m`` (the bubble ``(pp − 1)/(m + pp − 1)`` of a pipeline that
m chunks fill and drain, as in GPipe) and each stage reads its weights once on the path. Every
pipeline term vanishes at pp = 1, where the measurements the efficiencies are fitted to were
taken.
"""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, ceil_snapped


@quantity("tokens", "{avg_prompt_tokens}*(1-{prefix_cache_hit_rate})")
def prefill_tokens(avg_prompt_tokens: Array, prefix_cache_hit_rate: Array) -> Array:
    """Prompt tokens computed in prefill (those not served from the prefix cache)."""
    return avg_prompt_tokens * (1 - prefix_cache_hit_rate)


@quantity("tokens", "{avg_prompt_tokens}+{avg_output_tokens}/2")
def decode_context_tokens(avg_prompt_tokens: Array, avg_output_tokens: Array) -> Array:
    """Mean context a decode step attends over (prompt plus half the output)."""
    return avg_prompt_tokens + avg_output_tokens / 2


@quantity("FLOP/s", "{gpus_per_instance}*{gpu_tflops}*10^12*{mfu_prefill}")
def instance_flops_prefill(
    gpus_per_instance: Array, gpu_tflops: Array, mfu_prefill: Array
) -> Array:
    """Tensor throughput a replica achieves in prefill (tp · pp · F · MFU_prefill)."""
    return gpus_per_instance * gpu_tflops * 1e12 * mfu_prefill


@quantity("FLOP/s", "{gpus_per_instance}*{gpu_tflops}*10^12*{mfu_decode}")
def instance_flops_decode(
    gpus_per_instance: Array, gpu_tflops: Array, mfu_decode: Array
) -> Array:
    """Tensor throughput a replica achieves in compute-bound decode (tp · pp · F · MFU)."""
    return gpus_per_instance * gpu_tflops * 1e12 * mfu_decode


@quantity("bytes/s", "{gpus_per_instance}*{gpu_bandwidth_tbps}*10^12*{mbu}")
def instance_bandwidth(gpus_per_instance: Array, gpu_bandwidth_tbps: Array, mbu: Array) -> Array:
    """Memory bandwidth a replica achieves (tp · pp · BW · MBU)."""
    return gpus_per_instance * gpu_bandwidth_tbps * 1e12 * mbu


@quantity("s", "IF({tp}>1,2*{layers}*{gpu__link_latency_us}/10^6,0)")
def allreduce_fixed_s(tp: Array, layers: Array, gpu__link_latency_us: Array) -> Array:
    """Latency of a forward pass's tensor-parallel all-reduces (two per layer), independent of
    the tokens exchanged; zero at tp = 1."""
    return np.where(tp > 1, 2 * layers * gpu__link_latency_us / 1e6, 0.0)


@quantity(
    "s/token",
    "IF({tp}>1,2*{layers}*2*({tp}-1)/{tp}*{hidden_size}*{ACTIVATION_BYTES}"
    "/({gpu__link_gbps}*10^9)/{pp},0)",
)
def allreduce_s_per_token(
    tp: Array, layers: Array, hidden_size: Array, ACTIVATION_BYTES: float,
    gpu__link_gbps: Array, pp: Array,
) -> Array:
    """Transfer time of the tensor-parallel all-reduces per token of a pass (ring: 2·(tp−1)/tp
    of the activations, two per layer, over the GPU link: NVLink on SXM parts, PCIe on
    L40S/L4); with pp stages a pass's path carries one micro-batch of B/pp tokens, hence /pp."""
    volume = 2 * layers * 2 * (tp - 1) / tp * hidden_size * ACTIVATION_BYTES
    return np.where(tp > 1, volume / (gpu__link_gbps * 1e9) / pp, 0.0)


@quantity(
    "GB/s",
    "IF({gpus_per_instance}>{gpu__gpus_per_node},{gpu__internode_gbps},{gpu__link_gbps})",
)
def pipeline_link_gbps(
    gpus_per_instance: Array, gpu__gpus_per_node: Array, gpu__internode_gbps: Array,
    gpu__link_gbps: Array,
) -> Array:
    """Bandwidth per GPU between pipeline stages: the inter-node link (InfiniBand/RoCE) when
    the replica spans nodes, else the GPU link."""
    return np.where(gpus_per_instance > gpu__gpus_per_node, gpu__internode_gbps, gpu__link_gbps)


@quantity(
    "us",
    "IF({gpus_per_instance}>{gpu__gpus_per_node},{gpu__internode_latency_us},"
    "{gpu__link_latency_us})",
)
def pipeline_link_latency_us(
    gpus_per_instance: Array, gpu__gpus_per_node: Array, gpu__internode_latency_us: Array,
    gpu__link_latency_us: Array,
) -> Array:
    """Latency of one stage-to-stage send (the inter-node link's when the replica spans
    nodes)."""
    return np.where(gpus_per_instance > gpu__gpus_per_node, gpu__internode_latency_us,
                    gpu__link_latency_us)


@quantity("s", "({pp}-1)*{pipeline_link_latency_us}/10^6")
def pipeline_fixed_s(pp: Array, pipeline_link_latency_us: Array) -> Array:
    """Latency of the stage-to-stage sends on a pass's path (pp − 1 hops); zero at pp = 1."""
    return (pp - 1) * pipeline_link_latency_us / 1e6


@quantity(
    "s/token", "({pp}-1)/{pp}*{hidden_size}*{ACTIVATION_BYTES}/({pipeline_link_gbps}*10^9)"
)
def pipeline_s_per_token(
    pp: Array, hidden_size: Array, ACTIVATION_BYTES: float, pipeline_link_gbps: Array
) -> Array:
    """Transfer time of the activations sent stage to stage, per token of a step: pp − 1 hops,
    each carrying a micro-batch of B/pp tokens (hidden × bytes each); zero at pp = 1."""
    return (pp - 1) / pp * hidden_size * ACTIVATION_BYTES / (pipeline_link_gbps * 1e9)


@quantity(
    "s/token",
    "{UNSHARDED_ACTIVATION_PASSES}*{layers}*{hidden_size}*{ACTIVATION_BYTES}*{tp}"
    "/{attention_replicas}/{instance_bandwidth}",
)
def unsharded_s_per_token(
    UNSHARDED_ACTIVATION_PASSES: float, layers: Array, hidden_size: Array,
    ACTIVATION_BYTES: float, tp: Array, attention_replicas: Array, instance_bandwidth: Array,
) -> Array:
    """Memory time each token adds to a pass for the work tensor parallelism does not split:
    the norms and residual adds read and write the whole hidden vector
    (UNSHARDED_ACTIVATION_PASSES times a layer) on every GPU of a stage, so each GPU moves
    as many bytes per token at tp 8 as at tp 1 (under attention data-parallelism a token's
    vector is on one GPU only); with pp stages each holds 1/pp of the layers."""
    passes = UNSHARDED_ACTIVATION_PASSES * layers * hidden_size * ACTIVATION_BYTES
    return passes * tp / attention_replicas / instance_bandwidth


@quantity("s/token", "{allreduce_s_per_token}+{pipeline_s_per_token}+{unsharded_s_per_token}")
def comm_s_per_token(
    allreduce_s_per_token: Array, pipeline_s_per_token: Array, unsharded_s_per_token: Array
) -> Array:
    """Time each token adds to a pass outside the roofline maximum: its tensor-parallel
    all-reduces, its share of the stage-to-stage sends, and the unsharded norm and residual
    traffic."""
    return allreduce_s_per_token + pipeline_s_per_token + unsharded_s_per_token


@quantity("s", "{resident_weights_gib}*{BYTES_PER_GIB}*{pp}/{instance_bandwidth}")
def weights_read_s(
    resident_weights_gib: Array, BYTES_PER_GIB: float, pp: Array, instance_bandwidth: Array
) -> Array:
    """Time a pass spends streaming all weights from memory (every dense decode step does):
    the stages read their shares in turn, so pp × the replica-wide read (tp GPUs' bandwidth
    for all the weights, each GPU's copy of the non-expert weights under attention
    data-parallelism)."""
    return resident_weights_gib * BYTES_PER_GIB * pp / instance_bandwidth


@quantity("chunks", "MAX(1,ROUNDUP(ROUND({prefill_tokens}/{PREFILL_CHUNK_TOKENS},9),0))")
def prefill_chunks(prefill_tokens: Array, PREFILL_CHUNK_TOKENS: float) -> Array:
    """Chunks a lone prompt's prefill is split into (chunked prefill of PREFILL_CHUNK_TOKENS):
    the micro-batches that fill the pipeline."""
    return np.maximum(1.0, ceil_snapped(prefill_tokens / PREFILL_CHUNK_TOKENS))


@quantity("fraction", "({pp}-1)/({prefill_chunks}+{pp}-1)")
def prefill_bubble_fraction(pp: Array, prefill_chunks: Array) -> Array:
    """Share of a lone prefill's pipeline time the stages wait (the bubble: m chunks pass pp
    stages in m + pp − 1 slots); zero at pp = 1."""
    return (pp - 1) / (prefill_chunks + pp - 1)


@quantity("FLOP", "4*{layers}*{attention_heads}*{head_dim}")
def attention_flops_per_token_pair(layers: Array, attention_heads: Array, head_dim: Array) -> Array:
    """Attention FLOPs of one query token against one context token, all layers together
    (QKᵀ and PV: 2 × 2·H·d per layer)."""
    return 4 * layers * attention_heads * head_dim


@quantity(
    "FLOP",
    "IF({model__mla_kv_dim}>0,2*{layers}*{attention_heads}*(2*{model__mla_kv_dim}"
    "-{model__mla_rope_dim}),{attention_flops_per_token_pair})",
)
def decode_attention_flops_per_token_pair(
    model__mla_kv_dim: Array, layers: Array, attention_heads: Array, model__mla_rope_dim: Array,
    attention_flops_per_token_pair: Array,
) -> Array:
    """Attention FLOPs of one decoded token against one cached token, all layers: as in
    prefill, except for MLA models, which decode with the key and value up-projections
    absorbed into the query and output (as vLLM, SGLang and TensorRT-LLM run DeepSeek): every
    head works on the whole latent, 2·H·(kv_lora_rank + rope) FLOPs for QKᵀ and
    2·H·kv_lora_rank for PV per layer (kv_lora_rank = mla_kv_dim − mla_rope_dim), more FLOPs
    than 4·H·d in exchange for reading only the latent."""
    absorbed = 2 * layers * attention_heads * (2 * model__mla_kv_dim - model__mla_rope_dim)
    return np.where(model__mla_kv_dim > 0, absorbed, attention_flops_per_token_pair)


@quantity("B params", "MAX(0,{active_params_b}-({params_b}-{expert_params_b}))")
def routed_active_params_b(
    active_params_b: Array, params_b: Array, expert_params_b: Array
) -> Array:
    """Parameters of the routed experts one token passes through (its top-k experts in every
    MoE layer), billions; 0 for a dense model."""
    return np.maximum(0.0, active_params_b - (params_b - expert_params_b))


@quantity(
    "B params", "{active_params_b}+{routed_active_params_b}*(1/{eff__moe_gemm_efficiency}-1)"
)
def gemm_params_b(
    active_params_b: Array, routed_active_params_b: Array, eff__moe_gemm_efficiency: Array
) -> Array:
    """Active parameters as matrix-multiply time counts them: a routed expert's grouped GEMM
    runs at moe_gemm_efficiency (efficiency table, per GPU family and precision) of a dense
    layer's speed, so its parameters count 1 ÷ that each (the active parameters themselves
    for a dense model)."""
    return active_params_b + routed_active_params_b * (1 / eff__moe_gemm_efficiency - 1)


@quantity(
    "token pairs",
    "{prefill_tokens}^2/2*(1-{local_attention_share})"
    "+MIN({prefill_tokens},{local_attention_window})"
    "*({prefill_tokens}-MIN({prefill_tokens},{local_attention_window})/2)"
    "*{local_attention_share}",
)
def prefill_attention_pairs(
    prefill_tokens: Array, local_attention_share: Array, local_attention_window: Array
) -> Array:
    """(query, key) pairs a prompt's causal attention computes, averaged over the layers: half
    of the S² pairs in a full layer; in a local layer each token sees at most the W before it,
    min(S, W) · (S − min(S, W)/2) pairs (S²/2 while S ≤ W)."""
    seen = np.minimum(prefill_tokens, local_attention_window)
    local = seen * (prefill_tokens - seen / 2)
    return (prefill_tokens**2 / 2 * (1 - local_attention_share)
            + local * local_attention_share)


@quantity(
    "FLOP",
    "2*{gemm_params_b}*10^9*{prefill_tokens}"
    "+{attention_flops_per_token_pair}*{prefill_attention_pairs}",
)
def prefill_flops(
    gemm_params_b: Array, prefill_tokens: Array, attention_flops_per_token_pair: Array,
    prefill_attention_pairs: Array,
) -> Array:
    """FLOPs of one request's prefill, in dense-layer time: 2 per active parameter and token
    (routed experts counted at their grouped-GEMM speed) plus causal attention over the
    prompt's token pairs."""
    return (2 * gemm_params_b * 1e9 * prefill_tokens
            + attention_flops_per_token_pair * prefill_attention_pairs)


@quantity(
    "ms",
    "1000*(({prefill_flops}/{instance_flops_prefill}+{comm_s_per_token}*{prefill_tokens})"
    "/(1-{prefill_bubble_fraction})+{weights_read_s}+{step_fixed_s})",
)
def prefill_ms(
    prefill_flops: Array,
    instance_flops_prefill: Array,
    comm_s_per_token: Array,
    prefill_tokens: Array,
    prefill_bubble_fraction: Array,
    weights_read_s: Array,
    step_fixed_s: Array,
) -> Array:
    """Prefill of one request on its own (what its first token waits for): its compute and link
    transfer, stretched by the pipeline bubble, plus one read of the weights (a lone pass near
    the ridge point reaches neither roof, so the two add) and one pass's fixed latency and
    overhead."""
    busy = prefill_flops / instance_flops_prefill + comm_s_per_token * prefill_tokens
    return 1000 * (busy / (1 - prefill_bubble_fraction) + weights_read_s + step_fixed_s)


@quantity(
    "ms",
    "1000*({prefill_flops}/{instance_flops_prefill}+{comm_s_per_token}*{prefill_tokens})",
)
def prefill_in_batch_ms(
    prefill_flops: Array,
    instance_flops_prefill: Array,
    comm_s_per_token: Array,
    prefill_tokens: Array,
) -> Array:
    """Replica time one request's prefill adds when it rides in the running batch (continuous
    batching): its compute and link transfer; the weight read, link latency and step overhead
    are shared with the decode step it joins, and the other stages work on other micro-batches
    meanwhile, so no bubble."""
    return 1000 * (
        prefill_flops / instance_flops_prefill + comm_s_per_token * prefill_tokens
    )


@quantity(
    "tokens",
    "{decode_context_tokens}*(1-{local_attention_share})"
    "+MIN({decode_context_tokens},{local_attention_window})*{local_attention_share}",
)
def decode_attended_tokens(
    decode_context_tokens: Array, local_attention_share: Array,
    local_attention_window: Array,
) -> Array:
    """Cached tokens a decoded token attends to, averaged over the layers: the mean decode
    context in a full layer, at most the window in a local one (what a decode step reads of a
    sequence's KV cache, and what it holds at the mean context)."""
    local = np.minimum(decode_context_tokens, local_attention_window)
    return decode_context_tokens * (1 - local_attention_share) + local * local_attention_share


@quantity(
    "s/sequence",
    "MAX({decode_attention_flops_per_token_pair}*{decode_attended_tokens}/{instance_flops_decode},"
    "{decode_attended_tokens}*{kv_bytes_per_token}*{kv_copies}/{instance_bandwidth})",
)
def decode_attention_s_per_seq(
    decode_attention_flops_per_token_pair: Array,
    decode_attended_tokens: Array,
    instance_flops_decode: Array,
    kv_bytes_per_token: Array,
    kv_copies: Array,
    instance_bandwidth: Array,
) -> Array:
    """Attention time each sequence adds to a decode step: its own kernel's roofline, the
    larger of its FLOPs and the read of its KV cache, every stored copy read by its GPU
    (memory-bound in practice)."""
    flops = (decode_attention_flops_per_token_pair * decode_attended_tokens
             / instance_flops_decode)
    reads = decode_attended_tokens * kv_bytes_per_token * kv_copies / instance_bandwidth
    return np.maximum(flops, reads)


@quantity(
    "s/sequence",
    "2*{gemm_params_b}*10^9/{instance_flops_decode}+{decode_attention_s_per_seq}",
)
def decode_compute_s_per_seq(
    gemm_params_b: Array, instance_flops_decode: Array, decode_attention_s_per_seq: Array
) -> Array:
    """Time each sequence adds to a decode step on the compute-bound line: its share of the
    weight GEMMs (2 FLOPs per active parameter, routed experts at their grouped-GEMM speed)
    plus its attention."""
    return 2 * gemm_params_b * 1e9 / instance_flops_decode + decode_attention_s_per_seq


@quantity("s/sequence", "{decode_attention_s_per_seq}")
def decode_kv_read_s_per_seq(decode_attention_s_per_seq: Array) -> Array:
    """Time each sequence adds to a decode step on the bandwidth-bound line (where the weight
    GEMMs are bound by the weight read): its attention, i.e. reading its KV cache."""
    return decode_attention_s_per_seq


@quantity("s", "{allreduce_fixed_s}+{pipeline_fixed_s}+{step_overhead_ms}/1000")
def step_fixed_s(
    allreduce_fixed_s: Array, pipeline_fixed_s: Array, step_overhead_ms: Array
) -> Array:
    """Per-step time that does not grow with the batch: all-reduce and stage-to-stage latency
    and scheduler overhead."""
    return allreduce_fixed_s + pipeline_fixed_s + step_overhead_ms / 1000


@quantity("s/sequence", "{prefill_in_batch_ms}/1000/{avg_output_tokens}")
def prefill_stall_s_per_seq(prefill_in_batch_ms: Array, avg_output_tokens: Array) -> Array:
    """Prefill time each sequence in the batch spreads over every output token of the others
    (continuous batching: B prefills per cycle of avg_output_tokens steps)."""
    return prefill_in_batch_ms / 1000 / avg_output_tokens
