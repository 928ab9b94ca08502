"""Small helpers every part of the report's view model shares: reading a result row, formatting
its quantities as the report shows them, and the words for a row's standing in the plan.

A row is one scenario's results joined with its raw inputs (as ``raw_<column>``); see
:func:`reportgen.render.context.build`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from reportgen.choose import split_words
from reportgen.formats import format_value
from reportgen.i18n import N_, _
from reportgen.plan import Plan
from reportgen.quantities import REGISTRY
from reportgen.render.context.models import Num
from reportgen.units import CONSTANTS

Row = Mapping[str, Any]

BOTTLENECK_LABELS: dict[str, str] = {
    "kv_memory": N_("KV-cache memory"),
    "tpot_slo": N_("TPOT target"),
    "ttft_slo": N_("TTFT target"),
    "batch_cap": N_("Scheduler batch cap"),
    "weights_do_not_fit": N_("Weights do not fit"),
    "slo_unreachable": N_("Latency target unreachable"),
    "compute": N_("Compute ceiling (tutorial)"),
    "queueing": N_("Queueing at the P99 targets"),
}
UNLIMITED = float(CONSTANTS["UNLIMITED_BATCH"].value)


def scalar(value: Any) -> float | str | None:
    """A cell of a frame as a plain float or string (None stays None)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    return str(value)


def num(row: Row, name: str) -> Num:
    """A result quantity as a Num with the registry's unit."""
    return Num(scalar(row[name]), REGISTRY[name].unit)


def fmt(row: Row, name: str, *, with_unit: bool = True) -> str:
    """A result quantity formatted as the report shows it."""
    return format_value(scalar(row[name]), REGISTRY[name].unit, with_unit=with_unit)


def fmt_value(value: float | str | None, unit: str, *, with_unit: bool = True) -> str:
    """A value in a unit, formatted as the report shows it."""
    return format_value(value, unit, with_unit=with_unit)


def constant(name: str) -> str:
    """A constant of units.CONSTANTS, formatted with its own unit."""
    c = CONSTANTS[name]
    return format_value(scalar(c.value), c.unit, with_unit=True)


def hours() -> str:
    """The billable hours a month, formatted."""
    return constant("HOURS_PER_MONTH")


def cell(frame: pd.DataFrame, index: str, column: str) -> Any:
    """One cell of a catalog or efficiency table."""
    return frame.loc[index, column]


def as_float(row: Row, name: str) -> float:
    return float(row[name])


def text_of(value: Any) -> str:
    """A table value as text: blank for None and NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value == ""


CALIBRATED = {"yes": N_("calibrated"), "load test": N_("calibrated on your load test")}


def calibration_kind(plan: Plan, key: str) -> str:
    """How an efficiency row was calibrated: "yes", "load test", or "" for a prior."""
    kind = str(plan.tables.efficiency.loc[key, "calibrated"]).lower()
    return kind if kind in CALIBRATED else ""


def calibration_of(plan: Plan, key: str) -> str:
    """How an efficiency row was calibrated, in words ("" for an uncalibrated prior)."""
    kind = calibration_kind(plan, key)
    return _(CALIBRATED[kind]) if kind else ""


def is_counted(row: Row) -> bool:
    """The row is in the plan's totals (its workload's chosen plan row)."""
    return as_float(row, "counted") == 1


def is_tutorial(row: Row) -> bool:
    return str(row["method"]) == "tutorial"


def fits(row: Row) -> bool:
    """At least one sequence fits in the instance's KV budget."""
    return as_float(row, "batch_max_kv") >= 1


def quote(name: str) -> str:
    return f"“{name}”"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def listing(items: Sequence[str], limit: int = 3) -> str:
    """Up to ``limit`` items joined, then how many more."""
    shown = _("; ").join(items[:limit])
    more = len(items) - limit
    return _("{shown}; and {more} more").format(shown=shown, more=more) if more > 0 else shown


def status_text(row: Row) -> str:
    """The row's standing in the plan, in words."""
    status = str(row["status"])
    if is_tutorial(row):
        return _("Tutorial method: for comparison, not in the totals")
    if status == "compare":
        return _("For comparison: not in the totals")
    if status == "option":
        return _("Option of workload {workload}, not chosen: not in the totals").format(
            workload=quote(str(row["workload"])))
    if status == "no fit":
        return _("Does not fit: not in the totals")
    if status == "no price":
        return _("No price for this GPU in the price book: not in the totals")
    return _("In the plan")


def bottleneck_label(row: Row) -> str:
    code = str(row["bottleneck"])
    return _(BOTTLENECK_LABELS[code]) if code in BOTTLENECK_LABELS else code


def replica(row: Row) -> str:
    """One instance's GPUs, e.g. "4×H100-SXM", "16×H100-SXM (TP 8 × PP 2)" with pipeline
    stages, "8×H200-SXM (DEP 8)" with attention data-parallel and expert parallel."""
    gpus = f"{fmt(row, 'gpus_per_instance', with_unit=False)}×{row['gpu']}"
    dep = float(row.get("attention_replicas", 1)) > 1
    if float(row["pp"]) <= 1 and not dep:
        return gpus
    shape = split_words(float(row["tp"]), dep)
    if float(row["pp"]) > 1:
        shape += f" × PP {fmt(row, 'pp', with_unit=False)}"
    return f"{gpus} ({shape})"


def gpu_field(plan: Plan, gpu: str, field: str) -> Any:
    return plan.tables.gpus.loc[gpu, field]


def sum_of(rows: Sequence[Row], name: str) -> float:
    """A quantity added over rows (plan totals are sums over scenarios)."""
    return float(sum(float(r[name]) for r in rows))
