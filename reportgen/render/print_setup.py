"""How each sheet prints: fit to the page width, landscape where the sheet is wide, the header
row (and the name column of tables) repeated on every page, the Summary on one page."""

from __future__ import annotations

from openpyxl.worksheet.properties import PageSetupProperties
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.render.layout import (
    ASSUMPTIONS,
    BOM,
    EFFICIENCY,
    GPUS,
    LEVERS,
    MODELS,
    OPTIONS,
    PLAN,
    SCENARIOS,
    SENSITIVITY,
    SUMMARY,
)

# A sheet wider than this many columns prints landscape.
PORTRAIT_COLUMNS = 8
# Sheets whose row 1 is a table header (repeated on every printed page with column A).
UNTITLED = frozenset({SUMMARY})
# Tables with two header rows (label, machine name: cells.labelled_header).
LABELLED = frozenset({SCENARIOS, PLAN, OPTIONS, LEVERS, BOM, SENSITIVITY, ASSUMPTIONS, GPUS, MODELS,
                      EFFICIENCY})


def set_print(ws: Worksheet) -> None:
    """Fit ``ws`` to one page wide (and the Summary to one page tall), repeat its titles."""
    ws.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=True)
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 1 if ws.title == SUMMARY else 0
    ws.page_setup.orientation = "landscape" if ws.max_column > PORTRAIT_COLUMNS else "portrait"
    if ws.title not in UNTITLED and ws.max_row > 1:
        ws.print_title_rows = "1:2" if ws.title in LABELLED else "1:1"
        ws.print_title_cols = "A:A"
    ws.print_options.gridLines = False
    ws.page_margins.left = ws.page_margins.right = 0.4
