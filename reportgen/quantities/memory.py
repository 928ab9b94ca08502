"""Memory: weights part by part, KV cache per token and per sequence, the replica's tensor and
pipeline parallelism, KV budget, B_mem.

A replica (instance) is ``tp × pp`` GPUs: ``pp`` pipeline stages, each holding ``layers/pp``
of the layers split over ``tp`` GPUs of one node. Each GPU holds ``1/(tp·pp)`` of the weights
(layers split evenly: the extra embedding and output head on the first and last stage are not
modelled) and, for every running sequence, the KV cache of its stage's layers, so the KV budget
is that of ``tp·pp`` GPUs.
"""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, equals, floor_snapped

TP_CHOICES = (1, 2, 4, 8)

_BYTES_XL = ('IF({d}="mxfp4",17/32,IF(OR({d}="fp8",{d}="int8"),1,'
             'IF(OR({d}="int4",{d}="fp4"),1/2,2)))')


def _bytes(dtype: Array) -> Array:
    one = (dtype == "fp8") | (dtype == "int8")
    half = (dtype == "int4") | (dtype == "fp4")
    return np.where(dtype == "mxfp4", 17 / 32, np.where(one, 1.0, np.where(half, 0.5, 2.0)))


@quantity("bytes", _BYTES_XL.replace("{d}", "{weight_dtype}"))
def weight_bytes_per_param(weight_dtype: Array) -> Array:
    """Bytes per weight outside the routed experts: 2 for bf16/fp16, 1 for fp8/int8, 0.5 for
    int4/fp4, 17/32 for MXFP4 (4 bits plus an 8-bit scale per 32 weights)."""
    return _bytes(weight_dtype)


@quantity("bytes", _BYTES_XL.replace("{d}", "{expert_weight_dtype}"))
def expert_weight_bytes_per_param(expert_weight_dtype: Array) -> Array:
    """Bytes per weight of the routed experts (as weight_bytes_per_param)."""
    return _bytes(expert_weight_dtype)


@quantity("bytes", _BYTES_XL.replace("{d}", "{kv_dtype}"))
def kv_bytes_per_element(kv_dtype: Array) -> Array:
    """Bytes per cached key or value element."""
    return _bytes(kv_dtype)


@quantity("B params", "MIN({model__expert_params_b},{params_b})")
def expert_params_b(model__expert_params_b: Array, params_b: Array) -> Array:
    """Parameters in the routed experts, billions (0 for a dense model)."""
    return np.minimum(model__expert_params_b, params_b)


@quantity(
    "GiB", "({params_b}-{expert_params_b})*10^9*{weight_bytes_per_param}/{BYTES_PER_GIB}"
)
def shared_weights_gib(
    params_b: Array, expert_params_b: Array, weight_bytes_per_param: Array,
    BYTES_PER_GIB: float,
) -> Array:
    """Weights outside the routed experts (attention, embeddings, dense and shared-expert MLPs):
    what every token reads."""
    return (params_b - expert_params_b) * 1e9 * weight_bytes_per_param / BYTES_PER_GIB


@quantity("GiB", "{expert_params_b}*10^9*{expert_weight_bytes_per_param}/{BYTES_PER_GIB}")
def expert_weights_gib(
    expert_params_b: Array, expert_weight_bytes_per_param: Array, BYTES_PER_GIB: float
) -> Array:
    """Weights of the routed experts (a token reads only the experts it is routed to)."""
    return expert_params_b * 1e9 * expert_weight_bytes_per_param / BYTES_PER_GIB


@quantity("GiB", "{shared_weights_gib}+{expert_weights_gib}")
def weights_gib(shared_weights_gib: Array, expert_weights_gib: Array) -> Array:
    """Weights of one model replica (all its GPUs together), each part at its own precision."""
    return shared_weights_gib + expert_weights_gib


@quantity(
    "bytes/token",
    "{layers}*IF({model__mla_kv_dim}>0,{model__mla_kv_dim},2*{kv_heads}*{head_dim})"
    "*{kv_bytes_per_element}",
)
def kv_bytes_per_token(
    layers: Array,
    model__mla_kv_dim: Array,
    kv_heads: Array,
    head_dim: Array,
    kv_bytes_per_element: Array,
) -> Array:
    """KV cache per token: 2·layers·kv_heads·head_dim·bytes (MLA: layers·latent width·bytes)."""
    per_layer = np.where(model__mla_kv_dim > 0, model__mla_kv_dim, 2 * kv_heads * head_dim)
    return layers * per_layer * kv_bytes_per_element


@quantity("tokens", "{max_prompt_tokens}+{max_output_tokens}")
def reserved_tokens_per_seq(max_prompt_tokens: Array, max_output_tokens: Array) -> Array:
    """Tokens a sequence grows to while it runs, so its KV cache is reserved for them."""
    return max_prompt_tokens + max_output_tokens


@quantity("tokens", "{model__local_attention_window}")
def local_attention_window(model__local_attention_window: Array) -> Array:
    """Tokens a local-attention layer attends to and keeps: the sliding window (gpt-oss,
    Gemma 2) or the chunk (Llama 4) of the model catalog; 0 when every layer attends to the
    whole context."""
    return model__local_attention_window


@quantity(
    "fraction",
    "IF({local_attention_window}>0,MIN({model__local_attention_layers},{layers})/{layers},0)",
)
def local_attention_share(
    local_attention_window: Array, model__local_attention_layers: Array, layers: Array
) -> Array:
    """Share of the layers that attend only within the local window; 0 when every layer
    attends to the whole context."""
    local = np.minimum(model__local_attention_layers, layers) / layers
    return np.where(local_attention_window > 0, local, 0.0)


@quantity(
    "tokens",
    "{reserved_tokens_per_seq}*(1-{local_attention_share})"
    "+MIN({reserved_tokens_per_seq},{local_attention_window})*{local_attention_share}",
)
def kv_held_tokens_per_seq(
    reserved_tokens_per_seq: Array, local_attention_share: Array, local_attention_window: Array
) -> Array:
    """Tokens of KV cache a sequence holds at its reserved length, averaged over the layers: a
    local layer keeps at most its window (as vLLM's hybrid KV-cache manager allocates it), the
    other layers every token."""
    local = np.minimum(reserved_tokens_per_seq, local_attention_window)
    return (reserved_tokens_per_seq * (1 - local_attention_share)
            + local * local_attention_share)


@quantity("GiB", "{kv_bytes_per_token}*{kv_held_tokens_per_seq}/{BYTES_PER_GIB}")
def kv_gib_per_seq(
    kv_bytes_per_token: Array, kv_held_tokens_per_seq: Array, BYTES_PER_GIB: float
) -> Array:
    """KV cache one running sequence needs at its reserved length."""
    return kv_bytes_per_token * kv_held_tokens_per_seq / BYTES_PER_GIB


@quantity("stages", "IF(ISBLANK({raw_pp}),1,{raw_pp})")
def pp(raw_pp: Array) -> Array:
    """Pipeline stages per replica (1: the replica is one tensor-parallel group in one node)."""
    return np.where(np.isnan(raw_pp), 1.0, raw_pp)


# The KV budget of an instance of `gpus_per_instance` GPUs, as each serving engine defines it.
# Written once and used twice: to choose the tensor parallelism and as the budget at the chosen
# one.
_BUDGET_XL = (
    'IF({method}="tutorial",{gpus_per_instance}*{gpu_memory_gib}-{weights_gib},'
    'IF({engine}="tensorrt-llm",{TRTLLM_FREE_GPU_MEMORY_FRACTION}*({gpus_per_instance}'
    "*{gpu_memory_gib}-{weights_gib}-{gpus_per_instance}*{ACTIVATION_RESERVE_GIB}),"
    'IF({engine}="sglang",{gpus_per_instance}*{gpu_memory_gib}*{SGLANG_MEM_FRACTION_STATIC}'
    "-{weights_gib},{gpus_per_instance}*{gpu_memory_gib}*{VLLM_GPU_MEMORY_UTILIZATION}"
    "-{weights_gib}-{gpus_per_instance}*{ACTIVATION_RESERVE_GIB})))"
)


def _budget(
    gpus: Array | float,
    method: Array,
    engine: Array,
    gpu_memory_gib: Array,
    weights_gib: Array,
    reserve: float,
    trt_fraction: float,
    sglang_fraction: float,
    vllm_utilization: float,
) -> Array:
    total = gpus * gpu_memory_gib
    vllm = total * vllm_utilization - weights_gib - gpus * reserve
    trt = trt_fraction * (total - weights_gib - gpus * reserve)
    sglang = total * sglang_fraction - weights_gib
    by_engine = np.where(equals(engine, "tensorrt-llm"), trt,
                         np.where(equals(engine, "sglang"), sglang, vllm))
    return np.where(equals(method, "tutorial"), total - weights_gib, by_engine)


def _tp_fits_xl(t: int) -> str:
    budget = _BUDGET_XL.replace("{gpus_per_instance}", f"{t}*{{pp}}")
    return f"AND(MOD({{attention_heads}},{t})=0,{budget}>={{kv_gib_per_seq}})"


def _tp_roomy_xl(t: int) -> str:
    return (
        f"AND(MOD({{attention_heads}},{t})=0,"
        f"{{weights_gib}}<={{AUTO_TP_WEIGHT_SHARE}}*{t}*{{pp}}*{{gpu_memory_gib}})"
    )


def _auto_tp_xl() -> str:
    roomy = "".join(f"IF({_tp_roomy_xl(t)},{t}," for t in TP_CHOICES)
    fits = "".join(f"IF({_tp_fits_xl(t)},{t}," for t in TP_CHOICES)
    closing = ")" * (2 * len(TP_CHOICES))
    return roomy + fits + str(TP_CHOICES[-1]) + closing


@quantity(
    "GPUs",
    'IF(ISBLANK({raw_tp}),IF({method}="tutorial",1,' + _auto_tp_xl() + "),{raw_tp})",
)
def tp(
    raw_tp: Array,
    method: Array,
    engine: Array,
    attention_heads: Array,
    weights_gib: Array,
    pp: Array,
    gpu_memory_gib: Array,
    kv_gib_per_seq: Array,
    AUTO_TP_WEIGHT_SHARE: float,
    ACTIVATION_RESERVE_GIB: float,
    TRTLLM_FREE_GPU_MEMORY_FRACTION: float,
    SGLANG_MEM_FRACTION_STATIC: float,
    VLLM_GPU_MEMORY_UTILIZATION: float,
) -> Array:
    """Tensor parallelism (GPUs per pipeline stage): as given, else the smallest of 1, 2, 4, 8
    that divides the heads and keeps weights within AUTO_TP_WEIGHT_SHARE of the replica's
    memory, else the smallest that holds one sequence, else 8 (and the scenario does not
    fit)."""
    if not np.isnan(raw_tp).any():
        return raw_tp  # every tp given (the search's candidates): no quick rule to apply
    roomy_choice = np.full(len(raw_tp), np.nan)
    fit_choice = np.full(len(raw_tp), np.nan)
    for t in reversed(TP_CHOICES):
        divides = np.mod(attention_heads, t) == 0
        roomy = divides & (weights_gib <= AUTO_TP_WEIGHT_SHARE * t * pp * gpu_memory_gib)
        budget = _budget(
            t * pp, method, engine, gpu_memory_gib, weights_gib, ACTIVATION_RESERVE_GIB,
            TRTLLM_FREE_GPU_MEMORY_FRACTION, SGLANG_MEM_FRACTION_STATIC,
            VLLM_GPU_MEMORY_UTILIZATION,
        )
        fits = divides & (budget >= kv_gib_per_seq)
        roomy_choice = np.where(roomy, t, roomy_choice)
        fit_choice = np.where(fits, t, fit_choice)
    auto = np.where(
        ~np.isnan(roomy_choice),
        roomy_choice,
        np.where(~np.isnan(fit_choice), fit_choice, TP_CHOICES[-1]),
    )
    auto = np.where(equals(method, "tutorial"), 1.0, auto)
    return np.where(np.isnan(raw_tp), auto, raw_tp)


@quantity("GPUs", "{tp}*{pp}")
def gpus_per_instance(tp: Array, pp: Array) -> Array:
    """GPUs of one model replica: tp GPUs in each of its pp pipeline stages."""
    return tp * pp


@quantity("copies", "IF({raw_attention_dp}=1,{tp},1)")
def attention_replicas(raw_attention_dp: Array, tp: Array) -> Array:
    """Copies of the attention and other non-expert weights each stage keeps: one per GPU
    under attention data-parallelism (attention_dp = 1), else one split over the tp GPUs."""
    return np.where(raw_attention_dp == 1, tp, 1.0)


@quantity("GiB", "{weights_gib}+{shared_weights_gib}*({attention_replicas}-1)")
def resident_weights_gib(
    weights_gib: Array, shared_weights_gib: Array, attention_replicas: Array
) -> Array:
    """Weights a replica keeps in its GPUs' memory: the model's weights once, plus the extra
    copies of the non-expert weights attention data-parallelism keeps."""
    return weights_gib + shared_weights_gib * (attention_replicas - 1)


@quantity("GiB", "{resident_weights_gib}/{gpus_per_instance}")
def weights_gib_per_gpu(resident_weights_gib: Array, gpus_per_instance: Array) -> Array:
    """Weights held by each GPU of a replica (layers split over the stages, each stage's over
    its tp GPUs; under attention data-parallelism each GPU holds its stage's non-expert
    weights whole and a tp-th of its experts)."""
    return resident_weights_gib / gpus_per_instance


@quantity("GiB", _BUDGET_XL.replace("{weights_gib}", "{resident_weights_gib}"))
def kv_budget_gib(
    method: Array,
    gpus_per_instance: Array,
    gpu_memory_gib: Array,
    resident_weights_gib: Array,
    engine: Array,
    TRTLLM_FREE_GPU_MEMORY_FRACTION: float,
    ACTIVATION_RESERVE_GIB: float,
    SGLANG_MEM_FRACTION_STATIC: float,
    VLLM_GPU_MEMORY_UTILIZATION: float,
) -> Array:
    """Memory of a replica of N = tp·pp GPUs the serving engine gives the KV cache (vLLM:
    N·M·util − W − N·reserve; TensorRT-LLM: fraction·(N·M − W − N·reserve); SGLang:
    N·M·fraction − W; the tutorial: N·M − W). Each stage caches its own layers of every
    running sequence, so the budget of all N GPUs holds whole sequences."""
    return _budget(
        gpus_per_instance, method, engine, gpu_memory_gib, resident_weights_gib,
        ACTIVATION_RESERVE_GIB, TRTLLM_FREE_GPU_MEMORY_FRACTION, SGLANG_MEM_FRACTION_STATIC,
        VLLM_GPU_MEMORY_UTILIZATION,
    )


@quantity(
    "copies",
    "IF({attention_replicas}>1,1,IF({model__mla_kv_dim}>0,{tp},MAX(1,{tp}/{kv_heads})))",
)
def kv_copies(
    model__mla_kv_dim: Array, tp: Array, kv_heads: Array, attention_replicas: Array
) -> Array:
    """Copies of each token's KV cache a replica stores and reads: tensor parallelism gives each
    GPU its share of the KV heads, so with fewer KV heads than GPUs a head is kept on tp ÷
    kv_heads of them; an MLA latent serves every head and each GPU keeps the whole of it (tp
    copies). 1 when every GPU has KV heads of its own, and under attention data-parallelism
    (each sequence's cache lives on the one GPU that runs its attention)."""
    split = np.where(model__mla_kv_dim > 0, tp, np.maximum(1.0, tp / kv_heads))
    return np.where(attention_replicas > 1, 1.0, split)


@quantity("GiB", "{kv_gib_per_seq}*{kv_copies}")
def kv_stored_gib_per_seq(kv_gib_per_seq: Array, kv_copies: Array) -> Array:
    """KV cache one running sequence takes in the replica's memory, every copy counted."""
    return kv_gib_per_seq * kv_copies


@quantity(
    "sequences",
    "IF({kv_budget_gib}>0,INT(ROUND({kv_budget_gib}/{kv_stored_gib_per_seq},9)),0)",
)
def batch_max_kv(kv_budget_gib: Array, kv_stored_gib_per_seq: Array) -> Array:
    """Most sequences a replica can hold in its KV budget (B_mem); 0 when weights do not fit."""
    return np.where(kv_budget_gib > 0, floor_snapped(kv_budget_gib / kv_stored_gib_per_seq), 0.0)
