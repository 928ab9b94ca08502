"""``vllm bench serve --save-result`` JSON (one object; JSON Lines with ``--append-result``), and
the older ``benchmarks/benchmark_serving.py`` files of the same shape.

Fields (vllm-project/vllm ``vllm/benchmarks/serve.py``): ``completed``, ``failed`` (absent in
old files: ``num_prompts`` − ``completed``), ``duration`` (s), ``request_throughput`` (req/s),
``output_throughput`` (tok/s), ``total_input_tokens``/``total_output_tokens`` (successful
requests), ``mean_ttft_ms``/``p99_ttft_ms``, ``mean_tpot_ms``/``p99_tpot_ms`` (per request
(latency − TTFT) ÷ (output tokens − 1): our TPOT), ``mean_e2el_ms`` (only with
``--percentile-metrics …,e2el``), ``latencies`` (s per request, kept without
``--save-detailed`` since 2025), ``model_id``, ``date`` (``%Y%m%d-%H%M%S``), ``request_rate``
(float or "inf"), ``burstiness``, ``max_concurrency``, and ``--metadata KEY=VALUE`` pairs as
top-level keys (``--metadata gpu=H100 tp=4`` are read as stack facts).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from reportgen.loadtest.files import Document
from reportgen.loadtest.run import Run, littles_law
from reportgen.loadtest.values import facts, num, rate_text, text_date

TOOL = "vLLM bench serve"
LEGACY = "vLLM benchmark_serving.py"
_CORE = ("completed", "request_throughput", "output_throughput", "mean_ttft_ms")


def serving_shape(record: Any) -> bool:
    """The key set vLLM's and SGLang's serving benchmarks share."""
    return isinstance(record, Mapping) and all(k in record for k in _CORE)


def is_sglang(record: Mapping[str, Any]) -> bool:
    """SGLang's bench_serving writes these; vLLM never does."""
    return "mean_e2e_latency_ms" in record or "total_output_tokens_retokenized" in record


def detect(doc: Document) -> bool:
    records = doc.records
    return (doc.kind in ("json", "jsonl") and bool(records)
            and all(serving_shape(r) and not is_sglang(r) for r in records))


def _mean_latency_ms(r: Mapping[str, Any], mean_out: float) -> tuple[float, str]:
    """Mean end-to-end latency and where it came from."""
    if math.isfinite(num(r.get("mean_e2el_ms"))):
        return num(r["mean_e2el_ms"]), "mean_e2el_ms"
    listed = r.get("latencies")
    latencies = [num(x) for x in listed if num(x) > 0] if isinstance(listed, list) else []
    if latencies:
        return 1000 * sum(latencies) / len(latencies), "the mean of its latencies"
    derived = num(r.get("mean_ttft_ms")) + num(r.get("mean_tpot_ms")) * (mean_out - 1)
    return derived, "mean TTFT + mean TPOT × (mean output tokens − 1)"


def load_text(r: Mapping[str, Any]) -> str:
    """How the run drove the load, in words."""
    rate = rate_text(r.get("request_rate"))
    cap = num(r.get("max_concurrency"))
    if rate == "unlimited" and math.isfinite(cap):
        return f"{cap:g} concurrent"
    shape = "Poisson" if num(r.get("burstiness")) in (1.0,) else "bursty"
    text = f"{shape} {rate}" if rate not in ("", "unlimited") else "all at once"
    return text + (f", at most {cap:g} concurrent" if math.isfinite(cap) else "")


def read_record(source: str, label: str, r: Mapping[str, Any], tool: str) -> Run:
    """One run from one result object."""
    completed = num(r.get("completed"))
    failed = num(r.get("failed"))
    if not math.isfinite(failed):
        failed = max(num(r.get("num_prompts")) - completed, 0.0)
    mean_in = num(r.get("total_input_tokens")) / completed if completed > 0 else math.nan
    mean_out = num(r.get("total_output_tokens")) / completed if completed > 0 else math.nan
    rate = num(r.get("request_throughput"))
    e2e, e2e_from = _mean_latency_ms(r, mean_out)
    return Run(
        source=source, tool=tool, tool_version="", label=label,
        model=str(r.get("model_id") or ""), date=text_date(r.get("date")), load=load_text(r),
        completed=completed, failed=failed, duration_s=num(r.get("duration")),
        request_rate_rps=rate, output_tokens_per_s=num(r.get("output_throughput")),
        mean_input_tokens=mean_in, mean_output_tokens=mean_out,
        concurrency=littles_law(rate, e2e),
        concurrency_source=f"Little's law: request_throughput × {e2e_from}",
        ttft_mean_ms=num(r.get("mean_ttft_ms")), ttft_p99_ms=num(r.get("p99_ttft_ms")),
        tpot_mean_ms=num(r.get("mean_tpot_ms")), tpot_p99_ms=num(r.get("p99_tpot_ms")),
        e2e_mean_ms=e2e, tpot_source="mean_tpot_ms (excludes the first token)",
        facts=facts(r),
    )


def read(doc: Document) -> list[Run]:
    records = doc.records
    runs = []
    for i, r in enumerate(records, start=1):
        tool = LEGACY if "request_goodput:" in r or "endpoint_type" not in r else TOOL
        label = f"line {i}" if doc.kind == "jsonl" else "the run"
        runs.append(read_record(doc.source, label, r, tool))
    return runs
