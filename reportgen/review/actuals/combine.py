"""Read every actuals file, check them against each other and the plan, and combine them per
workload over the review window.

Rules (each broken rule is a problem, all listed at once, nothing written):

* each file is recognised by its content: a Prometheus query_range response (JSON), an AWS Cost
  and Usage Report (CSV with ``lineItem/`` columns) or the actuals template (CSV or XLSX);
* every workload in the actuals is a counted workload of the plan (else it is named with the
  plan's closest workload), and every counted plan workload has actuals;
* each measure of a workload comes from one file (two files giving a workload's requests is a
  conflict, not a sum);
* every file covers the whole review window (the span from the earliest to the latest day any
  file covers) for each of its workloads: a shorter file is a missing period;
* requests, prompt and output tokens, GPU-hours and cost are present for every workload;
* values about 1000× off the plan (tokens in thousands, latencies in seconds, cost in thousands
  of dollars) are refused with the likely slip named.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.errors import ActualsError, InputError
from reportgen.readers import read_table
from reportgen.review.actuals import billing, prometheus, template
from reportgen.review.actuals.measures import ADDITIVE, MEASURES, REQUIRED, STACK, STATS
from reportgen.review.actuals.source import SourceData, Span
from reportgen.review.workloads import PlanWorkload, workload_key

SLIP_BAND = (300.0, 3000.0)  # a ratio to the plan inside this band is taken for one


@dataclass(frozen=True)
class WorkloadActuals:
    """One workload's actuals over the review window."""

    name: str
    values: dict[str, float]  # every measure (NaN when no file gives it)
    sources: dict[str, str]  # measure → the file it came from
    stack: dict[str, str]  # model, gpu, tp, engine as run ("" when no file says)
    periods: pd.DataFrame  # the request file's periods: start, end, requests, hours
    series: pd.DataFrame | None  # autoscaling time series (Prometheus), or None
    latest_price: float = float("nan")  # USD per GPU-hour in the last period billed

    def per_request(self, measure: str) -> float:
        """A token measure per request."""
        requests = self.values["requests"]
        return self.values[measure] / requests if requests > 0 else float("nan")


@dataclass(frozen=True)
class SourceSummary:
    """What one file was and what reading it noticed."""

    name: str
    kind: str
    workloads: tuple[str, ...]
    span: Span
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Actuals:
    """Every file's actuals, combined per workload over the window."""

    window: Span
    workloads: dict[str, WorkloadActuals]
    sources: tuple[SourceSummary, ...]
    periods: pd.DataFrame  # every file's rows, for the workbook

    @property
    def hours(self) -> float:
        """Calendar hours in the window."""
        return (self.window[1] - self.window[0]).days * 24.0


def read_source(path: Path) -> SourceData:
    """Read one actuals file of any supported format."""
    suffix = "".join(path.suffixes[-2:]).lower()
    if suffix.endswith((".json", ".json.gz")):
        return prometheus.read_prometheus(path)
    if path.suffix.lower() in (".csv", ".txt"):
        try:
            with path.open(encoding="utf-8-sig") as handle:
                first = handle.readline()
        except (OSError, UnicodeDecodeError) as err:
            raise ActualsError([f"{path}: cannot be read ({err})."]) from None
        header = [h.strip().strip('"') for h in first.split(",")]
        if billing.is_cur(header):
            return billing.read_cur(path)
    if path.suffix.lower() in (".csv", ".txt", ".xlsx", ".xlsm"):
        try:
            table = read_table(path)
        except InputError as err:
            raise ActualsError([str(err)]) from None
        if template.is_template(table.header):
            return template.read_template(path, table)
        raise ActualsError([f"{path}: not an actuals file reportgen knows; expected the actuals "
                            "template (columns workload, period_start, period_end, … — see "
                            "`reportgen columns --actuals`) or an AWS Cost and Usage Report "
                            "CSV."])
    raise ActualsError([f"{path}: unknown actuals file type {path.suffix or '(none)'}; expected "
                        ".csv or .xlsx (template, AWS CUR) or .json (Prometheus query_range)."])


def read_actuals(paths: Sequence[Path], plan: Mapping[str, PlanWorkload],
                 uncounted: Mapping[str, str]) -> Actuals:
    """Read, check and combine the actuals files; ActualsError lists every problem."""
    problems: list[str] = []
    sources: list[SourceData] = []
    for path in paths:
        if not path.exists():
            problems.append(f"{path}: no such file.")
            continue
        try:
            sources.append(read_source(path))
        except ActualsError as err:
            problems.extend(err.problems)
    if problems:
        raise ActualsError(problems)
    sources = [_as_plan_names(src, plan) for src in sources]
    _check_workloads(sources, plan, uncounted, problems)
    window = (min(s[0] for src in sources for s in src.coverage.values()),
              max(s[1] for src in sources for s in src.coverage.values()))
    workloads = {}
    for name in plan:
        if any(name in src.coverage for src in sources):
            workloads[name] = _combine(name, sources, window, problems)
    if not problems:
        for name, actual in workloads.items():
            _check_units(actual, plan[name], (window[1] - window[0]).days * 24.0, problems)
    if problems:
        raise ActualsError(problems)
    summaries = tuple(SourceSummary(s.name, s.kind, tuple(s.coverage), (
        min(c[0] for c in s.coverage.values()), max(c[1] for c in s.coverage.values())),
        s.notes) for s in sources)
    periods = pd.concat([s.periods for s in sources], ignore_index=True)
    return Actuals(window, workloads, summaries, periods)


def _as_plan_names(src: SourceData, plan: Mapping[str, PlanWorkload]) -> SourceData:
    """The file's workloads under the plan's spelling (matched ignoring case and spaces)."""
    keys = {workload_key(name): name for name in plan}
    names = {n: keys.get(workload_key(n), n) for n in src.coverage}
    if all(a == b for a, b in names.items()):
        return src
    periods = src.periods.copy()
    periods["workload"] = periods["workload"].map(lambda n: names.get(n, n))
    return replace(src, periods=periods,
                   coverage={names[n]: span for n, span in src.coverage.items()},
                   series={names.get(n, n): s for n, s in src.series.items()})


def _check_workloads(sources: list[SourceData], plan: Mapping[str, PlanWorkload],
                     uncounted: Mapping[str, str], problems: list[str]) -> None:
    seen = set()
    for src in sources:
        for name in src.coverage:
            seen.add(name)
            if name in plan:
                continue
            if name in uncounted:
                problems.append(f"{src.name}: workload {name!r} is in the plan file but not in "
                                f"its totals ({uncounted[name]}); actuals compare with counted "
                                "workloads only.")
                continue
            close = difflib.get_close_matches(name, list(plan), n=1, cutoff=0.0)
            hint = f"; the closest plan workload is {close[0]!r}" if close else ""
            problems.append(f"{src.name}: workload {name!r} is not in the plan{hint}. Plan "
                            f"workloads: {', '.join(plan)}.")
    for name in plan:
        if name not in seen:
            problems.append(f"plan workload {name!r} has no actuals in any file; give its rows "
                            "(with requests 0 if it was retired).")


def _days(a: dt.date, b: dt.date) -> str:
    return f"{a}–{b - dt.timedelta(days=1)}"


def _combine(name: str, sources: list[SourceData], window: Span,
             problems: list[str]) -> WorkloadActuals:
    values: dict[str, float] = {}
    origin: dict[str, str] = {}
    frames: dict[str, pd.DataFrame] = {}
    for src in sources:
        if name not in src.coverage:
            continue
        rows = src.periods[src.periods["workload"] == name]
        frames[src.name] = rows
        span = src.coverage[name]
        if span != window:
            gaps = [_days(a, b) for a, b in ((window[0], span[0]), (span[1], window[1])) if a < b]
            problems.append(f"{src.name}: workload {name!r} has no data for {' and '.join(gaps)} "
                            f"(the review window is {_days(*window)}); a missing period.")
        for measure in (*MEASURES, *STACK):
            column = rows[measure]
            given = column.notna() & (column != "") if measure in STACK else column.notna()
            if not given.any():
                continue
            if measure in origin:
                problems.append(f"workload {name!r}: {measure} is given by both {origin[measure]} "
                                f"and {src.name}; give each measure in one file.")
                continue
            origin[measure] = src.name
    for measure in ADDITIVE:
        if measure in origin:
            values[measure] = float(frames[origin[measure]][measure].sum())
        elif measure in REQUIRED:
            problems.append(f"workload {name!r}: no file gives {measure}"
                            + (" (from the billing export or the template's gpu_hours/gpus)"
                               if measure in ("gpu_hours", "billed_cost") else "") + ".")
    for measure, rule in STATS.items():
        values[measure] = (_stat(frames[origin[measure]], measure, rule)
                           if measure in origin else float("nan"))
    stack: dict[str, str] = {}
    for measure in STACK:
        written = [str(v) for v in frames[origin[measure]][measure] if v] if measure in origin \
            else []
        stack[measure] = written[-1] if written else ""
    requests_from = origin.get("requests")
    periods = (frames[requests_from][["start", "end", "requests"]].reset_index(drop=True)
               if requests_from else pd.DataFrame(columns=["start", "end", "requests"]))
    series = next((src.series[name] for src in sources
                   if src.name == origin.get("kv_cache_usage_mean") and name in src.series), None)
    return WorkloadActuals(name, {m: values.get(m, float("nan")) for m in MEASURES}, origin,
                           stack, periods, series, _latest_price(frames, origin))


def _latest_price(frames: dict[str, pd.DataFrame], origin: dict[str, str]) -> float:
    """Billed cost ÷ GPU-hours of the last period, when one file gives both."""
    source = origin.get("billed_cost")
    if source is None or origin.get("gpu_hours") != source:
        return float("nan")
    rows = frames[source].sort_values("start")
    rows = rows[rows["gpu_hours"] > 0]
    if rows.empty:
        return float("nan")
    last = rows.iloc[-1]
    return float(last["billed_cost"]) / float(last["gpu_hours"])


def _stat(rows: pd.DataFrame, measure: str, rule: str) -> float:
    data = rows[measure].to_numpy(dtype=float)
    keep = ~np.isnan(data)
    if not keep.any():
        return float("nan")
    if rule == "max":
        return float(data[keep].max())
    if rule == "hours" or rule not in rows.columns or np.isnan(rows[rule].to_numpy(float)).all():
        weight = np.array([(e - s).days for s, e in zip(rows["start"], rows["end"], strict=True)],
                          dtype=float)
    else:
        weight = np.nan_to_num(rows[rule].to_numpy(dtype=float))
    weight = weight[keep]
    if weight.sum() <= 0:
        return float(data[keep].mean())
    return float((data[keep] * weight).sum() / weight.sum())


def _slip(actual: float, planned: float) -> str:
    if not (actual > 0 and planned > 0):
        return ""
    ratio = planned / actual
    if SLIP_BAND[0] < ratio < SLIP_BAND[1]:
        return "small"
    if SLIP_BAND[0] < 1 / ratio < SLIP_BAND[1]:
        return "large"
    return ""


def _check_units(actual: WorkloadActuals, plan: PlanWorkload, hours: float,
                 problems: list[str]) -> None:
    def say(measure: str, got: float, planned: str, what: str) -> None:
        problems.append(f"workload {actual.name!r} ({actual.sources.get(measure, '?')}): "
                        f"{measure} gives {got:,.4g} against the plan's {planned}; {what}")

    for measure, per_plan in (("prompt_tokens", plan.prompt_tokens),
                              ("output_tokens", plan.output_tokens)):
        got = actual.per_request(measure)
        if actual.values["requests"] > 0 and got < 1:
            say(measure, got, f"{per_plan:,.0f} tokens per request",
                "less than one token per request: are the tokens counted in thousands? The "
                "column is in tokens.")
        elif _slip(got, per_plan) == "small":
            say(measure, got, f"{per_plan:,.0f} tokens per request",
                "1000× fewer tokens per request: are they in thousands? The column is in tokens.")
    for measure in ("ttft_mean_ms", "ttft_p50_ms", "tpot_mean_ms", "tpot_p50_ms"):
        predicted = plan.ttft_ms if measure.startswith("ttft") else plan.tpot_ms
        got = actual.values[measure]
        if _slip(got, predicted) == "small":
            say(measure, got, f"{predicted:,.1f} ms predicted",
                "1000× faster than the plan: seconds in a milliseconds column? Multiply by 1000.")
    rate = actual.values["requests"] / (hours * 3600)
    if _slip(rate, plan.avg_qps) == "small":
        say("requests", actual.values["requests"], f"{plan.requests(hours):,.0f} requests",
            "1000× fewer: are the requests counted in thousands?")
    cost = actual.values["billed_cost"]
    if _slip(cost, plan.cost(hours)) == "small":
        say("billed_cost", cost, f"${plan.cost(hours):,.0f}",
            "1000× less: is the cost in thousands of dollars? The column is in USD.")

