"""The Method sheet: how to use the workbook, and every quantity of the registry with its unit,
meaning and Excel template (as text), generated from the registry itself."""

from __future__ import annotations

from openpyxl.worksheet.worksheet import Worksheet

from reportgen.i18n import N_, _
from reportgen.quantities import REGISTRY
from reportgen.render.cells import NOTE_FONT, TITLE_FONT, header_row, set_text, set_widths

# English, translated where written. The second line shows {input} as it is (no placeholder).
USAGE: tuple[str, ...] = (
    N_("Edit the light-yellow cells: scenario inputs on Scenarios (blank = use the default), "
       "constants on Assumptions, the scenario picked on Batch curve. Every other number is a "
       "live formula and recomputes."),
    N_("Each Plan column is one quantity below; its formula is the template with each {input} "
       "replaced by a cell: raw_<column> = the Scenarios cell, gpu__/model__/eff__<field> = a "
       "lookup in the GPUs/Models/Efficiency sheet, UPPER_CASE = the named cell on "
       "Assumptions, any other name = the same row's Plan cell."),
    N_("Excel recalculates on open. LibreOffice keeps the values stored in the file by "
       "default: set Tools ▸ Options ▸ LibreOffice Calc ▸ Formula ▸ 'Recalculation on file "
       "load' (Excel 2007 and newer) to 'Always recalculate', or press Data ▸ Calculate ▸ "
       "Recalculate Hard (Ctrl+Shift+F9) after opening."),
    N_("Summary totals count only rows with counted = 1: per workload, the cheapest plan row "
       "that meets its targets (Plan columns counted and status)."),
)
TABLE_HEADER = ("name", "unit", "meaning", "excel", "section")


def write_method(ws: Worksheet) -> None:
    """Usage notes, then one row per quantity in registry (evaluation) order."""
    set_text(ws["A1"], _("Method"))
    ws["A1"].font = TITLE_FONT
    for r, line in enumerate(USAGE, start=2):
        set_text(ws.cell(row=r, column=1), _(line))
        ws.cell(row=r, column=1).font = NOTE_FONT
    header = len(USAGE) + 3
    header_row(ws, header, list(TABLE_HEADER))
    for r, q in enumerate(REGISTRY.values(), start=header + 1):
        meaning = _(q.doc) if q.doc else q.doc
        for c, text in enumerate((q.name, q.unit, meaning, q.excel, q.section), start=1):
            set_text(ws.cell(row=r, column=c), text)  # the template is text, never a formula
    ws.freeze_panes = f"B{header + 1}"
    set_widths(ws, [34, 14, 90, 90, 12])
