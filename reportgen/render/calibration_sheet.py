"""Your load-test calibration on the workbook's Efficiency sheet, below the lookup table: which
rows are yours and what they replace, your efficiencies against the shipped ones, and every run
measured against predicted. Written only when a scenario uses one of your rows; the lookup
formulas read the table above it, which ends at the first blank row."""

from __future__ import annotations

from openpyxl.worksheet.worksheet import Worksheet

from reportgen.i18n import _
from reportgen.plan import Plan
from reportgen.render.cells import (
    NOTE_FONT,
    TITLE_FONT,
    header_row,
    number_format,
    set_text,
    set_value,
)
from reportgen.render.context.calibration import calibration
from reportgen.render.context.models import Table
from reportgen.render.layout import FIRST_ROW

LABEL_WIDTH = 30.0  # characters: the efficiencies' names and the runs' labels


def _table(ws: Worksheet, row: int, table: Table) -> int:
    """The table's title, header and rows from ``row``; the next free row."""
    set_text(ws.cell(row=row, column=1), table.title)
    ws.cell(row=row, column=1).font = NOTE_FONT
    header_row(ws, row + 1, list(table.header))
    for r, cells in enumerate(table.rows, start=row + 2):
        for c, value in enumerate(cells, start=1):
            cell = ws.cell(row=r, column=c)
            set_value(cell, value.value)
            fmt = number_format(value.unit)
            if fmt and not isinstance(value.value, str):
                cell.number_format = fmt
    return row + 2 + len(table.rows) + 1


def write_calibration(ws: Worksheet, plan: Plan) -> None:
    """The calibration block, two rows below the efficiency table (nothing when no scenario
    uses a row of yours)."""
    page = calibration(plan)
    if page is None:
        return
    row = FIRST_ROW + len(plan.tables.efficiency) + 2
    ws.column_dimensions["A"].width = max(ws.column_dimensions["A"].width or 0, LABEL_WIDTH)
    set_text(ws.cell(row=row, column=1), _("Calibration on your load test"))
    ws.cell(row=row, column=1).font = TITLE_FONT
    set_text(ws.cell(row=row + 1, column=1), page.intro)
    row += 3
    for stack in page.stacks:
        set_text(ws.cell(row=row, column=1), stack.headline)
        row = _table(ws, row + 1, stack.values)
        if stack.runs is not None:
            row = _table(ws, row, stack.runs)
        for note in stack.notes:
            set_text(ws.cell(row=row, column=1), note)
            ws.cell(row=row, column=1).font = NOTE_FONT
            row += 1
        row += 1
