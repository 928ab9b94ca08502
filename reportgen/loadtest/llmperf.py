"""llmperf (ray-project/llmperf ``token_benchmark_ray.py``): the
``<model>_<in>_<out>_summary.json`` file, flattened with ``_``.

Fields (``metrics_summary`` and ``LLMPerfResults``): ``model``, ``num_concurrent_requests``,
``timestamp`` (s since the epoch), ``results_ttft_s_mean`` / ``_quantiles_p99`` (s),
``results_end_to_end_latency_s_mean`` (s), ``results_number_input_tokens_mean``,
``results_number_output_tokens_mean``, ``results_num_completed_requests``,
``results_number_errors``, ``results_num_completed_requests_per_min``,
``results_mean_output_throughput_token_per_s``, and ``results_inter_token_latency_s_*``, which
*includes* the first token (end-to-end latency ÷ output tokens per request): our TPOT is
therefore derived as (mean latency − mean TTFT) ÷ (mean output tokens − 1), exact when every
request has the same output length, and llmperf gives no percentile of it.
"""

from __future__ import annotations

import math

from reportgen.loadtest.files import Document
from reportgen.loadtest.run import Run, littles_law
from reportgen.loadtest.values import epoch_date, num

TOOL = "llmperf"


def detect(doc: Document) -> bool:
    value = doc.value
    return (doc.kind == "json" and isinstance(value, dict)
            and "results_num_completed_requests" in value and "results_ttft_s_mean" in value)


def read(doc: Document) -> list[Run]:
    r = doc.value
    rate = num(r.get("results_num_completed_requests_per_min")) / 60
    e2e = 1000 * num(r.get("results_end_to_end_latency_s_mean"))
    ttft = 1000 * num(r.get("results_ttft_s_mean"))
    out = num(r.get("results_number_output_tokens_mean"))
    concurrent = num(r.get("num_concurrent_requests"))
    return [Run(
        source=doc.source, tool=TOOL,
        tool_version=f"results format {r['version']}" if r.get("version") else "",
        label="the run", model=str(r.get("model") or ""), date=epoch_date(r.get("timestamp")),
        load=f"{concurrent:g} concurrent" if math.isfinite(concurrent) else "not stated",
        completed=num(r.get("results_num_completed_requests")),
        failed=num(r.get("results_number_errors")),
        duration_s=num(r.get("results_num_completed_requests")) / rate if rate > 0 else math.nan,
        request_rate_rps=rate,
        output_tokens_per_s=num(r.get("results_mean_output_throughput_token_per_s")),
        mean_input_tokens=num(r.get("results_number_input_tokens_mean")),
        mean_output_tokens=out, concurrency=littles_law(rate, e2e),
        concurrency_source="Little's law: completed requests per minute ÷ 60 × mean latency",
        ttft_mean_ms=ttft, ttft_p99_ms=1000 * num(r.get("results_ttft_s_quantiles_p99")),
        tpot_mean_ms=(e2e - ttft) / (out - 1) if out > 1 else math.nan,
        tpot_p99_ms=math.nan, e2e_mean_ms=e2e,
        tpot_source="(mean latency − mean TTFT) ÷ (mean output tokens − 1): llmperf's "
        "inter_token_latency_s includes the first token",
    )]
