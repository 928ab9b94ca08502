"""Global constants and defaults: one definition each.

Every constant is a named cell on the workbook's Assumptions sheet (a workbook defined name with
the same spelling), so a reviewer who changes one sees every dependent cell recompute. The PDF's
assumptions register is generated from the same list.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Constant:
    """A named global value with its unit, meaning and source."""

    name: str
    value: float | str
    unit: str
    doc: str
    source: str
    date: str  # when the value and its source were last checked
    editable: bool = True  # False: a definition (bytes per GiB), not an assumption to change


CHECKED = "2026-12-02"


CONSTANTS: dict[str, Constant] = {}


def _constant(
    name: str, value: float | str, unit: str, doc: str, source: str, date: str = CHECKED,
    editable: bool = True,
) -> None:
    if name in CONSTANTS:
        raise ValueError(f"constant {name} defined twice")
    if not name.isupper() or not name.replace("_", "").isalnum():
        raise ValueError(f"constant {name} must be UPPER_SNAKE (it becomes a workbook name)")
    CONSTANTS[name] = Constant(name, value, unit, doc, source, date, editable)


_constant("BYTES_PER_GIB", 1073741824, "bytes/GiB", "Bytes in one GiB (2^30).", "definition",
          editable=False)
_constant(
    "HOURS_PER_MONTH", 730, "h/month", "Billable hours in an average month (8,760 / 12).",
    "definition; the convention of cloud price lists",
)
_constant("SECONDS_PER_HOUR", 3600, "s/h", "Seconds in an hour.", "definition", editable=False)
_constant("MONTHS_PER_YEAR", 12, "months/year", "Months in a year.", "definition", editable=False)
_constant("CURRENCY", "USD", "text", "Currency of every price and cost.",
          "the price book (reportgen/data/prices.csv) is in USD", editable=False)
_constant(
    "SAFETY_FACTOR", 1.4, "×",
    "Head-room on instances for traffic spikes, applied after Little's Law.",
    "tutorial §并发度规划 (1.3–1.5) and its demo (1.4)",
)
_constant(
    "MAX_BATCH", 256, "sequences",
    "Scheduler cap on sequences per instance when a scenario gives no max_batch.",
    "vLLM default max_num_seqs = 256",
)
_constant(
    "VLLM_GPU_MEMORY_UTILIZATION", 0.9, "fraction",
    "Share of each GPU's memory vLLM may use for weights, activations and KV cache.",
    "vLLM default gpu_memory_utilization = 0.9",
)
_constant(
    "TRTLLM_FREE_GPU_MEMORY_FRACTION", 0.9, "fraction",
    "Share of the memory left after weights and activations that TensorRT-LLM gives the KV cache.",
    "TensorRT-LLM default kv_cache_config.free_gpu_memory_fraction = 0.9",
)
_constant(
    "SGLANG_MEM_FRACTION_STATIC", 0.88, "fraction",
    "Share of each GPU's memory SGLang reserves for weights plus KV cache.",
    "SGLang mem_fraction_static default for large-memory GPUs (0.88)",
)
# Fitted on the TensorRT-LLM v0.13 offline rows (reportgen/data/measurements_public.csv) with the
# shipped efficiencies: offline MdAPE 11.0 / 10.3 / 10.2 / 10.4 / 10.4 % at 2 / 3 / 4 / 5 / 6 GiB
# (benchmarks/accuracy.py prints 2 and 6 as ablations). vLLM's profiling run reports activation
# peak + non-torch memory of 3.0 GiB (Llama-3-8B, H100, TP 1) and 4.8 GiB (TP 2) (vLLM PR
# #10511), plus 0.1-0.6 GiB of CUDA graphs.
_constant(
    "ACTIVATION_RESERVE_GIB", 4, "GiB/GPU",
    "Memory per GPU kept for activations, CUDA graphs and runtime (not KV cache).",
    "fitted on the TensorRT-LLM offline rows (sweep 2–6 GiB, benchmarks/accuracy.py); in the "
    "range vLLM's profiling run reserves for activations and CUDA graphs (3–5 GiB)",
)
_constant(
    "AUTO_TP_WEIGHT_SHARE", 0.5, "fraction",
    "Auto tensor parallelism picks the smallest TP whose weights take at most this share of the "
    "instance's GPU memory, leaving the rest for KV cache.",
    "reportgen rule; see docs/method.md (auto-TP)",
)
_constant(
    "ACTIVATION_BYTES", 2, "bytes",
    "Bytes per activation element (bf16): what tensor-parallel all-reduces exchange and the "
    "norms read and write.",
    "definition (bf16 activations)",
)
_constant(
    "UNSHARDED_ACTIVATION_PASSES", 4, "count",
    "Reads and writes of a token's whole hidden vector per layer that tensor parallelism does "
    "not split: the norms and residual adds run on the full vector on every GPU of the stage "
    "after each all-reduce (two per layer, each reading and writing it).",
    "two RMSNorms per decoder layer, each one read and one write of the hidden vector; checked "
    "on the TensorRT-LLM offline rows with the efficiencies refitted (sweep 0–12 passes, "
    "docs/accuracy.md): 4 gives the lowest error in sample and with one GPU held out",
)
_constant(
    "PREFILL_CHUNK_TOKENS", 8192, "tokens",
    "Prompt tokens per chunk of a chunked prefill: the micro-batches a lone prompt fills a "
    "pipeline-parallel replica with.",
    "vLLM EngineArgs.get_batch_defaults: max_num_batched_tokens 8192 for the OpenAI server on "
    "GPUs of 70 GiB or more (2048 on smaller ones), the GPUs multi-node replicas run on",
)
_constant(
    "UNCALIBRATED_ENGINE_WIDENING", 0.25, "fraction",
    "How much wider each side of the error band is when the scenario's serving engine is not "
    "the one its efficiencies were calibrated on (the shipped rows: TensorRT-LLM).",
    "reportgen rule: no published vLLM or SGLang measurements with full configurations were "
    "found to calibrate them (docs/accuracy.md); one engine's releases alone differ by up to "
    "42 % on the same configuration (TensorRT-LLM v1.0 ÷ v0.13, 90th percentile of 45 pairs)",
)
_SUPPORT_SOURCE = "AWS Business Support pricing (aws.amazon.com/premiumsupport/pricing)"
_SUPPORT_CHECKED = "2026-12-03"
_constant(
    "INCLUDE_SUPPORT", 1, "flag",
    "1: the total includes the support plan on the AWS spend (the greater of SUPPORT_MINIMUM "
    "and SUPPORT_RATE_1 on the spend up to SUPPORT_BAND_1, SUPPORT_RATE_2 up to SUPPORT_BAND_2, "
    "SUPPORT_RATE_3 up to SUPPORT_BAND_3, SUPPORT_RATE_4 above); 0: it does not.",
    "reportgen default: a production fleet runs under a paid support plan",
)
for _name, _value, _unit, _doc in (
    ("SUPPORT_MINIMUM", 100, "USD/month", "Support plan's monthly minimum."),
    ("SUPPORT_BAND_1", 10000, "USD/month", "Support band 1 ends here."),
    ("SUPPORT_BAND_2", 80000, "USD/month", "Support band 2 ends here."),
    ("SUPPORT_BAND_3", 250000, "USD/month", "Support band 3 ends here."),
    ("SUPPORT_RATE_1", 0.10, "fraction", "Support rate in band 1."),
    ("SUPPORT_RATE_2", 0.07, "fraction", "Support rate in band 2."),
    ("SUPPORT_RATE_3", 0.05, "fraction", "Support rate in band 3."),
    ("SUPPORT_RATE_4", 0.03, "fraction", "Support rate above band 3."),
):
    _constant(_name, _value, _unit, _doc, _SUPPORT_SOURCE, _SUPPORT_CHECKED)
del _name, _value, _unit, _doc
_constant(
    "TUTORIAL_MFU", 0.4, "fraction",
    "MFU the tutorial's own method uses (its demo and worked example).",
    "tutorial §硬件算力评估 and demo (mfu=0.4)",
)
_constant(
    "TUTORIAL_KV_HEADROOM", 0.7, "fraction",
    "Share of the memory-limited batch the tutorial runs at (batch_opt = 0.7 × batch_peak).",
    "tutorial demo (batch_opt = int(batch_peak * 0.7))",
)
_constant(
    "UNLIMITED_BATCH", 1000000, "sequences",
    "Stands for 'no limit' where a scenario sets no latency target.",
    "definition", editable=False,
)
