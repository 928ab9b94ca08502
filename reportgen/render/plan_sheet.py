"""The Plan sheet: one row per scenario, one live formula per quantity (registry order), then
what the search chose for the row's searched inputs (``planned_<input>``, read by the row's
formulas instead of the Scenarios cell) and the live choice: ``counted`` (the row is its
workload's cheapest plan row that meets its targets, so the totals count it) and ``status``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pandas as pd
from openpyxl.formatting.rule import CellIsRule, FormulaRule
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.choose import COUNTED_XL, STATUS_XL
from reportgen.quantities import REGISTRY, Quantity
from reportgen.render.cells import header_row, number_format, set_formula, set_value, set_widths
from reportgen.render.layout import FIRST_ROW, PLANNED_PREFIX, Layout, letter, refs
from reportgen.render.xlsx_cache import CachedValue, XlError
from reportgen.search import CONFIG

PLANNED: tuple[str, ...] = tuple(PLANNED_PREFIX + c for c in CONFIG)
CHOICE: tuple[tuple[str, str, str], ...] = (
    ("counted", COUNTED_XL, "[flag] 1 when the totals count the row: a plan row that meets its "
     "targets and is the cheapest of its workload (ties: fewer GPUs, lower TPOT, earlier row)."),
    ("status", STATUS_XL, "chosen (budgeted), option (another row of the workload is cheaper), "
     "compare (shown for comparison) or no fit."),
)
EXTRA_COLUMNS: tuple[str, ...] = (*PLANNED, *(name for name, _, _ in CHOICE))
_PLACEHOLDER = re.compile(r"\{([a-z_]+)(\[\])?\}")

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


def cached(value: Any, q: Quantity) -> CachedValue:
    """An engine result as the value a spreadsheet shows for the quantity's cell."""
    if q.kind == "text":
        return "" if value is None else str(value)
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")):
        return XlError("#DIV/0!")
    return number


def quantity_note(q: Quantity) -> str:
    """Unit and meaning of a quantity, for header comments."""
    unit = f"[{q.unit}] " if q.unit and q.unit != "text" else ""
    return unit + q.doc


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


def group_formula(template: str, layout: Layout, row: int) -> str:
    """A formula over the Plan sheet: {name} → the row's cell, {name[]} → the column."""

    def ref(match: re.Match[str]) -> str:
        name, whole = match.group(1), match.group(2)
        if whole:
            return layout.plan_range(name).split("!", 1)[1]
        return f"${layout.plan_cols[name]}{row}"

    return "=" + _PLACEHOLDER.sub(ref, template)


def _planned_note(column: str) -> str:
    return (f"What the search chose for {column} on rows that searched it (blank: the row's "
            f"formulas read {column} from Scenarios). Chosen when the workbook was built.")


def write_plan(ws: Worksheet, layout: Layout, results: pd.DataFrame,
               searched: Sequence[Sequence[str]]) -> dict[str, CachedValue]:
    """Every quantity as a formula for every scenario, the planned inputs of searched rows and
    the choice formulas; returns the cells' cached values."""
    quantities = [REGISTRY[name] for name in layout.plan_cols if name in REGISTRY]
    notes = [quantity_note(q) for q in quantities]
    notes += [_planned_note(c) for c in CONFIG] + [note for _, _, note in CHOICE]
    header_row(ws, 1, [*(q.name for q in quantities), *EXTRA_COLUMNS], notes)
    values: dict[str, CachedValue] = {}
    formats = [number_format(q.unit) for q in quantities]
    first_extra = len(quantities) + 1
    for i, r in enumerate(layout.rows()):
        planned = frozenset(searched[i])
        resolve = layout.plan_resolver(r, planned)
        row = results.iloc[i]
        for j, q in enumerate(quantities):
            cell = ws.cell(row=r, column=j + 1)
            set_formula(cell, q.formula(refs(q, resolve)))
            fmt = formats[j]
            if fmt:
                cell.number_format = fmt
            values[cell.coordinate] = cached(row[q.name], q)
        for j, c in enumerate(CONFIG):
            if c in planned:
                set_value(ws.cell(row=r, column=first_extra + j), row[c])
        for j, (name, template, _) in enumerate(CHOICE, start=first_extra + len(CONFIG)):
            cell = ws.cell(row=r, column=j)
            set_formula(cell, group_formula(template, layout, r))
            value = row[name]
            values[cell.coordinate] = value if isinstance(value, str) else float(value)
    _conditional_formats(ws, layout)
    ws.freeze_panes = "B2"
    set_widths(ws, [max(12.0, len(name) + 3.0) for name in layout.plan_cols])
    ws.column_dimensions["A"].width = 28
    ws.column_dimensions[layout.plan_cols["notes"]].width = 80
    return values
