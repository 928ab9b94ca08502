"""The Plan sheet: one row per scenario, one live formula per quantity (registry order), then
what the search chose for the row's searched inputs (``planned_<input>``, read by the row's
formulas instead of the Scenarios cell) and the live choice: ``counted`` (the row is its
workload's cheapest plan row that meets its targets, so the totals count it) and ``status``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
from openpyxl.formatting.rule import CellIsRule, FormulaRule
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.choose import (
    CHOSEN_COST_XL,
    COUNTED_XL,
    EMPTY_CHOICE,
    GUARDS,
    STATUS_XL,
    WHY_XL,
    guards,
)
from reportgen.i18n import N_, _
from reportgen.render.cells import labelled_header, set_formula, set_widths
from reportgen.render.layout import (
    FIRST_ROW,
    FREEZE,
    PLANNED_PREFIX,
    SCENARIOS,
    Layout,
    letter,
    sheet_ref,
)
from reportgen.render.registry_rows import (
    collapse_engineering_columns,
    group_formula,
    quantities,
    quantity_note,
    write_quantities,
)
from reportgen.render.xlsx_cache import CachedValue
from reportgen.search import CONFIG

PLANNED: tuple[str, ...] = tuple(PLANNED_PREFIX + c for c in CONFIG)
# Name, formula template and note (English, translated where written; choose.GUARDS' notes
# come from choose.py).
CHOICE: tuple[tuple[str, str, str], ...] = (
    *GUARDS,
    ("counted", COUNTED_XL, N_("[flag] 1 when the totals count the row: a plan row that meets "
     "its targets and is the cheapest of its workload (ties: fewer GPUs, fewer pipeline "
     "stages, lower TPOT, earlier row).")),
    ("chosen_cost", CHOSEN_COST_XL, N_("[USD/month] What the row adds to the totals: its "
     "monthly cost when counted, else 0.")),
    ("status", STATUS_XL, N_("chosen (budgeted), option (another row of the workload is "
     "cheaper), compare (shown for comparison), no fit, no price, or error (a formula of the "
     "row fails: see Summary, Checks).")),
    ("why", WHY_XL, N_("Why the row is or is not budgeted, in a few words.")),
)
EXTRA_COLUMNS: tuple[str, ...] = (*PLANNED, *(name for name, _template, _note in CHOICE))

# Bottleneck kinds and the fill that marks them.
BOTTLENECK_FILLS = {
    "kv_memory": "FFDDEBF7",
    "tpot_slo": "FFFCE4D6",
    "ttft_slo": "FFE4DFEC",
    "batch_cap": "FFE2EFDA",
    "compute": "FFEDEDED",
}
INFEASIBLE = ("weights_do_not_fit", "slo_unreachable")
INFEASIBLE_FILL = PatternFill("solid", fgColor="FFFFC7CE")
INFEASIBLE_FONT = Font(color="FF9C0006", bold=True)
TUTORIAL_FONT = Font(italic=True, color="FF7F7F7F")


def _conditional_formats(ws: Worksheet, layout: Layout) -> None:
    last_col = letter(len(layout.plan_cols) - 1)
    first, last = FIRST_ROW, layout.last_row
    kind = layout.plan_cols["bottleneck"]
    method = layout.plan_cols["method"]
    rows = f"A{first}:{last_col}{last}"
    infeasible = ",".join(f'${kind}{first}="{k}"' for k in INFEASIBLE)
    ws.conditional_formatting.add(
        rows,
        FormulaRule(
            formula=[f"OR({infeasible})"], fill=INFEASIBLE_FILL, font=INFEASIBLE_FONT,
            stopIfTrue=True,
        ),
    )
    ws.conditional_formatting.add(
        rows, FormulaRule(formula=[f'${method}{first}="tutorial"'], font=TUTORIAL_FONT)
    )
    for name, colour in BOTTLENECK_FILLS.items():
        ws.conditional_formatting.add(
            f"{kind}{first}:{kind}{last}",
            CellIsRule(
                operator="equal", formula=[f'"{name}"'],
                fill=PatternFill("solid", fgColor=colour), font=Font(bold=True),
            ),
        )


def _planned_note(column: str) -> str:
    return _("On rows that search {input}: the {input} of the row's best option on the "
             "Options sheet (rank 1), which the row's formulas read instead of Scenarios. "
             "Blank on rows that do not search it.").format(input=column)


def write_plan(ws: Worksheet, layout: Layout, results: pd.DataFrame,
               searched: Sequence[Sequence[str]], planned_inputs: pd.DataFrame,
               planned_formula: Callable[[str, int], str]) -> dict[str, CachedValue]:
    """Every quantity as a formula for every scenario, the planned inputs of searched rows (as
    the engine took them: ``planned_inputs``, Plan.scenarios) and the choice formulas; returns
    the cells' cached values."""
    names = quantities(layout)
    notes = [quantity_note(q) for q in names]
    notes += [_planned_note(c) for c in CONFIG] + [_(note) for _name, _xl, note in CHOICE]
    labelled_header(ws, [*(q.name for q in names), *EXTRA_COLUMNS], notes)
    values: dict[str, CachedValue] = {}
    guarded = guards(results, results["counted"])
    for i, r in enumerate([*layout.rows(), *layout.spare()]):
        spare = i >= len(results)  # blank until a scenario is typed on its Scenarios row
        planned = frozenset() if spare else frozenset(searched[i])
        row = None if spare else results.iloc[i]
        write_quantities(ws, r, layout.plan_resolver(r, planned), row, layout, values,
                         blank_unless=f"{sheet_ref(SCENARIOS)}$A{r}")
        for c in planned:
            cell = ws[f"{layout.plan_cols[PLANNED_PREFIX + c]}{r}"]
            set_formula(cell, planned_formula(c, r))
            value = planned_inputs[c].iloc[i]
            values[cell.coordinate] = value if isinstance(value, str) else float(value)
        for name, template, _note in CHOICE:
            cell = ws[f"{layout.plan_cols[name]}{r}"]
            set_formula(cell, group_formula(template, layout.plan_cols, FIRST_ROW,
                                            layout.last_row, r))
            value = (EMPTY_CHOICE[name] if row is None else
                     guarded[name].iloc[i] if name in guarded else row[name])
            values[cell.coordinate] = value if isinstance(value, str) else float(value)
    _conditional_formats(ws, layout)
    ws.freeze_panes = FREEZE
    set_widths(ws, [max(12.0, len(name) + 3.0) for name in layout.plan_cols])
    ws.column_dimensions["A"].width = 28
    ws.column_dimensions[layout.plan_cols["notes"]].width = 80
    collapse_engineering_columns(ws, layout.plan_cols)
    return values

