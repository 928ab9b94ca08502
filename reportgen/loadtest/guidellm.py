"""GuideLLM reports: ``benchmarks.json`` / ``benchmarks.yaml`` (one report, a list of
benchmarks: one run per strategy of a sweep) and ``benchmarks.csv``.

JSON/YAML fields (vllm-project/guidellm ``src/guidellm/benchmark/schemas/generative/``
``benchmark.py``, ``metrics.py``, ``report.py``; older layouts back to 0.3): per benchmark
``metrics.<name>.successful`` distributions (``mean``, ``percentiles.p99``) of
``requests_per_second``, ``request_concurrency`` (GuideLLM's own measured mean), ``request_latency``
(**seconds**), ``prompt_token_count``, ``output_token_count``, ``output_tokens_per_second``,
``time_to_first_token_ms`` and ``inter_token_latency_ms`` ((last token − first token) ÷ (output
tokens − 1): our TPOT; GuideLLM's ``time_per_output_token_ms`` includes the first token and is
not used); request counts in ``metrics.request_totals`` (0.4+) or ``request_totals`` (0.3); the
strategy in ``config.strategy`` (0.4+) or ``args.strategy`` (0.3); the model in ``args.model``,
``config.spec.backend.model`` or ``worker.backend_model``; ``--label gpu=H100`` labels in
``config.metadata.labels`` are read as stack facts.

CSV (``src/guidellm/benchmark/outputs/csv.py``): three header rows (group, "<Status> <unit>",
statistic), one row per benchmark; ``Percentiles`` cells are "[min, p0.1, p1, p5, p10, p25, p75,
p90, p95, p99, max]".
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from reportgen.loadtest.files import Document
from reportgen.loadtest.run import Run
from reportgen.loadtest.values import dig, epoch_date, facts, first_text, num, text_date

TOOL = "GuideLLM"
_TPOT_SOURCE = "inter_token_latency_ms (excludes the first token)"


def detect(doc: Document) -> bool:
    if doc.kind == "csv":
        return _is_csv(doc.value)
    benchmarks = dig(doc.value, "benchmarks")
    return (doc.kind in ("json", "yaml") and isinstance(benchmarks, list) and bool(benchmarks)
            and isinstance(dig(benchmarks[0], "metrics", "time_to_first_token_ms"), Mapping))


def _strategy_text(strategy: Any) -> str:
    kind = str(dig(strategy, "type_") or "")
    if kind == "synchronous":
        return "1 concurrent (synchronous)"
    if kind == "concurrent":
        return f"{num(dig(strategy, 'streams')):g} concurrent"
    if kind in ("constant", "poisson"):
        shape = "Poisson" if kind == "poisson" else "constant rate"
        return f"{shape} {num(dig(strategy, 'rate')):g} req/s"
    if kind == "throughput":
        return "all at once (throughput)"
    return kind or "not stated"


def _stat(metrics: Any, name: str, stat: str) -> float:
    successful = dig(metrics, name, "successful")
    if stat == "p99":
        return num(dig(successful, "percentiles", "p99"))
    return num(dig(successful, stat))


def _model(report: Any, benchmark: Any) -> str:
    return first_text(
        dig(report, "args", "model"), dig(report, "config", "spec", "backend", "model"),
        dig(report, "config", "spec", "model"), dig(benchmark, "worker", "backend_model"),
        dig(benchmark, "config", "backend", "model"),
        dig(benchmark, "requests", "successful", 0, "request_args", "model"),
    )


def _run(source: str, report: Any, i: int, b: Any, version: str, labels: dict[str, str]) -> Run:
    m = dig(b, "metrics")
    totals = dig(m, "request_totals") or dig(b, "request_totals") or {}
    strategy = dig(b, "config", "strategy") or dig(b, "args", "strategy")
    start = dig(b, "start_time") or dig(b, "run_stats", "start_time")
    return Run(
        source=source, tool=TOOL, tool_version=version, label=f"benchmark {i}",
        model=_model(report, b), date=epoch_date(start), load=_strategy_text(strategy),
        completed=num(dig(totals, "successful")), failed=num(dig(totals, "errored")),
        duration_s=num(dig(b, "duration")),
        request_rate_rps=_stat(m, "requests_per_second", "mean"),
        output_tokens_per_s=_stat(m, "output_tokens_per_second", "mean"),
        mean_input_tokens=_stat(m, "prompt_token_count", "mean"),
        mean_output_tokens=_stat(m, "output_token_count", "mean"),
        concurrency=_stat(m, "request_concurrency", "mean"),
        concurrency_source="the tool's measured mean concurrency (request_concurrency)",
        ttft_mean_ms=_stat(m, "time_to_first_token_ms", "mean"),
        ttft_p99_ms=_stat(m, "time_to_first_token_ms", "p99"),
        tpot_mean_ms=_stat(m, "inter_token_latency_ms", "mean"),
        tpot_p99_ms=_stat(m, "inter_token_latency_ms", "p99"),
        e2e_mean_ms=1000 * _stat(m, "request_latency", "mean"),
        tpot_source=_TPOT_SOURCE, facts=labels,
    )


def _read_report(doc: Document) -> list[Run]:
    report = doc.value
    version = first_text(dig(report, "metadata", "guidellm_version"))
    labels = facts(dig(report, "config", "metadata", "labels"))
    return [_run(doc.source, report, i, b, version, labels)
            for i, b in enumerate(dig(report, "benchmarks"), start=1)]


# --- CSV -----------------------------------------------------------------------------------------

_HEADER_ROWS = 3


def _is_csv(rows: Sequence[Sequence[str]]) -> bool:
    if len(rows) < _HEADER_ROWS:
        return False
    groups = {cell.strip() for cell in rows[0]}
    return {"Time to First Token", "Request Counts"} <= groups


def _columns(rows: Sequence[Sequence[str]]) -> dict[tuple[str, str, str], int]:
    top = list(rows[0])
    middle = list(rows[1])
    bottom = list(rows[2])
    width = max(len(top), len(middle), len(bottom))
    cells = [r + [""] * (width - len(r)) for r in (top, middle, bottom)]
    return {(cells[0][j].strip(), cells[1][j].strip(), cells[2][j].strip()): j
            for j in range(width)}


def _p99(text: str) -> float:
    """The p99 of a Percentiles cell "[min, p0.1, p1, p5, p10, p25, p75, p90, p95, p99, max]"."""
    parts = text.strip().strip("[]").split(",")
    return num(parts[9]) if len(parts) == 11 else math.nan


def _csv_runs(doc: Document) -> list[Run]:
    rows = doc.value
    col = _columns(rows)

    def get(row: Sequence[str], key: tuple[str, str, str]) -> str:
        j = col.get(key)
        return row[j] if j is not None and j < len(row) else ""

    def dist(row: Sequence[str], group: str, unit: str, stat: str) -> float:
        value = get(row, (group, f"Successful {unit}", stat))
        return _p99(value) if stat == "Percentiles" else num(value)

    runs = []
    for i, row in enumerate(rows[_HEADER_ROWS:], start=1):
        if not any(cell.strip() for cell in row):
            continue
        try:
            arguments = json.loads(get(row, ("Runtime Info", "Arguments", "")) or "{}")
        except json.JSONDecodeError:
            arguments = {}
        runs.append(Run(
            source=doc.source, tool=TOOL, tool_version="", label=f"row {i + _HEADER_ROWS}",
            model=first_text(dig(arguments, "model")),
            date=text_date(get(row, ("Timings", "Start Time", ""))),
            load=get(row, ("Benchmark", "Strategy", "")) or "not stated",
            completed=num(get(row, ("Request Counts", "Successful", ""))),
            failed=num(get(row, ("Request Counts", "Errored", ""))),
            duration_s=num(get(row, ("Timings", "Duration", "Sec"))),
            request_rate_rps=dist(row, "Server Throughput", "Requests/Sec", "Mean"),
            output_tokens_per_s=dist(row, "Token Throughput", "Output Tokens/Sec", "Mean"),
            mean_input_tokens=dist(row, "Token Metrics", "Input Tokens", "Mean"),
            mean_output_tokens=dist(row, "Token Metrics", "Output Tokens", "Mean"),
            concurrency=dist(row, "Server Throughput", "Concurrency", "Mean"),
            concurrency_source="the tool's measured mean concurrency (Concurrency)",
            ttft_mean_ms=dist(row, "Time to First Token", "ms", "Mean"),
            ttft_p99_ms=dist(row, "Time to First Token", "ms", "Percentiles"),
            tpot_mean_ms=dist(row, "Inter Token Latency", "ms", "Mean"),
            tpot_p99_ms=dist(row, "Inter Token Latency", "ms", "Percentiles"),
            e2e_mean_ms=1000 * dist(row, "Request Latency", "Sec", "Mean"),
            tpot_source="Inter Token Latency (excludes the first token)",
        ))
    return runs


def read(doc: Document) -> list[Run]:
    return _csv_runs(doc) if doc.kind == "csv" else _read_report(doc)
