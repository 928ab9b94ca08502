"""Writing one cell safely, and the few styles the workbook uses.

Text from a user (scenario names, catalog notes, any string) is always stored as a string cell,
never as a formula: openpyxl turns any value starting with "=" into a formula, so the type is
forced after the value is set, and a leading = + - @ tab or CR also gets Excel's quote prefix,
so the cell stays text when someone edits it.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from typing import Any

import pandas as pd
from openpyxl.cell.cell import Cell
from openpyxl.comments import Comment
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.formats import FORMATS, excel_format
from reportgen.labels import label
from reportgen.render.layout import letter

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")

INPUT_FILL = PatternFill("solid", fgColor="FFFFF2CC")  # light yellow: "edit me"
FIXED_FILL = PatternFill("solid", fgColor="FFEDEDED")  # light grey: a definition, not an input
HEADER_FILL = PatternFill("solid", fgColor="FFD9E1F2")
HEADER_FONT = Font(bold=True)
TITLE_FONT = Font(bold=True, size=14)
NOTE_FONT = Font(italic=True, color="FF595959")
WRAP = Alignment(wrap_text=True, vertical="top")
THIN_BOTTOM = Border(bottom=Side(style="thin", color="FF8EA9DB"))
COMMENT_AUTHOR = "reportgen"


def set_text(cell: Cell, text: str) -> None:
    """Store ``text`` as a string cell, whatever it starts with."""
    cell.value = text
    cell.data_type = "s"  # after the value: assigning a value resets the type
    if text.startswith(FORMULA_TRIGGERS):
        cell.quotePrefix = True


def set_formula(cell: Cell, formula: str) -> None:
    """Store a formula we generated (never user text)."""
    if not formula.startswith("="):
        raise ValueError(f"not a formula: {formula!r}")
    cell.value = formula
    cell.data_type = "f"


def is_blank(value: Any) -> bool:
    """True for the values a cell leaves empty: None, NaN, NA, ""."""
    if isinstance(value, str):
        return value == ""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def set_value(cell: Cell, value: Any) -> None:
    """Store a data value: blank stays blank, text as text, numbers as numbers."""
    if is_blank(value):
        return
    if isinstance(value, str):
        set_text(cell, value)
    elif isinstance(value, bool):
        cell.value = value
    elif isinstance(value, int | float) or hasattr(value, "item"):
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(f"cannot store {number} in {cell.coordinate}")
        cell.value = int(number) if number.is_integer() and abs(number) < 2**53 else number
    else:
        set_text(cell, str(value))


def number_format(unit: str) -> str | None:
    """Number format of a unit; None (General) for text, so formulas stay formulas, and for a
    unit formats.py does not know yet (tests/unit/test_workbook_structure.py flags those)."""
    if not unit or unit == "text" or unit not in FORMATS:
        return None
    return excel_format(unit)


def header_row(
    ws: Worksheet, row: int, names: Sequence[str], notes: Sequence[str] | None = None
) -> None:
    """Bold header cells; ``notes`` (unit and meaning) go into cell comments."""
    for i, name in enumerate(names, start=1):
        cell = ws.cell(row=row, column=i)
        set_text(cell, name)
        cell.font = HEADER_FONT
        cell.fill = HEADER_FILL
        cell.border = THIN_BOTTOM
        if notes is not None and notes[i - 1]:
            cell.comment = Comment(notes[i - 1], COMMENT_AUTHOR, height=120, width=320)


NAME_FONT = Font(size=8, italic=True, color="FF7F7F7F")
LABEL_ALIGNMENT = Alignment(wrap_text=True, vertical="bottom")
LABEL_ROW_HEIGHT_PT = 42.0  # three lines of a wrapped label


def labelled_header(
    ws: Worksheet, names: Sequence[str], notes: Sequence[str] | None = None, row: int = 1
) -> None:
    """A table's two header rows: ``row`` the reader's label of each column (wrapped, with the
    note as its comment), ``row + 1`` the column's machine name (the results column, the name
    in formulas and docs), small and grey. On a table-like sheet data starts on row 3
    (layout.FIRST_ROW)."""
    header_row(ws, row, [label(n) for n in names],
               [f"{n}: {note}" if note else n for n, note in
                zip(names, notes or [""] * len(names), strict=True)])
    for i, name in enumerate(names, start=1):
        ws.cell(row=row, column=i).alignment = LABEL_ALIGNMENT
        cell = ws.cell(row=row + 1, column=i)
        set_text(cell, name)
        cell.font = NAME_FONT
        cell.fill = HEADER_FILL
        cell.border = THIN_BOTTOM
    ws.row_dimensions[row].height = LABEL_ROW_HEIGHT_PT


def set_widths(ws: Worksheet, widths: Sequence[float]) -> None:
    """Column widths, in characters, from column A."""
    for i, width in enumerate(widths):
        ws.column_dimensions[letter(i)].width = width


LINE_HEIGHT_PT = 13.0


def display_width(text: str) -> int:
    """Characters ``text`` takes on screen: a wide (CJK) character takes two columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrap_across(ws: Worksheet, row: int, first: int, last: int, text: str, lines: int = 0) -> None:
    """Merge columns ``first``..``last`` (1-based) of ``row`` into one wrapped cell and make the
    row tall enough for ``text`` (or for ``lines`` lines), so a long sentence prints inside the
    sheet's columns instead of running past them."""
    width = sum(ws.column_dimensions[letter(c - 1)].width or 10.0 for c in range(first, last + 1))
    needed = lines or max(1, math.ceil(display_width(text) * 1.1 / max(width, 1.0)))
    ws.merge_cells(start_row=row, start_column=first, end_row=row, end_column=last)
    ws.cell(row=row, column=first).alignment = WRAP
    if needed > 1:
        ws.row_dimensions[row].height = LINE_HEIGHT_PT * needed
