"""Every input column once: name, type, unit, default, allowed values and meaning.

Validation, the workbook's Scenarios sheet, `reportgen columns` and the README table all read
this list. Column names are a public contract: add, never rename.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Type = Literal["text", "number", "choice"]

# mxfp4: 4-bit values sharing an 8-bit scale per 32 (OCP microscaling; gpt-oss's experts).
DTYPES = ("bf16", "fp16", "fp8", "int8", "int4", "fp4", "mxfp4")
ENGINES = ("vllm", "tensorrt-llm", "sglang")
METHODS = ("roofline", "tutorial")
ROLES = ("plan", "compare")
TP_VALUES = (1, 2, 4, 8)
PP_VALUES = (1, 2, 4)
# A searchable column takes one value, AUTO, or a list of values joined by LIST_SEPARATOR; the
# pipeline plans every combination and keeps the cheapest that meets the targets.
AUTO = "auto"
LIST_SEPARATOR = "|"


@dataclass(frozen=True)
class Column:
    """One input column of the scenario file."""

    name: str
    type: Type
    unit: str
    help: str
    required: bool = False
    default: str = ""  # how a blank cell is read, in words (or the literal default of a choice)
    minimum: float | None = None
    maximum: float | None = None
    above_minimum: bool = False  # True: value must be > minimum, not ≥
    integer: bool = False
    choices: tuple[str, ...] = ()
    group: str = "workload"
    searchable: bool = False  # accepts AUTO or a list a|b|c (see search.py)

    def allowed(self) -> str:
        """The allowed values, in words."""
        if self.searchable:
            one = "one of " + ", ".join(self.choices) if self.choices else "a catalog name"
            return f"{one}, {AUTO}, or a list such as {self.example()}"
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.type == "text":
            return "text"
        sign = ">" if self.above_minimum else "≥"
        low = "" if self.minimum is None else f"{sign} {_number(self.minimum)}"
        high = "" if self.maximum is None else f"≤ {_number(self.maximum)}"
        kind = "a whole number" if self.integer else "a number"
        bounds = " and ".join(b for b in (low, high) if b)
        return f"{kind} {bounds}".strip()


    def example(self) -> str:
        """A list a user could write in a searchable column."""
        return LIST_SEPARATOR.join(_EXAMPLES.get(self.name, self.choices[:2]))


_EXAMPLES = {
    "gpu": ("H100", "H200", "L40S"), "tp": ("2", "4"), "pp": ("1", "2"),
    "weight_dtype": ("bf16", "fp8"),
    "kv_dtype": ("bf16", "fp8"), "engine": ("vllm", "sglang"),
}


def _number(value: float) -> str:
    """1000000 as "1,000,000", 0.99 as "0.99"."""
    return f"{value:,.0f}" if value == int(value) else f"{value:g}"


_C = Column
COLUMNS: tuple[Column, ...] = (
    _C("scenario", "text", "", "Name of the scenario (unique in the file).", required=True),
    _C("model", "text", "", "Model: catalog name (llama-3.1-70b), Hugging Face id "
       "(meta-llama/Llama-3.1-70B-Instruct) or a path to a local config.json.", required=True,
       group="model"),
    _C("gpu", "text", "", "GPU: catalog name (H100, h100-sxm, L40S, MI300X ...); a list "
       "(H100|H200|L40S) or auto (every catalog GPU) plans each and keeps the cheapest.",
       required=True, group="gpu", searchable=True),
    _C("peak_qps", "number", "req/s", "Peak request rate the fleet must carry.", required=True,
       minimum=0, above_minimum=True, maximum=1e6),
    _C("avg_prompt_tokens", "number", "tokens", "Mean prompt (input) length.", required=True,
       minimum=1, maximum=2_000_000),
    _C("avg_output_tokens", "number", "tokens", "Mean output (generated) length.", required=True,
       minimum=1, maximum=2_000_000),
    _C("avg_qps", "number", "req/s", "Average request rate, for cost per token.",
       default="peak_qps", minimum=0, above_minimum=True, maximum=1e6),
    _C("max_prompt_tokens", "number", "tokens", "Prompt length the KV cache is reserved for.",
       default="avg_prompt_tokens", minimum=1, maximum=2_000_000),
    _C("max_output_tokens", "number", "tokens", "Output length the KV cache is reserved for.",
       default="avg_output_tokens", minimum=1, maximum=2_000_000),
    _C("tp", "number", "GPUs", "Tensor parallelism (GPUs per model replica); blank or auto "
       "plans every tensor parallelism that fits and keeps the cheapest.",
       default="auto: the cheapest", integer=True, choices=tuple(str(t) for t in TP_VALUES),
       group="deployment", searchable=True),
    _C("pp", "number", "stages", "Pipeline parallelism: stages per model replica, each of tp "
       "GPUs, passing activations over the inter-node link (a replica is tp × pp GPUs); blank: "
       "single-node replicas, more stages only when nothing single-node meets the targets; "
       "auto or a list plans each and keeps the cheapest.",
       default="1 (more only when nothing fits)", integer=True,
       choices=tuple(str(p) for p in PP_VALUES), group="deployment", searchable=True),
    _C("attention_dp", "number", "", "1: attention data-parallel with expert parallelism "
       "(DEP): each of a stage's tp GPUs runs attention for its own sequences, keeping their "
       "KV cache once and a whole copy of the attention and other non-expert weights, while "
       "the routed experts are split across the tp GPUs (SGLang --enable-dp-attention, vLLM "
       "--data-parallel-size with --enable-expert-parallel); for mixture-of-experts models, "
       "above all MLA ones (DeepSeek), whose latent KV cache tensor parallelism keeps on every "
       "GPU. 0 or blank: attention split by tensor parallelism; auto or 0|1 plans both and "
       "keeps the cheaper.",
       default="0 (attention split by tensor parallelism)", integer=True,
       choices=("0", "1"), group="deployment", searchable=True),
    _C("weight_dtype", "choice", "", "Precision of the weights; blank: as the checkpoint "
       "ships them (the model catalog or config.json's quantization_config: fp8 for "
       "DeepSeek-V3, MXFP4 experts with bf16 attention for gpt-oss); auto also plans every "
       "lower precision the GPU's tensor cores run (fp8, fp4).",
       default="as shipped (the checkpoint's own precision)", choices=DTYPES,
       group="deployment", searchable=True),
    _C("kv_dtype", "choice", "", "Precision of the KV cache; blank: as the checkpoint "
       "computes (its activation precision, bf16 for most); auto also plans fp8.",
       default="as shipped (the checkpoint's activation precision)", choices=DTYPES,
       group="deployment", searchable=True),
    _C("ttft_slo_ms", "number", "ms", "Target mean time to first token (blank: no target).",
       default="no target", minimum=0, above_minimum=True, maximum=3_600_000, group="targets"),
    _C("tpot_slo_ms", "number", "ms", "Target mean time per output token (blank: no target).",
       default="no target", minimum=0, above_minimum=True, maximum=60_000, group="targets"),
    _C("ttft_p99_ms", "number", "ms", "Target 99th-percentile time to first token under "
       "random arrivals; with a percentile target the instances follow from the knee, the "
       "highest rate per instance whose simulated P99 meets it (blank: no percentile target).",
       default="no target", minimum=0, above_minimum=True, maximum=3_600_000, group="targets"),
    _C("tpot_p99_ms", "number", "ms", "Target 99th-percentile time per output token under "
       "random arrivals; sized by the knee like ttft_p99_ms (blank: no percentile target).",
       default="no target", minimum=0, above_minimum=True, maximum=60_000, group="targets"),
    _C("arrival_cv", "number", "×", "Coefficient of variation of the gaps between arrivals "
       "the simulator draws: 1 is Poisson, above 1 bursty, 0 evenly spaced.",
       default="1 (Poisson)", minimum=0, maximum=10, group="targets"),
    _C("knee_rps", "number", "req/s", "Highest request rate one instance serves "
       "within the percentile targets; instances = ⌈peak_qps × safety ÷ knee_rps⌉ instead of "
       "the closed form. Blank: simulated for rows with ttft_p99_ms or tpot_p99_ms (the "
       "workbook shows the simulated value here, an input, not a formula); type your load "
       "test's knee to use it.", default="simulated when a percentile target is given",
       minimum=0, above_minimum=True, maximum=1_000_000, group="targets"),
    _C("max_batch", "number", "sequences", "Scheduler cap on sequences per replica "
       "(vLLM max_num_seqs).", default="MAX_BATCH (256)", minimum=1, maximum=100_000,
       integer=True, group="deployment"),
    _C("prefix_cache_hit_rate", "number", "fraction", "Share of prompt tokens served from the "
       "prefix cache.", default="0", minimum=0, maximum=0.99),
    _C("gpu_hour_price", "number", "USD/GPU-h", "Price of one GPU for one hour, as typed: wins "
       "over the price book and is billed per GPU.",
       default="the price book's price at --price-basis (reportgen/data/prices.csv)", minimum=0,
       maximum=1000, group="cost"),
    _C("safety_factor", "number", "×", "Head-room multiplier on instances.",
       default="SAFETY_FACTOR (1.4)", minimum=1, maximum=10, group="cost"),
    _C("min_replicas", "number", "replicas", "Fewest replicas kept running whatever the "
       "traffic, so one can fail or be upgraded without an outage.",
       default="2 for plan rows, 1 for compare rows", minimum=1, maximum=100_000, integer=True,
       group="cost"),
    _C("growth_per_quarter", "number", "fraction", "Growth of the peak and average rates per "
       "quarter, for the quarterly ramp (0.1 = 10 % a quarter).", default="0", minimum=-0.9,
       maximum=10, group="cost"),
    _C("horizon_quarters", "number", "quarters", "Quarters the ramp covers, from the plan's "
       "quarter.", default="4", minimum=1, maximum=40, integer=True, group="cost"),
    _C("spare_replicas", "number", "replicas", "Replicas added above what traffic needs (1 = "
       "N+1), kept apart from the safety factor.", default="0", minimum=0, maximum=100_000,
       integer=True, group="cost"),
    _C("mfu_prefill", "number", "fraction", "Share of peak tensor throughput reached in prefill.",
       default="calibrated for the GPU family and precision", minimum=0, above_minimum=True,
       maximum=1, group="efficiency"),
    _C("mfu_decode", "number", "fraction", "Share of peak tensor throughput reached in "
       "compute-bound decode.", default="calibrated for the GPU family and precision",
       minimum=0, above_minimum=True, maximum=1, group="efficiency"),
    _C("mbu", "number", "fraction", "Share of peak memory bandwidth reached in decode.",
       default="calibrated for the GPU family and precision", minimum=0, above_minimum=True,
       maximum=1, group="efficiency"),
    _C("engine", "choice", "", "Serving engine whose KV-cache memory budget applies; auto "
       "plans each engine.", default="vllm", choices=ENGINES, group="deployment",
       searchable=True),
    _C("method", "choice", "", "roofline (the plan) or tutorial (the tutorial's arithmetic, "
       "for comparison).", default="roofline", choices=METHODS, group="deployment"),
    _C("params_b", "number", "B params", "Override: total parameters, billions.",
       default="catalog", minimum=0, above_minimum=True, maximum=100_000, group="model"),
    _C("active_params_b", "number", "B params", "Override: parameters active per token "
       "(MoE), billions.", default="catalog (= params_b for dense)", minimum=0,
       above_minimum=True, maximum=100_000, group="model"),
    _C("layers", "number", "layers", "Override: transformer layers.", default="catalog",
       minimum=1, maximum=10_000, integer=True, group="model"),
    _C("attention_heads", "number", "heads", "Override: query heads per layer.",
       default="catalog", minimum=1, maximum=10_000, integer=True, group="model"),
    _C("kv_heads", "number", "heads", "Override: key/value heads per layer (GQA).",
       default="catalog", minimum=1, maximum=10_000, integer=True, group="model"),
    _C("head_dim", "number", "elements", "Override: elements per head.", default="catalog",
       minimum=1, maximum=100_000, integer=True, group="model"),
    _C("gpu_memory_gib", "number", "GiB", "Override: memory per GPU.", default="catalog",
       minimum=0, above_minimum=True, maximum=100_000, group="gpu"),
    _C("gpu_tflops", "number", "TFLOP/s", "Override: dense tensor throughput per GPU at the "
       "compute precision.", default="catalog", minimum=0, above_minimum=True,
       maximum=1_000_000, group="gpu"),
    _C("gpu_bandwidth_tbps", "number", "TB/s", "Override: memory bandwidth per GPU.",
       default="catalog", minimum=0, above_minimum=True, maximum=10_000, group="gpu"),
    # Decisions: which rows are alternatives for the same traffic, which are for comparison.
    _C("workload", "text", "", "Rows with the same workload are alternatives for the same "
       "traffic: the cheapest that meets its targets is chosen and only it is budgeted "
       "(blank: the row is its own workload).", default="the scenario name", group="decision"),
    _C("role", "choice", "", "plan (budgeted when chosen) or compare (shown for comparison, "
       "never in totals, BOM or procurement).",
       default="plan (compare for tutorial-method rows)", choices=ROLES, group="decision"),
)

BY_NAME: dict[str, Column] = {c.name: c for c in COLUMNS}
REQUIRED: tuple[str, ...] = tuple(c.name for c in COLUMNS if c.required)
MODEL_OVERRIDES = (
    "params_b", "active_params_b", "layers", "attention_heads", "kv_heads", "head_dim",
)
GPU_OVERRIDES = ("gpu_memory_gib", "gpu_tflops", "gpu_bandwidth_tbps")
SEARCHABLE: tuple[str, ...] = tuple(c.name for c in COLUMNS if c.searchable)
TEXT_COLUMNS: tuple[str, ...] = tuple(c.name for c in COLUMNS if c.type != "number")
NUMBER_COLUMNS: tuple[str, ...] = tuple(c.name for c in COLUMNS if c.type == "number")
