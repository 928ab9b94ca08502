"""The Plan sheet: one row per scenario, one live formula per quantity (registry order)."""

from __future__ import annotations

from typing import Any

import pandas as pd
from openpyxl.formatting.rule import CellIsRule, FormulaRule
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.quantities import REGISTRY, Quantity
from reportgen.render.cells import header_row, number_format, set_formula, set_widths
from reportgen.render.layout import FIRST_ROW, Layout, letter, refs
from reportgen.render.xlsx_cache import CachedValue, XlError

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


def write_plan(ws: Worksheet, layout: Layout, results: pd.DataFrame) -> dict[str, CachedValue]:
    """Every quantity as a formula for every scenario; returns the cells' cached values."""
    quantities = [REGISTRY[name] for name in layout.plan_cols]
    header_row(ws, 1, [q.name for q in quantities], [quantity_note(q) for q in quantities])
    values: dict[str, CachedValue] = {}
    formats = [number_format(q.unit) for q in quantities]
    for i, r in enumerate(layout.rows()):
        resolve = layout.plan_resolver(r)
        row = results.iloc[i]
        for j, q in enumerate(quantities):
            cell = ws.cell(row=r, column=j + 1)
            set_formula(cell, q.formula(refs(q, resolve)))
            fmt = formats[j]
            if fmt:
                cell.number_format = fmt
            values[cell.coordinate] = cached(row[q.name], q)
    _conditional_formats(ws, layout)
    ws.freeze_panes = "B2"
    set_widths(ws, [max(12.0, len(q.name) + 3.0) for q in quantities])
    ws.column_dimensions["A"].width = 28
    ws.column_dimensions[layout.plan_cols["notes"]].width = 80
    return values
