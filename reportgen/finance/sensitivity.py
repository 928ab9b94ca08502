"""The tornado: how the plan's monthly cost moves when one input moves, the others held.

Each budgeted row keeps the configuration the plan chose (GPU, tp, pp, precision, engine) and is
re-estimated with one input changed for every row: peak (and average) request rate ±25 %,
output length ±25 %, the price ±20 %, the safety factor at 1.2 and 1.6, and the calibration's
efficiency band (the plan's own ``monthly_cost_low`` and ``monthly_cost_high``). Pure: a plan in,
a table out, sorted by swing (widest first).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from reportgen.engine import estimate
from reportgen.i18n import N_
from reportgen.plan import Plan

COLUMNS: tuple[str, ...] = ("factor", "low_label", "high_label", "low_cost", "high_cost",
                            "swing")
Change = Callable[[pd.DataFrame], pd.DataFrame]


def _scaled(columns: tuple[str, ...], factor: float) -> Change:
    def change(frame: pd.DataFrame) -> pd.DataFrame:
        out = frame.copy()
        for column in columns:
            out[column] = out[column].astype(float) * factor
        return out
    return change


def _output_scaled(factor: float) -> Change:
    def change(frame: pd.DataFrame) -> pd.DataFrame:
        out = frame.copy()
        out["avg_output_tokens"] = np.maximum(1.0, np.round(out["avg_output_tokens"] * factor))
        given = out["max_output_tokens"].notna()
        out.loc[given, "max_output_tokens"] = np.maximum(
            out.loc[given, "avg_output_tokens"],
            np.round(out.loc[given, "max_output_tokens"] * factor))
        return out
    return change


def _safety(value: float) -> Change:
    def change(frame: pd.DataFrame) -> pd.DataFrame:
        out = frame.copy()
        out["safety_factor"] = value
        return out
    return change


def _total(plan: Plan, change: Change) -> float:
    """The budgeted rows' monthly cost with ``change`` applied; NaN when a row would no longer
    meet its targets in the configuration the plan chose (a new plan is needed, not a
    sensitivity)."""
    counted = plan.results["counted"].to_numpy(dtype=float)
    rows = np.flatnonzero(counted == 1)
    if rows.size == 0:
        return 0.0
    scenarios = change(plan.scenarios.iloc[rows].reset_index(drop=True))
    results = estimate(scenarios, plan.tables)
    if (results["in_plan_total"].to_numpy(dtype=float) != 1).any():
        return float("nan")
    return float(results["monthly_cost"].sum())


def tornado(plan: Plan) -> pd.DataFrame:
    """The swing of the budgeted monthly cost per input, widest first."""
    counted = plan.results["counted"].to_numpy(dtype=float) == 1
    base = float(plan.results.loc[counted, "monthly_cost"].sum())
    # Factors and labels are English keys (ask.PLAIN_FACTORS, sensitivity_sheet._LIVE), marked
    # for translation where they are shown.
    rows = [
        (N_("peak and average request rate"), N_("−25 %"), N_("+25 %"),
         _total(plan, _scaled(("peak_qps", "avg_qps"), 0.75)),
         _total(plan, _scaled(("peak_qps", "avg_qps"), 1.25))),
        (N_("output length"), N_("−25 %"), N_("+25 %"), _total(plan, _output_scaled(0.75)),
         _total(plan, _output_scaled(1.25))),
        (N_("price"), N_("−20 %"), N_("+20 %"), 0.8 * base, 1.2 * base),
        (N_("safety factor"), "1.2", "1.6", _total(plan, _safety(1.2)),
         _total(plan, _safety(1.6))),
        (N_("efficiency (calibration band)"), N_("p90 throughput"), N_("p10 throughput"),
         float(plan.results.loc[counted, "monthly_cost_low"].sum()),
         float(plan.results.loc[counted, "monthly_cost_high"].sum())),
    ]
    frame = pd.DataFrame(rows, columns=list(COLUMNS[:-1]))
    frame["swing"] = (frame["high_cost"] - frame["low_cost"]).abs().fillna(np.inf)
    return frame.sort_values("swing", ascending=False, kind="stable").reset_index(drop=True)
