"""Writing the review workbook's cells: every formula with the value reportgen computed for it
(cached, as the budget workbook does), every number with its unit's format."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from openpyxl.worksheet.worksheet import Worksheet

from reportgen.render.cells import (
    HEADER_FONT,
    NOTE_FONT,
    TITLE_FONT,
    WRAP,
    header_row,
    number_format,
    set_formula,
    set_text,
    set_value,
)
from reportgen.render.xlsx_cache import CachedValue, XlError


class Sheet:
    """One worksheet and the cached values of its formula cells."""

    def __init__(self, ws: Worksheet) -> None:
        self.ws = ws
        self.cache: dict[str, CachedValue] = {}

    def formula(self, row: int, col: int, formula: str, value: Any, unit: str = "") -> str:
        """A formula with its computed value; returns the cell's address."""
        cell = self.ws.cell(row=row, column=col)
        set_formula(cell, formula)
        self._format(cell, unit)
        self.cache[cell.coordinate] = _cached(value)
        return str(cell.coordinate)

    def value(self, row: int, col: int, value: Any, unit: str = "") -> str:
        """A data value (blank for None/NaN, text as text); returns the cell's address."""
        cell = self.ws.cell(row=row, column=col)
        set_value(cell, value)
        if not isinstance(value, str):
            self._format(cell, unit)
        return str(cell.coordinate)

    def text(self, row: int, col: int, text: str, *, bold: bool = False, note: bool = False,
             wrap: bool = False) -> None:
        cell = self.ws.cell(row=row, column=col)
        set_text(cell, text)
        if bold:
            cell.font = HEADER_FONT
        if note:
            cell.font = NOTE_FONT
        if wrap:
            cell.alignment = WRAP

    def title(self, row: int, text: str) -> None:
        cell = self.ws.cell(row=row, column=1)
        set_text(cell, text)
        cell.font = TITLE_FONT

    def header(self, row: int, names: Sequence[str], notes: Sequence[str] | None = None) -> None:
        header_row(self.ws, row, names, notes)

    @staticmethod
    def _format(cell: Any, unit: str) -> None:
        fmt = number_format(unit) if unit else None
        if fmt:
            cell.number_format = fmt


def _cached(value: Any) -> CachedValue:
    if isinstance(value, str | bool):
        return value
    number = float(value)
    if not math.isfinite(number):
        return XlError("#DIV/0!")
    return number
