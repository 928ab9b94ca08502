"""What the review measures per workload and period, in one unit each, and the actuals template.

Every reader (template, Prometheus, billing) maps its file to rows of these measures, per
workload and period (start inclusive, end exclusive, whole days, UTC). Additive measures are
summed over a window; statistics are combined as :data:`STATS` says.
"""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.schema import Column

ADDITIVE = ("requests", "prompt_tokens", "output_tokens", "gpu_hours", "billed_cost")
REQUIRED = ADDITIVE  # without these a workload's cost cannot be explained
# statistic → how periods combine into a window: "max", or "mean" weighted by the named measure
# ("hours": the period's length)
STATS: dict[str, str] = {
    "peak_qps": "max",
    "ttft_mean_ms": "requests", "ttft_p50_ms": "requests", "ttft_p99_ms": "max",
    "tpot_mean_ms": "output_tokens", "tpot_p50_ms": "requests", "tpot_p99_ms": "max",
    "kv_cache_usage_mean": "hours", "kv_cache_usage_p95": "max",
    "running_mean": "hours",
}
STACK = ("model", "gpu", "tp", "engine")
MEASURES: tuple[str, ...] = (*ADDITIVE, *STATS)
KEYS = ("workload", "start", "end", "source")


@dataclass(frozen=True)
class Definition:
    """Unit and meaning of a measure, for headers and the documentation."""

    unit: str
    doc: str


DEFINITIONS: dict[str, Definition] = {
    "requests": Definition("requests", "Requests completed in the period."),
    "prompt_tokens": Definition("tokens", "Prompt tokens processed in the period."),
    "output_tokens": Definition("tokens", "Output tokens generated in the period."),
    "gpu_hours": Definition("GPU-h", "GPU-hours paid for in the period."),
    "billed_cost": Definition("USD", "Cost billed for those GPU-hours."),
    "peak_qps": Definition("req/s", "Peak request rate: the 99th percentile of 1-minute rates."),
    "ttft_mean_ms": Definition("ms", "Mean time to first token."),
    "ttft_p50_ms": Definition("ms", "Median time to first token."),
    "ttft_p99_ms": Definition("ms", "99th percentile time to first token."),
    "tpot_mean_ms": Definition("ms", "Mean time per output token (after the first), per token."),
    "tpot_p50_ms": Definition("ms", "Median time per output token."),
    "tpot_p99_ms": Definition("ms", "99th percentile time per output token."),
    "kv_cache_usage_mean": Definition("fraction", "Mean share of KV-cache blocks in use."),
    "kv_cache_usage_p95": Definition("fraction", "95th percentile share of KV blocks in use."),
    "running_mean": Definition("sequences", "Mean sequences running per replica."),
}

@dataclass(frozen=True)
class DateColumn(Column):
    """A column of calendar dates."""

    def allowed(self) -> str:
        return "a date YYYY-MM-DD (or a date cell)"


_C = Column
TEMPLATE_COLUMNS: tuple[Column, ...] = (
    _C("workload", "text", "", "Workload: the plan's workload or scenario name.", required=True),
    DateColumn("period_start", "text", "date", "First day of the period (UTC).", required=True),
    DateColumn("period_end", "text", "date", "Last day of the period, inclusive (UTC).",
               required=True),
    _C("requests", "number", "requests", "Requests completed in the period.", minimum=0),
    _C("prompt_tokens", "number", "tokens", "Prompt tokens processed in the period (not "
       "thousands).", minimum=0),
    _C("output_tokens", "number", "tokens", "Output tokens generated in the period.", minimum=0),
    _C("peak_qps", "number", "req/s", "Peak request rate: p99 of 1-minute rates.", minimum=0),
    _C("gpu_hours", "number", "GPU-h", "GPU-hours paid for (or give gpus).", minimum=0,
       default="gpus × hours in the period"),
    _C("gpus", "number", "GPUs", "GPUs provisioned on average over the period.", minimum=0),
    _C("billed_cost", "number", "USD", "Cost billed for the GPUs in the period.", minimum=0),
    _C("ttft_mean_ms", "number", "ms", "Mean time to first token.", minimum=0),
    _C("ttft_p50_ms", "number", "ms", "Median time to first token.", minimum=0),
    _C("ttft_p99_ms", "number", "ms", "99th percentile time to first token.", minimum=0),
    _C("tpot_mean_ms", "number", "ms", "Mean time per output token.", minimum=0),
    _C("tpot_p50_ms", "number", "ms", "Median time per output token.", minimum=0),
    _C("tpot_p99_ms", "number", "ms", "99th percentile time per output token.", minimum=0),
    _C("kv_cache_usage_mean", "number", "fraction", "Mean KV-cache usage, 0–1 (vLLM's "
       "kv_cache_usage_perc is a fraction despite its name).", minimum=0, maximum=1),
    _C("kv_cache_usage_p95", "number", "fraction", "95th percentile KV-cache usage, 0–1.",
       minimum=0, maximum=1),
    _C("running_mean", "number", "sequences", "Mean sequences running per replica "
       "(vllm:num_requests_running).", minimum=0),
    _C("model", "text", "", "Model actually served (catalog name), if not the plan's."),
    _C("gpu", "text", "", "GPU actually used (catalog name), if not the plan's."),
    _C("tp", "number", "GPUs", "Tensor parallelism actually used, if not the plan's.",
       choices=("1", "2", "4", "8")),
    _C("engine", "choice", "", "Serving engine actually used, if not the plan's.",
       choices=("vllm", "tensorrt-llm", "sglang")),
)

