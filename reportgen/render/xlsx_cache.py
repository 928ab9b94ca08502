"""Save an openpyxl workbook with cached formula values, deterministically.

openpyxl writes every formula with an empty ``<v>``: a viewer that does not recalculate
(previews, ``pandas.read_excel``, openpyxl ``data_only``) then sees nothing, and LibreOffice with
its default settings keeps whatever cached value a cell has. So the saved package is rewritten:
each formula cell gets the value the engine computed (numbers as ``<v>``, text with ``t="str"``,
booleans ``t="b"``, errors ``t="e"``), every formula cell must get one and every value must land
on a formula cell. ``fullCalcOnLoad`` stays on so Excel recomputes anyway.

Deterministic bytes: docProps created/modified and every zip entry's timestamp are pinned to the
given moment, and entries keep openpyxl's order.
"""

from __future__ import annotations

import datetime as dt
import io
import math
import posixpath
import re
import zipfile
from collections.abc import Mapping
from xml.etree import ElementTree

from openpyxl.workbook.workbook import Workbook
from openpyxl.writer.excel import ExcelWriter


class XlError(str):
    """A spreadsheet error value, such as ``#N/A`` (stored with ``t="e"``)."""

    __slots__ = ()


CachedValue = float | int | str | bool
# sheet title → cell coordinate (e.g. "B7") → value
CachedValues = Mapping[str, Mapping[str, CachedValue]]

_NS = {
    "m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
    "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "rel": "http://schemas.openxmlformats.org/package/2006/relationships",
}
_FORMULA_CELL = re.compile(
    r'<c r="(?P<ref>[A-Z]+[0-9]+)"(?P<attrs>[^>]*)><f>(?P<f>[^<]*)</f>(?:<v\s*/>|<v></v>)?</c>'
)
_TYPE_ATTR = re.compile(r'\s+t="[^"]*"')


def _escape(text: str) -> str:
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\r", "&#13;")
    )


def encode(value: CachedValue) -> tuple[str, str]:
    """The ``t`` attribute (empty for numbers) and ``<v>`` text of a cached value."""
    if isinstance(value, XlError):
        return "e", _escape(value)
    if isinstance(value, bool):
        return "b", "1" if value else "0"
    if isinstance(value, str):
        return "str", _escape(value)
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"cannot cache the non-finite number {number}")
    if number.is_integer() and abs(number) < 2**53:
        return "", str(int(number))
    return "", repr(number)


def inject(xml: str, values: Mapping[str, CachedValue], sheet: str) -> str:
    """Put cached values into the formula cells of one worksheet's XML."""
    seen: set[str] = set()

    def fill(match: re.Match[str]) -> str:
        ref = match["ref"]
        if ref not in values:
            raise ValueError(f"{sheet}!{ref}: formula without a cached value")
        seen.add(ref)
        kind, text = encode(values[ref])
        attrs = _TYPE_ATTR.sub("", match["attrs"]) + (f' t="{kind}"' if kind else "")
        return f'<c r="{ref}"{attrs}><f>{match["f"]}</f><v>{text}</v></c>'

    result = _FORMULA_CELL.sub(fill, xml)
    stray = set(values) - seen
    if stray:
        raise ValueError(f"{sheet}: cached values for cells without a formula: {sorted(stray)}")
    return result


def sheet_parts(archive: zipfile.ZipFile) -> dict[str, str]:
    """Sheet title → its XML part name in the package."""
    book = ElementTree.fromstring(archive.read("xl/workbook.xml"))
    rels = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    targets = {r.get("Id"): r.get("Target", "") for r in rels.findall("rel:Relationship", _NS)}
    parts = {}
    for sheet in book.findall("m:sheets/m:sheet", _NS):
        target = targets[sheet.get(f"{{{_NS['r']}}}id")]
        part = target.lstrip("/") if target.startswith("/") else posixpath.join("xl", target)
        parts[sheet.get("name", "")] = posixpath.normpath(part)
    return parts


def package(wb: Workbook, values: CachedValues, when: dt.datetime) -> bytes:
    """The .xlsx bytes of ``wb`` with ``values`` cached in its formula cells."""
    wb.properties.created = when
    wb.properties.modified = when
    raw = io.BytesIO()
    ExcelWriter(wb, zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED, allowZip64=True)).save()
    stamp = (max(when.year, 1980), when.month, when.day, when.hour, when.minute, when.second)
    out = io.BytesIO()
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        by_part = {part: title for title, part in sheet_parts(src).items()}
        unknown = set(values) - set(by_part.values())
        if unknown:
            raise ValueError(f"cached values for unknown sheets {sorted(unknown)}")
        for info in src.infolist():
            data = src.read(info.filename)
            title = by_part.get(info.filename)
            if title is not None:
                data = inject(data.decode("utf-8"), values.get(title, {}), title).encode("utf-8")
            entry = zipfile.ZipInfo(info.filename, date_time=stamp)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o600 << 16
            dst.writestr(entry, data)
    return out.getvalue()
