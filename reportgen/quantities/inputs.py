"""Inputs as the plan uses them: the user's value where given, else the catalog or the default."""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import (
    Array,
    choose,
    concat_text,
    has_key,
    lower,
    per_distinct,
    table_row,
)


def _given(raw: Array) -> Array:
    return ~np.isnan(raw)


def _table_row_xl(table: str, key: str) -> str:
    """The position of ``{key}`` among the keys of ``table``, #N/A unless exactly one matches:
    a name no catalog row has is an error cell, never another row's numbers."""
    keys = "{keys__" + table + "}"
    match = f"({keys}={{{key}}})"
    return (f"IF(SUMPRODUCT({match}*1)=1,SUMPRODUCT({match}*(ROW({keys})-MIN(ROW({keys}))+1)),"
            "NA())")


@quantity("text", "{raw_scenario}", kind="text")
def scenario(raw_scenario: Array) -> Array:
    """Scenario name, as given."""
    return raw_scenario


@quantity("text", "{raw_model}", kind="text")
def model(raw_model: Array) -> Array:
    """Model, as its catalog name."""
    return raw_model


@quantity("text", "{raw_gpu}", kind="text")
def gpu(raw_gpu: Array) -> Array:
    """GPU, as its catalog name."""
    return raw_gpu


@quantity("row", _table_row_xl("model", "model"))
def model_row(keys__model: Array, model: Array) -> Array:
    """Row of the model on the Models sheet (1 = first model), which every catalog figure of
    the model is read from; #N/A when the name matches no row."""
    return table_row(keys__model, model)


@quantity("row", _table_row_xl("gpu", "gpu"))
def gpu_row(keys__gpu: Array, gpu: Array) -> Array:
    """Row of the GPU on the GPUs sheet (1 = first GPU), which every catalog figure of the GPU
    is read from; #N/A when the name matches no row."""
    return table_row(keys__gpu, gpu)


@quantity("text", "{raw_method}", kind="text")
def method(raw_method: Array) -> Array:
    """Estimation method: roofline (the plan) or tutorial (its arithmetic, for reference)."""
    return raw_method


@quantity("text", 'IF({raw_workload}="",{raw_scenario},{raw_workload})', kind="text")
def workload(raw_workload: Array, raw_scenario: Array) -> Array:
    """Workload the row is an option for (rows of one workload are alternatives for the same
    traffic, and one of them is budgeted); blank: the row is its own workload."""
    return np.where(raw_workload == "", raw_scenario, raw_workload).astype(object, copy=False)


@quantity("text", "LOWER(TRIM({workload}))", kind="text")
def workload_key(workload: Array) -> Array:
    """The workload as rows are grouped by it: spaces trimmed, case ignored."""
    return per_distinct(workload, lambda w: " ".join(w.split()).lower())


@quantity(
    "text", 'IF({method}="tutorial","compare",IF({raw_role}="","plan",{raw_role}))', kind="text"
)
def role(method: Array, raw_role: Array) -> Array:
    """plan (budgeted when chosen) or compare (shown for comparison only; every tutorial-method
    row)."""
    given = np.where(raw_role == "", "plan", raw_role)
    return np.where(method == "tutorial", "compare", given).astype(object, copy=False)


@quantity("text", "{raw_engine}", kind="text")
def engine(raw_engine: Array) -> Array:
    """Serving engine whose definition of the KV-cache memory budget applies."""
    return raw_engine


@quantity(
    "text", 'IF({raw_weight_dtype}="",{model__weight_dtype},{raw_weight_dtype})', kind="text"
)
def weight_dtype(raw_weight_dtype: Array, model__weight_dtype: Array) -> Array:
    """Precision of the weights other than the routed experts (all of a dense model's): as
    typed, else as the checkpoint ships them (model catalog or config.json)."""
    return np.where(raw_weight_dtype == "", model__weight_dtype, raw_weight_dtype).astype(
        object, copy=False)


@quantity(
    "text", 'IF({raw_weight_dtype}="",{model__expert_weight_dtype},{raw_weight_dtype})',
    kind="text",
)
def expert_weight_dtype(raw_weight_dtype: Array, model__expert_weight_dtype: Array) -> Array:
    """Precision of the routed experts' weights (MoE; a dense model's as weight_dtype): as
    typed, else as shipped (gpt-oss ships them in MXFP4 beside bf16 attention)."""
    return np.where(raw_weight_dtype == "", model__expert_weight_dtype,
                    raw_weight_dtype).astype(object, copy=False)


@quantity("text", 'IF({raw_kv_dtype}="",{model__kv_dtype},{raw_kv_dtype})', kind="text")
def kv_dtype(raw_kv_dtype: Array, model__kv_dtype: Array) -> Array:
    """Precision of the KV cache: as typed, else the checkpoint's activation precision."""
    return np.where(raw_kv_dtype == "", model__kv_dtype, raw_kv_dtype).astype(object, copy=False)


@quantity("req/s", "{raw_peak_qps}")
def peak_qps(raw_peak_qps: Array) -> Array:
    """Peak request rate the fleet must carry."""
    return raw_peak_qps


@quantity("req/s", "IF(ISBLANK({raw_avg_qps}),{raw_peak_qps},{raw_avg_qps})")
def avg_qps(raw_avg_qps: Array, raw_peak_qps: Array) -> Array:
    """Average request rate, for cost per token (default: the peak rate)."""
    return np.where(_given(raw_avg_qps), raw_avg_qps, raw_peak_qps)


@quantity("fraction", "IF(ISBLANK({raw_growth_per_quarter}),0,{raw_growth_per_quarter})")
def growth_per_quarter(raw_growth_per_quarter: Array) -> Array:
    """Growth of the request rates per quarter, for the quarterly ramp (default 0)."""
    return np.where(_given(raw_growth_per_quarter), raw_growth_per_quarter, 0.0)


@quantity("quarters", "IF(ISBLANK({raw_horizon_quarters}),4,{raw_horizon_quarters})")
def horizon_quarters(raw_horizon_quarters: Array) -> Array:
    """Quarters the ramp covers, from the plan's quarter (default 4)."""
    return np.where(_given(raw_horizon_quarters), raw_horizon_quarters, 4.0)


@quantity("tokens", "{raw_avg_prompt_tokens}")
def avg_prompt_tokens(raw_avg_prompt_tokens: Array) -> Array:
    """Mean prompt (input) length."""
    return raw_avg_prompt_tokens


@quantity("tokens", "{raw_avg_output_tokens}")
def avg_output_tokens(raw_avg_output_tokens: Array) -> Array:
    """Mean output (generated) length."""
    return raw_avg_output_tokens


@quantity(
    "tokens",
    "IF(ISBLANK({raw_max_prompt_tokens}),{avg_prompt_tokens},{raw_max_prompt_tokens})",
)
def max_prompt_tokens(raw_max_prompt_tokens: Array, avg_prompt_tokens: Array) -> Array:
    """Prompt length the KV cache is reserved for (default: the mean)."""
    return np.where(_given(raw_max_prompt_tokens), raw_max_prompt_tokens, avg_prompt_tokens)


@quantity(
    "tokens",
    "IF(ISBLANK({raw_max_output_tokens}),{avg_output_tokens},{raw_max_output_tokens})",
)
def max_output_tokens(raw_max_output_tokens: Array, avg_output_tokens: Array) -> Array:
    """Output length the KV cache is reserved for (default: the mean)."""
    return np.where(_given(raw_max_output_tokens), raw_max_output_tokens, avg_output_tokens)


@quantity("fraction", "IF(ISBLANK({raw_prefix_cache_hit_rate}),0,{raw_prefix_cache_hit_rate})")
def prefix_cache_hit_rate(raw_prefix_cache_hit_rate: Array) -> Array:
    """Share of prompt tokens served from the prefix cache (not recomputed in prefill)."""
    return np.where(_given(raw_prefix_cache_hit_rate), raw_prefix_cache_hit_rate, 0.0)


@quantity("×", "IF(ISBLANK({raw_safety_factor}),{SAFETY_FACTOR},{raw_safety_factor})")
def safety_factor(raw_safety_factor: Array, SAFETY_FACTOR: float) -> Array:
    """Head-room multiplier on instances."""
    return np.where(_given(raw_safety_factor), raw_safety_factor, SAFETY_FACTOR)


@quantity("sequences", "IF(ISBLANK({raw_max_batch}),{MAX_BATCH},{raw_max_batch})")
def max_batch(raw_max_batch: Array, MAX_BATCH: float) -> Array:
    """Scheduler cap on sequences per instance (vLLM max_num_seqs)."""
    return np.where(_given(raw_max_batch), raw_max_batch, MAX_BATCH)


# --- model --------------------------------------------------------------------------------------


@quantity("B params", "IF(ISBLANK({raw_params_b}),{model__params_b},{raw_params_b})")
def params_b(raw_params_b: Array, model__params_b: Array) -> Array:
    """Total parameters, billions."""
    return np.where(_given(raw_params_b), raw_params_b, model__params_b)


@quantity(
    "B params",
    "IF(ISBLANK({raw_active_params_b}),IF(ISBLANK({raw_params_b}),{model__active_params_b},"
    "{raw_params_b}),{raw_active_params_b})",
)
def active_params_b(
    raw_active_params_b: Array, raw_params_b: Array, model__active_params_b: Array
) -> Array:
    """Parameters used per token, billions (MoE: shared part plus the routed top-k experts)."""
    fallback = np.where(_given(raw_params_b), raw_params_b, model__active_params_b)
    return np.where(_given(raw_active_params_b), raw_active_params_b, fallback)


@quantity("layers", "IF(ISBLANK({raw_layers}),{model__layers},{raw_layers})")
def layers(raw_layers: Array, model__layers: Array) -> Array:
    """Transformer layers."""
    return np.where(_given(raw_layers), raw_layers, model__layers)


@quantity(
    "heads", "IF(ISBLANK({raw_attention_heads}),{model__attention_heads},{raw_attention_heads})"
)
def attention_heads(raw_attention_heads: Array, model__attention_heads: Array) -> Array:
    """Query attention heads per layer."""
    return np.where(_given(raw_attention_heads), raw_attention_heads, model__attention_heads)


@quantity("heads", "IF(ISBLANK({raw_kv_heads}),{model__kv_heads},{raw_kv_heads})")
def kv_heads(raw_kv_heads: Array, model__kv_heads: Array) -> Array:
    """Key/value heads per layer (fewer than attention heads under grouped-query attention)."""
    return np.where(_given(raw_kv_heads), raw_kv_heads, model__kv_heads)


@quantity("elements", "IF(ISBLANK({raw_head_dim}),{model__head_dim},{raw_head_dim})")
def head_dim(raw_head_dim: Array, model__head_dim: Array) -> Array:
    """Elements per attention head."""
    return np.where(_given(raw_head_dim), raw_head_dim, model__head_dim)


@quantity("elements", "{model__hidden_size}")
def hidden_size(model__hidden_size: Array) -> Array:
    """Width of the residual stream (what tensor-parallel all-reduce exchanges per token)."""
    return model__hidden_size


# --- GPU ----------------------------------------------------------------------------------------


@quantity("GiB", "IF(ISBLANK({raw_gpu_memory_gib}),{gpu__memory_gib},{raw_gpu_memory_gib})")
def gpu_memory_gib(raw_gpu_memory_gib: Array, gpu__memory_gib: Array) -> Array:
    """Memory of one GPU."""
    return np.where(_given(raw_gpu_memory_gib), raw_gpu_memory_gib, gpu__memory_gib)


@quantity(
    "TB/s",
    "IF(ISBLANK({raw_gpu_bandwidth_tbps}),{gpu__bandwidth_tbps},{raw_gpu_bandwidth_tbps})",
)
def gpu_bandwidth_tbps(raw_gpu_bandwidth_tbps: Array, gpu__bandwidth_tbps: Array) -> Array:
    """Peak memory bandwidth of one GPU."""
    return np.where(_given(raw_gpu_bandwidth_tbps), raw_gpu_bandwidth_tbps, gpu__bandwidth_tbps)


def _tensor_core_xl(d: str, field: str) -> str:
    """The precision ``d`` runs on tensor cores of catalog field ``field`` (fp8 cores also run
    4-bit weights, upcast)."""
    low = '"fp4",{d}="mxfp4"' if field == "fp4_tflops" else '"fp8",{d}="fp4",{d}="mxfp4"'
    return f"AND(OR({{d}}={low}),{{gpu__{field}}}>0)".replace("{d}", d)


_COMPUTE_DTYPE_XL = (
    f"IF(AND({_tensor_core_xl('{weight_dtype}', 'fp4_tflops')},"
    f"{_tensor_core_xl('{expert_weight_dtype}', 'fp4_tflops')}),\"fp4\","
    f"IF(AND({_tensor_core_xl('{weight_dtype}', 'fp8_tflops')},"
    f"{_tensor_core_xl('{expert_weight_dtype}', 'fp8_tflops')}),\"fp8\",\"bf16\"))"
)
_FOUR_BIT = ("fp4", "mxfp4")


def _runs_on(dtype: Array, cores: Array, low: tuple[str, ...]) -> Array:
    return np.isin(dtype, low) & (cores > 0)


def compute_precision(weights: Array, experts: Array, fp8_tflops: Array,
                      fp4_tflops: Array) -> Array:
    """The tensor-core precision of weights in ``weights`` (and routed experts in ``experts``)
    on GPUs with these fp8/fp4 peaks (0: no such tensor cores): the compute_dtype rule, for
    callers outside the registry (calibration keys)."""
    return np.asarray(compute_dtype.compute(np.asarray(weights, dtype=object), fp4_tflops,
                                            np.asarray(experts, dtype=object), fp8_tflops))


@quantity("text", _COMPUTE_DTYPE_XL, kind="text")
def compute_dtype(
    weight_dtype: Array,
    gpu__fp4_tflops: Array,
    expert_weight_dtype: Array,
    gpu__fp8_tflops: Array,
) -> Array:
    """Tensor-core precision the matrix multiplies run in: the lowest that every part of the
    weights has tensor cores for (lower-precision weights on a GPU without matching cores are
    weight-only quantized and computed in bf16; a mixed checkpoint runs at the precision of
    its higher-precision part, e.g. gpt-oss's bf16 attention)."""
    eight = (*_FOUR_BIT, "fp8")
    fp4 = (_runs_on(weight_dtype, gpu__fp4_tflops, _FOUR_BIT)
           & _runs_on(expert_weight_dtype, gpu__fp4_tflops, _FOUR_BIT))
    fp8 = (_runs_on(weight_dtype, gpu__fp8_tflops, eight)
           & _runs_on(expert_weight_dtype, gpu__fp8_tflops, eight))
    return choose([fp4, fp8], ["fp4", "fp8"], "bf16")


@quantity(
    "TFLOP/s",
    'IF(ISBLANK({raw_gpu_tflops}),IF({compute_dtype}="fp4",{gpu__fp4_tflops},'
    'IF({compute_dtype}="fp8",{gpu__fp8_tflops},{gpu__bf16_tflops})),{raw_gpu_tflops})',
)
def gpu_tflops(
    raw_gpu_tflops: Array,
    compute_dtype: Array,
    gpu__fp4_tflops: Array,
    gpu__fp8_tflops: Array,
    gpu__bf16_tflops: Array,
) -> Array:
    """Dense tensor throughput of one GPU at the compute precision."""
    catalog = np.where(
        compute_dtype == "fp4",
        gpu__fp4_tflops,
        np.where(compute_dtype == "fp8", gpu__fp8_tflops, gpu__bf16_tflops),
    )
    return np.where(_given(raw_gpu_tflops), raw_gpu_tflops, catalog)


@quantity(
    "USD/GPU-h",
    "IF(ISBLANK({raw_gpu_hour_price}),{gpu__price_per_gpu_hour},{raw_gpu_hour_price})",
)
def gpu_hour_price(raw_gpu_hour_price: Array, gpu__price_per_gpu_hour: Array) -> Array:
    """Price of one GPU for one hour."""
    return np.where(_given(raw_gpu_hour_price), raw_gpu_hour_price, gpu__price_per_gpu_hour)


# --- efficiencies -------------------------------------------------------------------------------


_STACK_XL = 'LOWER({gpu}&"-"&{compute_dtype}&"-"&{engine})'
_FAMILY_ENGINE_XL = 'LOWER({gpu__family}&"-"&{compute_dtype}&"-"&{engine})'
_FAMILY_XL = 'LOWER({gpu__family}&"-"&{compute_dtype})'


@quantity(
    "text",
    f"IF(SUMPRODUCT(({{keys__eff}}={_STACK_XL})*1)>0,{_STACK_XL},"
    f"IF(SUMPRODUCT(({{keys__eff}}={_FAMILY_ENGINE_XL})*1)>0,{_FAMILY_ENGINE_XL},{_FAMILY_XL}))",
    kind="text",
)
def efficiency_key(
    keys__eff: Array, gpu: Array, compute_dtype: Array, engine: Array, gpu__family: Array
) -> Array:
    """Row of the efficiency table that applies, the most specific that exists: this GPU,
    precision and engine (a calibration on your own load test), else the GPU family, precision
    and engine, else the GPU family and precision."""
    stack = lower(concat_text(gpu, "-", compute_dtype, "-", engine))
    family_engine = lower(concat_text(gpu__family, "-", compute_dtype, "-", engine))
    family = lower(concat_text(gpu__family, "-", compute_dtype))
    return np.where(
        has_key(stack, keys__eff),
        stack,
        np.where(has_key(family_engine, keys__eff), family_engine, family),
    ).astype(object, copy=False)


@quantity("row", _table_row_xl("eff", "efficiency_key"))
def efficiency_row(keys__eff: Array, efficiency_key: Array) -> Array:
    """Row of the efficiency key on the Efficiency sheet (1 = first row), which the row's
    efficiencies are read from; #N/A when the key matches no row."""
    return table_row(keys__eff, efficiency_key)


@quantity(
    "fraction",
    'IF(ISBLANK({raw_mfu_prefill}),IF({method}="tutorial",{TUTORIAL_MFU},{eff__mfu_prefill}),'
    "{raw_mfu_prefill})",
)
def mfu_prefill(
    raw_mfu_prefill: Array, method: Array, TUTORIAL_MFU: float, eff__mfu_prefill: Array
) -> Array:
    """Share of peak tensor throughput achieved in prefill."""
    default = np.where(method == "tutorial", TUTORIAL_MFU, eff__mfu_prefill)
    return np.where(_given(raw_mfu_prefill), raw_mfu_prefill, default)


@quantity(
    "fraction",
    'IF(ISBLANK({raw_mfu_decode}),IF({method}="tutorial",{TUTORIAL_MFU},{eff__mfu_decode}),'
    "{raw_mfu_decode})",
)
def mfu_decode(
    raw_mfu_decode: Array, method: Array, TUTORIAL_MFU: float, eff__mfu_decode: Array
) -> Array:
    """Share of peak tensor throughput achieved in decode when compute-bound."""
    default = np.where(method == "tutorial", TUTORIAL_MFU, eff__mfu_decode)
    return np.where(_given(raw_mfu_decode), raw_mfu_decode, default)


@quantity("fraction", "IF(ISBLANK({raw_mbu}),{eff__mbu},{raw_mbu})")
def mbu(raw_mbu: Array, eff__mbu: Array) -> Array:
    """Share of peak memory bandwidth achieved in decode."""
    return np.where(_given(raw_mbu), raw_mbu, eff__mbu)


@quantity("ms", "{eff__step_overhead_ms}")
def step_overhead_ms(eff__step_overhead_ms: Array) -> Array:
    """Fixed scheduler and kernel-launch time per decode step."""
    return eff__step_overhead_ms
