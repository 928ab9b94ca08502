"""The Levers sheet: for every budgeted (or unfit) row, the single changes that apply to it, each
as a live registry row planning the row with that change.

A lever row reads its scenario's inputs from Scenarios like the Plan row does, except the
configuration it plans (``planned_<input>``: what the engine's search found best with the
change) and the input the lever changes (``set_<input>``): a looser TPOT target and the halved
KV reservation are formulas over the scenario's own values, the other settings are the lever's
values. ``delta_gpus`` and ``delta_monthly_cost`` compare the row with the scenario's Plan row,
live. Rows are ranked per scenario by the saving the engine found (largest first).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.engine import estimate
from reportgen.i18n import N_, _
from reportgen.levers import LEVER_INPUTS, TPOT_LOOSER, in_words, planned_inputs
from reportgen.plan import Plan
from reportgen.render.cells import NOTE_FONT, number_format, set_formula, set_text, set_value
from reportgen.render.layout import (
    FIRST_ROW,
    FREEZE,
    PLAN,
    PLANNED_PREFIX,
    Layout,
    letter,
    sheet_ref,
)
from reportgen.render.registry_rows import (
    column_index,
    size_variant_columns,
    variant_header,
    write_quantities,
)
from reportgen.render.xlsx_cache import CachedValue
from reportgen.search import CONFIG

MAX_LEVER_ROWS = 2_000
SET_PREFIX = "set_"
# The notes are English, translated where written.
EXTRA: tuple[tuple[str, str], ...] = (
    ("lever_of", N_("The Scenarios row (and Plan row) this lever changes.")),
    ("lever", N_("Which change.")),
    ("change", N_("The change in words.")),
    ("delta_gpus", N_("GPUs of this row minus the scenario's Plan row (blank when either does "
                      "not meet its targets).")),
    ("delta_monthly_cost", N_("Monthly cost of this row minus the scenario's Plan row (blank "
                              "when either does not meet its targets).")),
)
NOTE = N_(
    "Each row plans one scenario with one change (the lever) and the configuration the search "
    "found best with it; formulas are live, so the deltas follow edits on Scenarios."
)


def lever_rows(plan: Plan) -> pd.DataFrame:
    """The levers the sheet shows: all of them, or the best few of each row when they are many
    (their changes in the reader's language)."""
    if plan.levers is None or plan.levers.empty:
        return pd.DataFrame()
    levers = in_words(plan, _)
    per_row = max(3, MAX_LEVER_ROWS // max(1, levers["row"].nunique()))
    return levers.groupby("row", sort=False).head(per_row).reset_index(drop=True)


def columns(layout: Layout) -> dict[str, str]:
    """Column letters of the planned inputs, the set inputs and the lever columns."""
    cols = {PLANNED_PREFIX + c: layout.plan_cols[PLANNED_PREFIX + c] for c in CONFIG}
    after = max(column_index(col) for col in cols.values()) + 1
    names = [*(SET_PREFIX + c for c in LEVER_INPUTS), *(name for name, _note in EXTRA)]
    cols.update({name: letter(after + k) for k, name in enumerate(names)})
    return cols


def _set_formula(c: str, value: float, source: int, layout: Layout) -> str | float:
    """A set input as a formula over the scenario's own values where the lever is relative."""
    plan = sheet_ref(PLAN)
    if c == "tpot_slo_ms":
        return f"={sheet_ref('Scenarios')}{layout.scenario_cols[c]}{source}*{TPOT_LOOSER}"
    if c in ("max_prompt_tokens", "max_output_tokens"):
        avg = "avg_prompt_tokens" if c == "max_prompt_tokens" else "avg_output_tokens"
        return (f"=MAX({plan}{layout.plan_cols[avg]}{source},"
                f"{plan}{layout.plan_cols[c]}{source}/2)")
    return value


def write_levers(ws: Worksheet, layout: Layout, plan: Plan,
                 levers: pd.DataFrame) -> dict[str, CachedValue]:
    """The lever rows; returns the formulas' cached values."""
    cols = columns(layout)
    extra = {cols[PLANNED_PREFIX + c]: (PLANNED_PREFIX + c,
                                        _("The {input} this lever plans.").format(input=c))
             for c in CONFIG}
    extra.update({cols[SET_PREFIX + c]: (
        SET_PREFIX + c,
        _("The {input} the lever sets (blank: the scenario's own).").format(input=c))
        for c in LEVER_INPUTS})
    extra.update({cols[name]: (name, _(note)) for name, note in EXTRA})
    variant_header(ws, layout, extra)
    values: dict[str, CachedValue] = {}
    if levers.empty:
        set_text(ws.cell(row=FIRST_ROW, column=1), _("No plan row has a lever that applies."))
        ws.cell(row=FIRST_ROW, column=1).font = NOTE_FONT
        return values
    planned = planned_inputs(plan, levers)
    results = estimate(planned, plan.tables)
    plan_ref = sheet_ref(PLAN)
    for k in range(len(levers)):
        r = FIRST_ROW + k
        lever = levers.iloc[k]
        source = FIRST_ROW + int(lever["row"])
        own = {c: cols[PLANNED_PREFIX + c] for c in CONFIG}
        for c in LEVER_INPUTS:
            value = float(lever[SET_PREFIX + c])
            if np.isnan(value):
                continue
            own[c] = cols[SET_PREFIX + c]
            cell = ws[f"{own[c]}{r}"]
            formula = _set_formula(c, value, source, layout)
            if isinstance(formula, str):
                set_formula(cell, formula)
                values[cell.coordinate] = float(planned.iloc[k][c])
            else:
                set_value(cell, formula)
        write_quantities(ws, r, layout.row_resolver(r, source, own), results.iloc[k], layout,
                         values)
        for c in CONFIG:
            set_value(ws[f"{cols[PLANNED_PREFIX + c]}{r}"], lever[c])
        set_value(ws[f"{cols['lever_of']}{r}"], source)
        set_value(ws[f"{cols['lever']}{r}"], lever["lever"])
        set_value(ws[f"{cols['change']}{r}"], lever["change"])
        feasible = f"{plan_ref}{layout.plan_cols['in_plan_total']}{source}"
        mine = f"{layout.plan_cols['in_plan_total']}{r}"
        for name, quantity, unit in (("delta_gpus", "gpus", "GPUs"),
                                     ("delta_monthly_cost", "monthly_cost", "USD/month")):
            cell = ws[f"{cols[name]}{r}"]
            q = layout.plan_cols[quantity]
            set_formula(cell, f'=IF(AND({feasible}=1,{mine}=1),{q}{r}-{plan_ref}{q}{source},"")')
            expected = float(lever[name])
            values[cell.coordinate] = "" if np.isnan(expected) else expected
            cell.number_format = number_format(unit) or "General"
    note_row = FIRST_ROW + len(levers) + 1
    set_text(ws.cell(row=note_row, column=1), _(NOTE))
    ws.cell(row=note_row, column=1).font = NOTE_FONT
    ws.freeze_panes = FREEZE
    size_variant_columns(ws, layout, cols)
    return values
