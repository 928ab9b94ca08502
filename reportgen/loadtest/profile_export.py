"""What NVIDIA's genai-perf and its successor AIPerf share: a summary of named metrics, each
with a unit and statistics (``avg``, ``p99``, …), in JSON (``{"time_to_first_token": {"unit":
"ms", "avg": …}}``) or CSV (``Metric,avg,…`` rows named "Time To First Token (ms)", then a
``Metric,Value`` block).

Both tools' ``inter_token_latency`` is (request latency − TTFT) ÷ (output tokens − tokens of the
first response), our TPOT; ``request_latency`` is end to end, in ms.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from reportgen.loadtest.run import Run, littles_law
from reportgen.loadtest.values import num

_TO_MS = {"ms": 1.0, "s": 1000.0, "sec": 1000.0, "us": 1e-3, "µs": 1e-3, "ns": 1e-6}
_NAME = re.compile(r"^(?P<name>.*?)\s*(\((?P<unit>[^)]*)\))?\s*$")

Summary = Mapping[str, Mapping[str, Any]]  # metric → {"unit": …, "avg": …, "p99": …}


def from_json(document: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The metric objects of a JSON summary (any top-level object with a ``unit``)."""
    return {str(k): dict(v) for k, v in document.items()
            if isinstance(v, Mapping) and "unit" in v}


def _key(label: str) -> tuple[str, str]:
    match = _NAME.match(label.strip())
    name = match.group("name") if match else label
    unit = (match.group("unit") or "") if match else ""
    return "_".join(name.lower().split()), unit.strip()


def from_csv(rows: Sequence[Sequence[str]]) -> dict[str, dict[str, Any]]:
    """The metrics of a CSV summary: each block's header names the statistics."""
    metrics: dict[str, dict[str, Any]] = {}
    header: list[str] = []
    for row in rows:
        cells = [c.strip() for c in row]
        if not any(cells):
            header = []
            continue
        if cells[0] == "Metric":
            header = [c.lower() for c in cells]
            continue
        if not header or "gpu" in header[:3] or "gpu_index" in header:
            continue  # GPU telemetry blocks
        name, unit = _key(cells[0])
        stats = {("avg" if h == "value" else h): c for h, c in zip(header[1:], cells[1:],
                                                                  strict=False)}
        metrics.setdefault(name, {"unit": unit, **stats})
    return metrics


def value(summary: Summary, name: str, stat: str = "avg", *, time: bool = False) -> float:
    """A statistic of a metric; times are converted to ms from the metric's unit."""
    metric = summary.get(name)
    if not isinstance(metric, Mapping):
        return math.nan
    number = num(metric.get(stat))
    if not time:
        return number
    unit = str(metric.get("unit") or "ms").strip().lower()
    return number * _TO_MS.get(unit, math.nan)


def run(summary: Summary, *, source: str, tool: str, version: str, label: str, model: str,
        date: str, load: str, failed: float) -> Run:
    """The run a summary describes."""
    rate = value(summary, "request_throughput")
    e2e = value(summary, "request_latency", time=True)
    return Run(
        source=source, tool=tool, tool_version=version, label=label, model=model, date=date,
        load=load, completed=value(summary, "request_count"), failed=failed,
        duration_s=value(summary, "benchmark_duration", time=True) / 1000,
        request_rate_rps=rate, output_tokens_per_s=value(summary, "output_token_throughput"),
        mean_input_tokens=value(summary, "input_sequence_length"),
        mean_output_tokens=value(summary, "output_sequence_length"),
        concurrency=littles_law(rate, e2e),
        concurrency_source="Little's law: request_throughput × mean request_latency",
        ttft_mean_ms=value(summary, "time_to_first_token", time=True),
        ttft_p99_ms=value(summary, "time_to_first_token", "p99", time=True),
        tpot_mean_ms=value(summary, "inter_token_latency", time=True),
        tpot_p99_ms=value(summary, "inter_token_latency", "p99", time=True),
        e2e_mean_ms=e2e, tpot_source="inter_token_latency (excludes the first token)",
    )


def load_text(concurrency: Any, rate: Any) -> str:
    """The configured load, in words."""
    if math.isfinite(num(concurrency)) and num(concurrency) > 0:
        return f"{num(concurrency):g} concurrent"
    if math.isfinite(num(rate)):
        return f"{num(rate):g} req/s"
    return "not stated"
