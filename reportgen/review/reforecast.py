"""Next quarter's plan, from the actuals, re-estimated by the engine.

Each workload's plan rows are carried forward with what the quarter measured:

* prompt and output tokens per request as measured (the KV reservation is raised to them when
  the plan reserved less);
* traffic grown at the observed rate: an exponential fitted to the request rate of each period
  (least squares on its logarithm, weighted by the period's length) gives the average rate over
  the next window (the next calendar quarter after a quarter, else the same length again); one
  period means no growth is known and none is assumed;
* the peak at the measured peak-to-average ratio (the peak is the p99 of 1-minute rates), else
  the plan's ratio;
* MFU and MBU times the calibration factor that made the engine's TPOT at the observed batch
  equal the measured one (see speed.py), capped at 1;
* the GPU, TP, engine and model that ran, when the actuals name them, and the price per
  GPU-hour paid in the last period billed (billed cost ÷ GPU-hours; the window's average when
  the cost and the GPU-hours come from different files).

The rows are validated and estimated exactly as `reportgen build` does, and written as a
scenario file (``<plan>-reforecast.csv``) that builds next quarter's budget.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen import schema
from reportgen.catalog import Catalogs
from reportgen.plan import Plan
from reportgen.readers import RawTable
from reportgen.review.actuals.combine import Actuals, WorkloadActuals
from reportgen.review.speed import EFFICIENCY_COLUMNS, Speed, base_rows
from reportgen.review.workloads import HOURS_PER_MONTH, PlanWorkload, estimate_concrete
from reportgen.validate import validate


@dataclass(frozen=True)
class Growth:
    """Observed traffic growth and the projection it gives."""

    monthly: float  # growth per 730 hours, e.g. 0.05 = +5 % a month; 0 when unknown
    observed_qps: float  # average over the review window
    next_qps: float  # average over the next window
    known: bool


@dataclass(frozen=True)
class ReforecastWorkload:
    """One workload's next-quarter figures."""

    name: str
    growth: Growth
    peak_qps: float
    peak_basis: str
    prompt_tokens: float
    output_tokens: float
    calibration: float  # multiplier on MFU and MBU (1 = the plan's)
    price_per_gpu_hour: float
    gpus: float
    monthly_cost: float
    window_cost: float  # over the next window
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Reforecast:
    """The next window's plan."""

    window: tuple[dt.date, dt.date]
    label: str
    rows: tuple[dict[str, object], ...]  # scenario rows (inputs), as `reportgen build` reads
    results: pd.DataFrame
    owners: tuple[str, ...]  # the workload of each row
    workloads: dict[str, ReforecastWorkload]

    def first_row(self, workload: str) -> pd.Series | None:
        """The workload's first re-forecast result row (None when it was not carried)."""
        if workload not in self.owners:
            return None
        return self.results.iloc[self.owners.index(workload)]


def _months_later(day: dt.date, months: int) -> dt.date:
    month = day.month - 1 + months
    return day.replace(year=day.year + month // 12, month=month % 12 + 1)


def next_window(window: tuple[dt.date, dt.date]) -> tuple[dt.date, dt.date]:
    """The calendar quarter after a calendar quarter; else the same length again."""
    start, end = window
    if start.day == 1 and start.month in (1, 4, 7, 10) and end == _months_later(start, 3):
        return end, _months_later(end, 3)
    return end, end + (end - start)


def window_label(window: tuple[dt.date, dt.date]) -> str:
    """"2026-Q2" for a calendar quarter, else the dates."""
    start, end = window
    quarter_starts = {1: 1, 4: 2, 7: 3, 10: 4}
    if start.day == 1 and start.month in quarter_starts and end == _months_later(start, 3):
        return f"{start.year}-Q{quarter_starts[start.month]}"
    return f"{start} – {end - dt.timedelta(days=1)}"


def growth(actual: WorkloadActuals, window: tuple[dt.date, dt.date]) -> Growth:
    """Fit the request rate of each period and project it over the next window."""
    hours_total = (window[1] - window[0]).days * 24.0
    ahead = next_window(window)
    observed = actual.values["requests"] / (hours_total * 3600) if hours_total > 0 else 0.0
    periods = actual.periods
    hours = np.array([(e - s).days * 24.0 for s, e in zip(periods["start"], periods["end"],
                                                          strict=True)])
    requests = periods["requests"].to_numpy(dtype=float)
    keep = (hours > 0) & (requests > 0)
    if keep.sum() < 2:
        return Growth(0.0, observed, observed, False)
    mid = np.array([((s - window[0]).days * 24.0) for s in periods["start"]]) + hours / 2
    rate = requests / (hours * 3600)
    b, a = np.polyfit(mid[keep], np.log(rate[keep]), 1, w=np.sqrt(hours[keep]))
    start, length = hours_total, (ahead[1] - ahead[0]).days * 24.0
    if abs(b) * length < 1e-9:
        projected = math.exp(a + b * (start + length / 2))
    else:
        projected = math.exp(a) * (math.exp(b * (start + length)) - math.exp(b * start)) / (
            b * length)
    return Growth(math.exp(b * HOURS_PER_MONTH) - 1, observed, projected, True)


def _peak(plan: PlanWorkload, actual: WorkloadActuals, g: Growth) -> tuple[float, str]:
    peak = actual.values["peak_qps"]
    if not math.isnan(peak) and g.observed_qps > 0:
        ratio = peak / g.observed_qps
        return ratio, f"measured peak-to-average {ratio:.2f}×"
    ratio = plan.peak_qps / plan.avg_qps
    return ratio, f"the plan's peak-to-average {ratio:.2f}× (no peak was measured)"


def _carry(row: dict[str, object], plan_row: pd.Series, plan: PlanWorkload,
           actual: WorkloadActuals, speed: Speed, g: Growth, peak_ratio: float
           ) -> dict[str, object]:
    new = dict(row)
    scale = g.next_qps / plan.avg_qps if plan.avg_qps > 0 else 0.0
    avg = float(plan_row["avg_qps"]) * scale
    new["avg_qps"] = avg
    new["peak_qps"] = max(avg * peak_ratio, avg)
    prompt, output = actual.per_request("prompt_tokens"), actual.per_request("output_tokens")
    if prompt >= 1 and output >= 1:
        new["avg_prompt_tokens"], new["avg_output_tokens"] = prompt, output
        for name, value in (("max_prompt_tokens", prompt), ("max_output_tokens", output)):
            if name in new and float(new[name]) < value:  # type: ignore[arg-type]
                new[name] = value
    for name, ran in actual.stack.items():
        if ran:
            new[name] = ran
    if speed.measured:
        for name in EFFICIENCY_COLUMNS:
            new[name] = min(1.0, float(plan_row[name]) * speed.calibration)
    if not math.isnan(actual.latest_price):
        new["gpu_hour_price"] = actual.latest_price
    elif actual.values["gpu_hours"] > 0:
        new["gpu_hour_price"] = actual.values["billed_cost"] / actual.values["gpu_hours"]
    return new


def reforecast(plan: Plan, workloads: Mapping[str, PlanWorkload], actuals: Actuals,
               speeds: Mapping[str, Speed], constants: Mapping[str, float | str]) -> Reforecast:
    """Next window's plan (see the module docstring)."""
    window = next_window(actuals.window)
    rows: list[dict[str, object]] = []
    owner: list[str] = []
    details: dict[str, tuple[Growth, float, str]] = {}
    for name, w in workloads.items():
        actual = actuals.workloads[name]
        g = growth(actual, actuals.window)
        ratio, basis = _peak(w, actual, g)
        details[name] = (g, ratio, basis)
        if g.next_qps <= 0:
            continue  # no traffic to carry forward: the workload is retired
        for row, i in zip(base_rows(plan, w), w.rows, strict=True):
            rows.append(_carry(row, plan.results.iloc[i], w, actual, speeds[name], g, ratio))
            owner.append(name)
    header = list(dict.fromkeys(k for row in rows for k in row))
    body = [(n, [row.get(k) for k in header]) for n, row in enumerate(rows, start=2)]
    checked = validate(RawTable("re-forecast", header, body, sha256=""),
                       catalogs=Catalogs(plan.tables.gpus, plan.tables.models))
    checked = replace(checked, tables=replace(checked.tables, efficiency=plan.tables.efficiency))
    results = estimate_concrete(checked.scenarios, checked.tables, constants)
    hours = (window[1] - window[0]).days * 24.0
    out = {}
    for name in workloads:
        mine = [i for i, o in enumerate(owner) if o == name]
        if not mine:
            continue
        r = results.iloc[mine]
        g, ratio, basis = details[name]
        actual = actuals.workloads[name]
        monthly = float(r["monthly_cost"].sum())
        notes = [] if g.known else ["One period of requests: no growth is known; none assumed."]
        out[name] = ReforecastWorkload(
            name, g, float(r["peak_qps"].sum()), basis,
            actual.per_request("prompt_tokens"), actual.per_request("output_tokens"),
            speeds[name].calibration, float(r["gpu_hour_price"].iloc[0]),
            float(r["gpus"].sum()), monthly, monthly * hours / HOURS_PER_MONTH, tuple(notes))
    return Reforecast(window, window_label(window), tuple(rows), results, tuple(owner), out)


def write_scenarios(rows: tuple[dict[str, object], ...], path: Path) -> None:
    """The re-forecast's scenario rows as a CSV `reportgen build` reads (schema order)."""
    present = {k for row in rows for k in row}
    columns = [c.name for c in schema.COLUMNS if c.name in present]
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell(row.get(c)) for c in columns])


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.10g}"
    return str(value)
