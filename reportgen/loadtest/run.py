"""One load-test run, whatever tool measured it: the typed record every reader produces, in one
unit per kind (ms, seconds, requests/s, tokens/s, tokens, requests in flight).

Tools disagree on what their names mean (see docs/calibration.md, "What each tool's numbers
mean"); a reader maps its tool's fields onto these definitions:

* ``ttft_*_ms``: request start to the first generated token;
* ``tpot_*_ms``: time per output token *after the first* (vLLM's TPOT: (latency − TTFT) ÷
  (output tokens − 1) per request), the decode pace a user sees;
* ``concurrency``: the mean number of requests in flight during the run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields

import pandas as pd

from reportgen.loadtest.files import ResultFileError

UNITS: dict[str, str] = {
    "completed": "requests", "failed": "requests", "duration_s": "s",
    "request_rate_rps": "req/s", "output_tokens_per_s": "tokens/s",
    "mean_input_tokens": "tokens", "mean_output_tokens": "tokens",
    "concurrency": "requests in flight", "ttft_mean_ms": "ms", "ttft_p99_ms": "ms",
    "tpot_mean_ms": "ms", "tpot_p99_ms": "ms", "e2e_mean_ms": "ms",
}  # fmt: skip
MAX_FAILED_SHARE = 0.1  # failed requests make throughput look low and latency high
_PERCENTILES = {
    "vLLM bench serve": "Rerun with --metric-percentiles including 99 (its default is 99).",
    "vLLM benchmark_serving.py": "Rerun with --metric-percentiles including 99.",
}


@dataclass(frozen=True)
class Run:
    """One measured operating point of a serving stack."""

    source: str  # the result file, as given
    tool: str  # the tool that wrote it, e.g. "vLLM bench serve"
    tool_version: str  # "" when the file does not say
    label: str  # which run of the file, e.g. "line 3" or "benchmark 2"
    model: str  # the model as the file names it ("" when it does not)
    date: str  # ISO date of the run ("" when the file does not say)
    load: str  # how the load was driven, e.g. "16 concurrent", "Poisson 4 req/s"
    completed: float  # successful requests (NaN when the tool does not count them)
    failed: float  # NaN when the tool does not count failures
    duration_s: float
    request_rate_rps: float  # completed requests per second
    output_tokens_per_s: float
    mean_input_tokens: float
    mean_output_tokens: float
    concurrency: float  # mean requests in flight
    concurrency_source: str  # the tool's own measurement, or Little's law from rate × latency
    ttft_mean_ms: float
    ttft_p99_ms: float
    tpot_mean_ms: float
    tpot_p99_ms: float  # NaN when the tool reports no percentile of this definition
    e2e_mean_ms: float
    tpot_source: str  # the tool's field and how it was turned into TPOT
    facts: Mapping[str, str] = field(default_factory=dict)  # stack facts the file carries


def littles_law(rate_rps: float, e2e_ms: float) -> float:
    """Mean requests in flight: completed requests per second × mean latency."""
    return rate_rps * e2e_ms / 1000


def check(run: Run) -> list[str]:
    """What makes a run unusable for calibration, as messages (empty when it is usable)."""
    where = f"{run.source} ({run.label})"
    counted = math.isfinite(run.completed)
    if (counted and run.completed <= 0) or not run.request_rate_rps > 0:
        failed = f" ({run.failed:,.0f} failed)" if math.isfinite(run.failed) else ""
        return [f"{where}: zero successful requests{failed}; expected a run with completed "
                "requests. Check the server log and the tool's error list, fix the cause and "
                "rerun."]
    problems = []
    share = run.failed / (run.completed + run.failed) if math.isfinite(run.failed) else 0.0
    if share > MAX_FAILED_SHARE:
        problems.append(
            f"{where}: {run.failed:,.0f} of {run.completed + run.failed:,.0f} requests failed "
            f"({share:.0%}); expected at most {MAX_FAILED_SHARE:.0%} (failures make throughput "
            "look low and latency high). Fix the cause (timeouts, out-of-memory, rate limits) "
            "and rerun, or leave this file out.")
    numbers = {
        "mean prompt tokens": run.mean_input_tokens, "mean output tokens": run.mean_output_tokens,
        "request rate": run.request_rate_rps, "mean TTFT": run.ttft_mean_ms,
        "mean TPOT": run.tpot_mean_ms, "requests in flight": run.concurrency,
    }  # fmt: skip
    bad = [name for name, v in numbers.items() if not (math.isfinite(v) and v > 0)]
    if bad:
        problems.append(f"{where}: {', '.join(bad)} missing, zero or not a number; expected "
                        "positive measurements. Was the run streamed (TTFT and TPOT need "
                        "streaming) and did it complete?")
    elif run.mean_output_tokens < 2:
        problems.append(f"{where}: {run.mean_output_tokens:g} output tokens per request; "
                        "expected at least 2 (TPOT is the time between output tokens). Rerun "
                        "with longer outputs.")
    if not math.isfinite(run.ttft_p99_ms):
        how = _PERCENTILES.get(run.tool, "Rerun with the 99th percentile reported.")
        problems.append(f"{where}: no 99th percentile of TTFT; expected the p99 the tool "
                        f"writes by default. {how}")
    return problems


def checked(runs: Sequence[Run]) -> list[Run]:
    """``runs`` if every one is usable; ResultFileError listing every problem otherwise."""
    problems = [p for run in runs for p in check(run)]
    if problems:
        raise ResultFileError(problems)
    return list(runs)


RUN_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(Run) if f.name != "facts")


def runs_frame(runs: Sequence[Run]) -> pd.DataFrame:
    """The runs as a frame, one row each (columns: RUN_COLUMNS; units: UNITS)."""
    records = [{k: v for k, v in asdict(r).items() if k != "facts"} for r in runs]
    return pd.DataFrame(records, columns=list(RUN_COLUMNS))
