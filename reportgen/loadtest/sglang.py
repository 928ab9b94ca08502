"""SGLang ``python -m sglang.bench_serving --output-file F`` JSON Lines (one object appended per
run).

Fields (sgl-project/sglang ``python/sglang/bench_serving.py``): the vLLM lineage's
``completed``, ``duration``, ``request_throughput``, ``output_throughput``, token totals,
``mean/p99_ttft_ms``, ``mean/p99_tpot_ms`` (per request (latency − TTFT) ÷ (output tokens − 1):
our TPOT), plus ``mean_e2e_latency_ms`` and ``concurrency`` (its own Little's law: the sum of
request latencies ÷ duration). The file names no model and no date, and counts no failures
(an all-failed run writes NaN statistics and ``completed`` 0).
"""

from __future__ import annotations

import math

from reportgen.loadtest.files import Document
from reportgen.loadtest.run import Run
from reportgen.loadtest.values import num
from reportgen.loadtest.vllm import is_sglang, load_text, serving_shape

TOOL = "SGLang bench_serving"


def detect(doc: Document) -> bool:
    records = doc.records
    return (doc.kind in ("json", "jsonl") and bool(records)
            and all(serving_shape(r) and is_sglang(r) for r in records))


def read(doc: Document) -> list[Run]:
    runs = []
    for i, r in enumerate(doc.records, start=1):
        completed = num(r.get("completed"))
        ok = completed > 0
        runs.append(Run(
            source=doc.source, tool=TOOL, tool_version="",
            label=f"line {i}" if doc.kind == "jsonl" else "the run",
            model=str(r.get("model_id") or r.get("model") or ""), date="", load=load_text(r),
            completed=completed, failed=math.nan, duration_s=num(r.get("duration")),
            request_rate_rps=num(r.get("request_throughput")),
            output_tokens_per_s=num(r.get("output_throughput")),
            mean_input_tokens=num(r.get("total_input_tokens")) / completed if ok else math.nan,
            mean_output_tokens=num(r.get("total_output_tokens")) / completed if ok else math.nan,
            concurrency=num(r.get("concurrency")),
            concurrency_source="the tool's concurrency (sum of request latencies ÷ duration)",
            ttft_mean_ms=num(r.get("mean_ttft_ms")), ttft_p99_ms=num(r.get("p99_ttft_ms")),
            tpot_mean_ms=num(r.get("mean_tpot_ms")), tpot_p99_ms=num(r.get("p99_tpot_ms")),
            e2e_mean_ms=num(r.get("mean_e2e_latency_ms")),
            tpot_source="mean_tpot_ms (excludes the first token)",
        ))
    return runs
