"""GPU instance-hours and cost from an AWS Cost and Usage Report (legacy CUR, CSV).

The documented subset read (AWS Data Exports user guide, "Line item details"): ``identity``
columns are not needed; per line item ``lineItem/UsageStartDate`` and ``lineItem/UsageEndDate``
(UTC), ``lineItem/LineItemType``, ``lineItem/UsageAmount`` (instance-hours for instance usage),
``lineItem/UnblendedCost``, ``lineItem/CurrencyCode``, ``product/instanceType``, the cost
allocation tag ``resourceTags/user:workload`` (tag the instances with ``workload`` and activate
it as a cost allocation tag), and, when reservations or Savings Plans cover the usage,
``reservation/EffectiveCost`` and ``savingsPlan/SavingsPlanEffectiveCost``.

Line items of type ``Usage`` cost their unblended cost, ``DiscountedUsage`` (reserved) their
effective cost, ``SavingsPlanCoveredUsage`` their Savings Plan effective cost: the amortised
cost of the hours. Other types (tax, credits, refunds, fees, upfront and recurring commitment
fees, negations) are left out and listed. GPU-hours are instance-hours × GPUs per instance
(reportgen/data/cloud_instances.csv); instances of other types tagged with a workload (CPU
gateways, storage) and untagged lines are left out and listed.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen.errors import ActualsError
from reportgen.review.actuals.source import SourceData, Span, next_month, period_frame
from reportgen.units import CONSTANTS

KIND = "AWS Cost and Usage Report"
INSTANCES_FILE = Path(__file__).resolve().parents[2] / "data" / "cloud_instances.csv"
MAX_BYTES = 2 * 2**30
START, END = "lineItem/UsageStartDate", "lineItem/UsageEndDate"
TYPE, AMOUNT = "lineItem/LineItemType", "lineItem/UsageAmount"
UNBLENDED, CURRENCY = "lineItem/UnblendedCost", "lineItem/CurrencyCode"
INSTANCE = "product/instanceType"
RESERVED, SAVINGS = "reservation/EffectiveCost", "savingsPlan/SavingsPlanEffectiveCost"
TAG = "resourcetags/user:workload"  # matched ignoring case
REQUIRED = (START, END, TYPE, AMOUNT, UNBLENDED, CURRENCY, INSTANCE)
COST_OF = {"Usage": UNBLENDED, "DiscountedUsage": RESERVED, "SavingsPlanCoveredUsage": SAVINGS}
GPU_FAMILY = re.compile(r"^(p\d|g\d)", re.IGNORECASE)  # AWS's GPU instance families


def is_cur(header: list[str]) -> bool:
    """True for a CUR header."""
    return START in header and TYPE in header


def instance_table() -> pd.DataFrame:
    """GPU instance types: GPU (catalog name) and GPUs per instance, with sources."""
    return pd.read_csv(INSTANCES_FILE, dtype={"gpus": float}).set_index("instance_type")


def _money(value: float) -> str:
    return f"-${-value:,.2f}" if value < 0 else f"${value:,.2f}"


def read_cur(path: Path) -> SourceData:
    """Read a CUR CSV (see the module docstring); ActualsError lists every problem."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ActualsError([f"{path}: larger than {MAX_BYTES / 2**30:.0f} GiB; filter it to "
                                "the GPU instances first."])
        text = path.read_text(encoding="utf-8-sig")
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError) as err:
        raise ActualsError([f"{path}: cannot be read as a CUR CSV ({err})."]) from None
    problems = [f"{path}: no column {c} (a legacy Cost and Usage Report CSV has it)."
                for c in REQUIRED if c not in frame.columns]
    tag = next((c for c in frame.columns if c.lower() == TAG), None)
    if tag is None:
        problems.append(f"{path}: no column resourceTags/user:workload; tag the GPU instances "
                        "with workload=<plan workload> and activate the tag for cost "
                        "allocation, so the report says which workload each hour served.")
    if problems:
        raise ActualsError(problems)
    assert tag is not None
    notes: list[str] = []
    currencies = sorted(set(frame[CURRENCY]) - {""})
    currency = str(CONSTANTS["CURRENCY"].value)
    if currencies and currencies != [currency]:
        raise ActualsError([f"{path}: costs in {', '.join(currencies)}; the plan is in "
                            f"{currency}. Export the report in {currency}."])
    frame["_workload"] = frame[tag].str.strip()
    usage = frame[TYPE].isin(list(COST_OF))
    _note_left_out(frame, ~usage, notes, "line items of other types (not instance usage)",
                   by=TYPE)
    for kind, column in COST_OF.items():
        if kind != "Usage" and (frame[TYPE] == kind).any() and column not in frame.columns:
            problems.append(f"{path}: {kind} line items but no column {column}; include it so "
                            "covered hours cost their effective rate.")
    untagged = usage & (frame["_workload"] == "")
    _note_left_out(frame, untagged, notes, "usage line items without a workload tag")
    table = instance_table()
    types = frame[INSTANCE].str.strip()
    known = types.isin(table.index)
    unknown_gpu = usage & ~untagged & ~known & types.str.match(GPU_FAMILY)
    for name in sorted(set(types[unknown_gpu])):
        problems.append(f"{path}: instance type {name!r} looks like a GPU instance but its GPU "
                        f"count is unknown; known: {', '.join(table.index[:8])}, …; add it to "
                        "reportgen/data/cloud_instances.csv.")
    other = usage & ~untagged & ~known & ~unknown_gpu
    _note_left_out(frame, other, notes, "tagged line items of non-GPU instances or services")
    if problems:
        raise ActualsError(problems)
    rows = frame[usage & ~untagged & known].copy()
    if rows.empty:
        raise ActualsError([f"{path}: no GPU instance usage tagged with a workload."])
    cost = np.zeros(len(rows))
    for kind, column in COST_OF.items():
        mask = (rows[TYPE] == kind).to_numpy()
        if mask.any():
            cost[mask] = pd.to_numeric(rows.loc[mask, column], errors="coerce").to_numpy()
    amount = pd.to_numeric(rows[AMOUNT], errors="coerce").to_numpy()
    starts = pd.to_datetime(rows[START], utc=True, errors="coerce")
    ends = pd.to_datetime(rows[END], utc=True, errors="coerce")
    bad = np.isnan(cost) | np.isnan(amount) | starts.isna().to_numpy() | ends.isna().to_numpy()
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise ActualsError([f"{path}: {int(bad.sum())} GPU line item(s) with a date, usage "
                            f"amount or cost that is not a number (first: line "
                            f"{rows.index[first] + 2})."])
    instance = rows[INSTANCE].str.strip()
    rows = pd.DataFrame({
        "workload": rows["_workload"].to_numpy(), "day": starts.dt.date.to_numpy(),
        "end": ends.to_numpy(), "gpu": instance.map(table["gpu"]).to_numpy(),
        "gpu_hours": amount * instance.map(table["gpus"]).to_numpy(dtype=float),
        "billed_cost": cost,
    })
    return _aggregate(path, rows, notes)


def _note_left_out(frame: pd.DataFrame, mask: pd.Series, notes: list[str], what: str,
                   by: str | None = None) -> None:
    if not mask.any():
        return
    cost = pd.to_numeric(frame.loc[mask, UNBLENDED], errors="coerce").fillna(0.0)
    detail = ""
    if by is not None:
        per = cost.groupby(frame.loc[mask, by]).sum()
        detail = " (" + ", ".join(f"{k or 'blank'} {_money(v)}" for k, v in per.items()) + ")"
    notes.append(f"Left out: {int(mask.sum()):,} {what}, unblended {_money(cost.sum())}"
                 f"{detail}.")


def _aggregate(path: Path, rows: pd.DataFrame, notes: list[str]) -> SourceData:
    periods: list[dict[str, object]] = []
    coverage: dict[str, Span] = {}
    for workload, group in rows.groupby("workload", sort=False):
        first = min(group["day"])
        last_end = max(group["end"])
        end = last_end.date() + dt.timedelta(days=1 if last_end.time() != dt.time() else 0)
        coverage[str(workload)] = (first, end)
        days = set(group["day"])
        missing = [first + dt.timedelta(days=k) for k in range((end - first).days)
                   if first + dt.timedelta(days=k) not in days]
        if missing:
            notes.append(f"{workload}: no GPU line items on {len(missing)} day(s) "
                         f"({', '.join(str(d) for d in missing[:5])}"
                         f"{'…' if len(missing) > 5 else ''}); counted as no GPUs those days.")
        start = first
        while start < end:
            stop = min(next_month(start), end)
            month = group[(group["day"] >= start) & (group["day"] < stop)]
            hours_by_gpu = month.groupby("gpu")["gpu_hours"].sum()
            periods.append({
                "workload": workload, "start": start, "end": stop,
                "gpu_hours": float(month["gpu_hours"].sum()),
                "billed_cost": float(month["billed_cost"].sum()),
                "gpu": str(hours_by_gpu.idxmax()) if len(hours_by_gpu) else "",
            })
            if len(hours_by_gpu) > 1:
                notes.append(f"{workload}, {start:%Y-%m}: several GPU types ("
                             + ", ".join(f"{g} {h:,.0f} GPU-h" for g, h in hours_by_gpu.items())
                             + "); the most used stands for the month.")
            start = stop
    return SourceData(path.name, KIND, period_frame(periods, path.name), coverage, tuple(notes))
