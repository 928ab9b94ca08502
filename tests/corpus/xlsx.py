"""Small hand-made .xlsx files for the bad-input corpus.

A workbook written byte by byte (five XML parts in a zip) can hold what openpyxl cannot write: a
formula with a cached value, a DTD, a damaged sheet, a row number beyond Excel's limit.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape


@dataclass(frozen=True)
class Formula:
    """A formula cell (``expression`` without '='), with the value a spreadsheet cached for it
    or none (a file written by a program that never calculated it)."""

    expression: str
    cached: str | int | float | None = None


Cell = str | int | float | Formula | None

_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" '
    'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
    "</Types>"
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'
)
_WORKBOOK = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="Scenarios" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
_WORKBOOK_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
)
_SHEET_HEAD = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>{doctype}'
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
)
_SHEET_TAIL = "</sheetData></worksheet>"


def _column(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _cell(ref: str, value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, Formula):
        body = f"<f>{escape(value.expression)}</f>"
        if value.cached is None:
            return f'<c r="{ref}">{body}</c>'
        if isinstance(value.cached, str):
            return f'<c r="{ref}" t="str">{body}<v>{escape(value.cached)}</v></c>'
        return f'<c r="{ref}">{body}<v>{value.cached!r}</v></c>'
    if isinstance(value, str):
        text = f'<t xml:space="preserve">{escape(value)}</t>'
        return f'<c r="{ref}" t="inlineStr"><is>{text}</is></c>'
    return f'<c r="{ref}"><v>{value!r}</v></c>'


def sheet_xml(rows: Sequence[Sequence[Cell]], *, first_row: int = 1, doctype: str = "",
              body: str = "") -> str:
    """The sheet part: ``rows`` from row ``first_row`` on, then ``body`` (raw XML) verbatim."""
    parts = [_SHEET_HEAD.format(doctype=doctype)]
    for n, cells in enumerate(rows, start=first_row):
        parts.append(f'<row r="{n}">')
        parts += [_cell(f"{_column(i)}{n}", v) for i, v in enumerate(cells)]
        parts.append("</row>")
    parts += [body, _SHEET_TAIL]
    return "".join(parts)


def workbook_bytes(sheet: str, *, extra: dict[str, bytes] | None = None,
                   content_types: bool = True) -> bytes:
    """A whole .xlsx with one sheet named Scenarios whose XML is ``sheet``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        members = {
            "[Content_Types].xml": _TYPES.encode(),
            "_rels/.rels": _RELS.encode(),
            "xl/workbook.xml": _WORKBOOK.encode(),
            "xl/_rels/workbook.xml.rels": _WORKBOOK_RELS.encode(),
            "xl/worksheets/sheet1.xml": sheet.encode(),
            **(extra or {}),
        }
        if not content_types:
            del members["[Content_Types].xml"]
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def table_bytes(rows: Sequence[Sequence[Cell]], **options: object) -> bytes:
    """A .xlsx whose Scenarios sheet holds ``rows`` (header first)."""
    return workbook_bytes(sheet_xml(rows), **options)  # type: ignore[arg-type]
