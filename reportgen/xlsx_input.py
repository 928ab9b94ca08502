"""The cells of one sheet of a user's .xlsx workbook, read in one streaming pass within limits.

A workbook is a zip archive of XML parts. Before any XML is parsed, the archive's directory is
checked: number of parts, their expanded size, the size of the shared-strings part. The parts
are then parsed once by expat, defused as defusedxml defuses it (no entity declarations: no
"billion laughs", no external entities), without building a tree: handlers receive each element
as the parser meets it and keep only what is needed, so memory follows the table, not the file.
While parsing, the limits on shared strings (count and length), cell text (Excel's 32,767
characters) and cells are enforced, so a hostile file stops early instead of running long.

Formulas are never evaluated: a formula cell gives the value the spreadsheet saved with it, or a
FormulaWithoutValue when it has none. A number formatted as a date or time becomes a
datetime (so that a date typed into a numeric column is reported, not read as a day count).
Merged ranges are reported with the sheet, so that a blank cell inside one can be called what
it is.
"""

from __future__ import annotations

import datetime as dt
import io
import posixpath
import re
import zipfile
from dataclasses import dataclass
from typing import Any

from reportgen.errors import ScenarioFileError
from reportgen.inputfiles import describe_size, describe_sizes

MAX_XLSX_UNCOMPRESSED_BYTES = 500 * 1024 * 1024  # refuse "zip bombs" before parsing
MAX_XLSX_MEMBERS = 10_000
MAX_XLSX_ROWS = 1_048_576  # Excel's own limit; a row number beyond it means a damaged file
MAX_XLSX_COLUMNS = 16_384  # Excel's own limit (column XFD)
MAX_XLSX_CELLS = 5_000_000  # about 150,000 scenarios with every column filled
MAX_XLSX_SHARED_STRINGS = 1_000_000
MAX_XLSX_SHARED_STRINGS_BYTES = 64 * 1024 * 1024
MAX_XLSX_INLINE_TEXT_CHARS = 64 * 1024 * 1024  # text written in the cells themselves
MAX_XLSX_PART_BYTES = 32 * 1024 * 1024  # workbook, relationships, styles: small in any real file
MAX_CELL_CHARS = 32_767  # Excel's own limit for the text of a cell
ZIP_SIGNATURE = b"PK\x03\x04"
_READ = 1 << 20
_SHEET_KINDS = {"worksheet": "worksheet", "chartsheet": "chart sheet",
                "dialogsheet": "dialog sheet", "xlMacrosheet": "macro sheet",
                "xlIntlMacrosheet": "macro sheet"}


class FormulaWithoutValue(str):
    """A formula cell with no saved result (the file was never opened in a spreadsheet)."""


@dataclass(frozen=True)
class SheetCells:
    """What one sheet holds: its name; the cells of row 1 (the header); the other rows that
    hold anything, column by column (``columns[j][i]``: the cell under header position ``j``
    of row ``numbers[i]``, None if absent); the cells right of the header's last named column
    ({row index: {column: value}}); and its merged ranges ("B4:B6")."""

    name: str
    header: list[object]
    numbers: list[int]
    columns: list[list[object]]
    extras: dict[int, dict[int, object]]
    merged: tuple[str, ...] = ()


def _local(tag: str) -> str:
    """A tag or attribute name without its namespace prefix ("x:row" → "row")."""
    return tag.rpartition(":")[2]


def check_archive(source: str, data: bytes) -> zipfile.ZipFile:
    """The archive, if it is a plausible .xlsx within the limits; ScenarioFileError otherwise.

    The expanded size is the sum of the sizes the archive declares; CPython's zipfile never
    inflates a member beyond its declared size, so a lying header cannot get past this.
    """
    if not data.startswith(ZIP_SIGNATURE) or not zipfile.is_zipfile(io.BytesIO(data)):
        raise ScenarioFileError(
            f"{source} is not a valid .xlsx file (not a zip archive); is it damaged, or a CSV "
            "file with the wrong suffix? Open it in Excel and save it again as .xlsx."
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as err:
        raise ScenarioFileError(
            f"{source} is a damaged .xlsx file ({err}); open it in Excel and save it again."
        ) from None
    expanded = sum(m.file_size for m in members)
    if len(members) > MAX_XLSX_MEMBERS or expanded > MAX_XLSX_UNCOMPRESSED_BYTES:
        raise ScenarioFileError(
            f"{source} expands to {describe_size(expanded)} in {len(members):,} parts; the "
            f"limit is {describe_size(MAX_XLSX_UNCOMPRESSED_BYTES)} and "
            f"{MAX_XLSX_MEMBERS:,} parts. It is not a scenario table; save the scenarios as CSV."
        )
    if not any(m.filename == "[Content_Types].xml" for m in members):
        raise ScenarioFileError(
            f"{source} is a zip archive but not an Excel workbook (an OpenDocument .ods?); "
            "save it as .xlsx (Excel Workbook) or CSV UTF-8."
        )
    return archive


# --- the parts around the sheet ---------------------------------------------------------------


class _Tree:
    """Handlers keeping (tag, attributes) of the elements named ``keep``: for the small parts."""

    def __init__(self, keep: frozenset[str]) -> None:
        self.keep = keep
        self.elements: list[tuple[str, dict[str, str]]] = []

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        local = _local(tag)
        if local in self.keep:
            self.elements.append((local, attrib))

    def end(self, tag: str) -> None:
        pass

    def data(self, text: str) -> None:
        pass


def _forbid_entity(name: str, *args: object) -> None:
    from defusedxml import EntitiesForbidden

    raise EntitiesForbidden(name, None, None, None, None, None)


def _forbid_external(context: str, base: str | None, sysid: str | None, pubid: str | None
                     ) -> int:
    from defusedxml import ExternalReferenceForbidden

    raise ExternalReferenceForbidden(context, base, sysid, pubid)


def _parse(archive: zipfile.ZipFile, name: str, target: Any, source: str) -> None:
    """Stream part ``name`` through expat into ``target``'s start/end/data handlers.

    The parser is defused as defusedxml defuses it: any entity declaration and any external
    reference raises defusedxml's own exception, parameter entities are never parsed. Names
    are as written ("row", or "x:row" where the file gives the namespace a prefix): namespace
    processing would cost a third of the time of a sheet.
    """
    from xml.parsers import expat

    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.EntityDeclHandler = _forbid_entity
    parser.UnparsedEntityDeclHandler = _forbid_entity
    parser.ExternalEntityRefHandler = _forbid_external
    parser.buffer_text = True
    parser.buffer_size = 1 << 16
    parser.StartElementHandler = target.start
    parser.EndElementHandler = target.end
    parser.CharacterDataHandler = target.data
    try:
        with archive.open(name) as part:
            while chunk := part.read(_READ):
                parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except expat.ExpatError as err:
        raise ScenarioFileError(
            f"{source} cannot be read as a workbook: its part {name} is damaged XML ({err}); "
            "open it in Excel and save it again as .xlsx."
        ) from None


def _elements(archive: zipfile.ZipFile, name: str, source: str, *keep: str
              ) -> list[tuple[str, dict[str, str]]]:
    info = archive.getinfo(name)
    if info.file_size > MAX_XLSX_PART_BYTES:
        size, limit = describe_sizes(info.file_size, MAX_XLSX_PART_BYTES)
        raise ScenarioFileError(
            f"{source}: the part {name} expands to {size}; the limit is "
            f"{limit}. It was not saved by a spreadsheet; open it "
            "in Excel and save it again, or save the scenarios as CSV."
        )
    tree = _Tree(frozenset(keep))
    _parse(archive, name, tree, source)
    return tree.elements


def _relationships(archive: zipfile.ZipFile, part: str, source: str) -> dict[str, tuple[str, str]]:
    """{id: (kind, target path)} of a part's relationships (kind: the type's last segment)."""
    folder, base = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", base + ".rels")
    if rels not in archive.NameToInfo:
        return {}
    found = {}
    for tag, attrib in _elements(archive, rels, source, "Relationship"):
        if tag == "Relationship" and attrib.get("TargetMode") != "External":
            target = attrib.get("Target", "")
            path = (target.lstrip("/") if target.startswith("/")
                    else posixpath.normpath(posixpath.join(folder, target)))
            found[attrib.get("Id", "")] = (attrib.get("Type", "").rpartition("/")[2], path)
    return found


@dataclass
class _Book:
    sheets: list[tuple[str, str, str]]  # (name, kind, part)
    shared_strings: str | None
    styles: str | None
    date1904: bool


def _workbook(archive: zipfile.ZipFile, source: str) -> _Book:
    roots = [p for kind, p in _relationships(archive, "", source).values()
             if kind == "officeDocument"]
    book = roots[0] if roots else "xl/workbook.xml"
    if book not in archive.NameToInfo:
        raise ScenarioFileError(f"{source} has no workbook part ({book}); it is damaged or not "
                                "an Excel workbook. Open it in Excel and save it again.")
    rels = _relationships(archive, book, source)
    sheets: list[tuple[str, str, str]] = []
    date1904 = False
    for tag, attrib in _elements(archive, book, source, "workbookPr", "sheet"):
        if tag == "workbookPr":
            date1904 = attrib.get("date1904", "0").lower() in ("1", "true")
        elif tag == "sheet":
            rid = next((v for k, v in attrib.items() if k.endswith(":id")), "")
            kind, part = rels.get(rid, ("", ""))
            sheets.append((attrib.get("name", ""), _SHEET_KINDS.get(kind, "sheet"), part))
    by_kind = {kind: part for kind, part in rels.values()}
    return _Book(sheets, by_kind.get("sharedStrings"), by_kind.get("styles"), date1904)


def _choose_sheet(book: _Book, source: str) -> tuple[str, str]:
    """The sheet named Scenarios (any case), else the first worksheet: (name, part)."""
    for name, kind, part in book.sheets:
        if name.lower() == "scenarios":
            if kind != "worksheet":
                raise ScenarioFileError(
                    f'{source}: the sheet "{name}" is a {kind}, not a worksheet of cells; put the '
                    'scenarios in a worksheet named "Scenarios" (rename or delete the '
                    f"{kind}), or save them as CSV."
                )
            return name, part
    for name, kind, part in book.sheets:
        if kind == "worksheet":
            return name, part
    kinds = sorted({kind for _, kind, _ in book.sheets})
    raise ScenarioFileError(
        f"{source} has no worksheet of cells"
        + (f" (only {', '.join(k + 's' for k in kinds)})" if kinds else "")
        + '; put the scenarios in a worksheet named "Scenarios", or save them as CSV.'
    )


# Excel's built-in number formats that show a date or a time (ECMA-376 18.8.30; 27-36 and
# 50-58 are the East Asian date formats).
_BUILTIN_DATES = frozenset([*range(14, 23), *range(27, 37), *range(45, 48), *range(50, 59)])
_FORMAT_LITERALS = re.compile(r'".*?"|\[(?!hh?\]|mm?\]|ss?\])[^\]]*\]')  # "text", [Red]
_DATE_PART = re.compile(r"(?<![_\\])[dmhysDMHYS]")


def is_date_format(code: str) -> bool:
    """Whether a number format shows its number as a date or time (its first section holds a
    day, month, year, hour, minute or second outside quotes and brackets)."""
    return bool(_DATE_PART.search(_FORMAT_LITERALS.sub("", code.split(";")[0])))


def _date_styles(archive: zipfile.ZipFile, part: str | None, source: str) -> frozenset[int]:
    """Indexes of the cell formats that show a number as a date or time."""
    if part is None or part not in archive.NameToInfo:
        return frozenset()
    codes: dict[int, str] = {}
    formats: list[int] = []
    in_cell_formats = False
    for tag, attrib in _elements(archive, part, source, "numFmt", "cellXfs", "cellStyleXfs",
                                 "cellStyles", "dxfs", "xf"):
        if tag == "numFmt":
            codes[_int(attrib.get("numFmtId"))] = attrib.get("formatCode", "")
        elif tag == "cellXfs":
            in_cell_formats = True
        elif tag in ("cellStyleXfs", "cellStyles", "dxfs"):
            in_cell_formats = False
        elif tag == "xf" and in_cell_formats:
            formats.append(_int(attrib.get("numFmtId")))
    return frozenset(i for i, fmt in enumerate(formats)
                     if (is_date_format(codes[fmt]) if fmt in codes else fmt in _BUILTIN_DATES))


def _int(text: str | None) -> int:
    try:
        return int(text or 0)
    except ValueError:
        return 0


# --- shared strings ---------------------------------------------------------------------------


def _too_long(source: str, where: str, length: int) -> ScenarioFileError:
    return ScenarioFileError(
        f"{source}: {where} holds {length:,} characters; a cell holds at most "
        f"{MAX_CELL_CHARS:,} in Excel, so the file was not saved by a spreadsheet. Open it in "
        "Excel and save it again, or save the scenarios as CSV."
    )


class _SharedStrings:
    """Parser target collecting the shared strings (rich text joined, phonetic runs dropped)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.strings: list[str] = []
        self.parts: list[str] = []
        self.size = 0
        self.text = False  # inside a <t> that belongs to the string
        self.phonetic = False  # inside <rPh> (furigana): not part of the value

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        name = _local(tag)
        if name == "t":
            self.text = not self.phonetic
        elif name == "rPh":
            self.phonetic = True
        elif name == "si":
            self.parts, self.size = [], 0

    def data(self, text: str) -> None:
        if self.text:
            self.parts.append(text)
            self.size += len(text)
            if self.size > MAX_CELL_CHARS:
                raise _too_long(self.source, f"shared string {len(self.strings) + 1:,}",
                                self.size)

    def end(self, tag: str) -> None:
        name = _local(tag)
        if name == "t":
            self.text = False
        elif name == "rPh":
            self.phonetic = False
        elif name == "si":
            if len(self.strings) >= MAX_XLSX_SHARED_STRINGS:
                raise ScenarioFileError(
                    f"{self.source} has more than {MAX_XLSX_SHARED_STRINGS:,} different texts "
                    "(shared strings); that is not a scenario table. Save the scenarios as CSV."
                )
            self.strings.append("".join(self.parts))


def _shared_strings(archive: zipfile.ZipFile, part: str | None, source: str) -> list[str]:
    if part is None or part not in archive.NameToInfo:
        return []
    size = archive.getinfo(part).file_size
    if size > MAX_XLSX_SHARED_STRINGS_BYTES:
        texts, limit = describe_sizes(size, MAX_XLSX_SHARED_STRINGS_BYTES)
        raise ScenarioFileError(
            f"{source}: its texts (shared strings) expand to {texts}; the limit is "
            f"{limit}. It is not a scenario table; save "
            "the scenarios as CSV."
        )
    strings = _SharedStrings(source)
    _parse(archive, part, strings, source)
    return strings.strings


# --- the sheet --------------------------------------------------------------------------------


_COLUMN_OF: dict[str, int] = {}


def column_index(letters: str) -> int:
    """0-based index of a column name ("A" → 0, "AB" → 27); -1 if it is not one."""
    index = _COLUMN_OF.get(letters)
    if index is None:
        index = 0
        for ch in letters:
            if not "A" <= ch <= "Z":
                return -1
            index = index * 26 + ord(ch) - 64
        index -= 1
        if len(_COLUMN_OF) < 20_000:
            _COLUMN_OF[letters] = index
    return index


def _number(text: str) -> object:
    """The number a cell's value holds: an int if written as one, else a float; the text as
    written if it is not a number (for the message)."""
    if text.isdigit() or (text[0] == "-" and text[1:].isdigit()):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


class _Sheet:
    """Handlers turning a worksheet into rows of cell values, within the limits.

    The hot path: one start and one end call per element, dispatched by comparing the tag.
    """

    def __init__(self, source: str, strings: list[str], dates: frozenset[int],
                 epoch: dt.datetime) -> None:
        self.source, self.strings, self.dates, self.epoch = source, strings, dates, epoch
        self.header: list[object] = []
        self.width = 0  # header cells up to the last named one
        self.numbers: list[int] = []
        self.columns: list[list[object]] = []
        self.extras: dict[int, dict[int, object]] = {}
        self.merged: list[str] = []
        self.cells = 0
        self.inline_chars = 0
        self.row = 0
        self.values: list[tuple[int, object]] = []  # the current row's cells
        self.column = -1
        self.ref = ""
        self.type = "n"
        self.style = 0
        self.value: str | None = None
        self.formula: str | None = None
        self.inline: list[str] = []
        self.text: list[str] = []
        self.collect = False
        self.phonetic = False
        self.tags: tuple[str, ...] = ()

    def _bind(self, root: str) -> None:
        """Learn the namespace prefix of the sheet's elements from the root element."""
        prefix = root.rpartition(":")[0] + ":" if ":" in root else ""
        self.tags = tuple(prefix + t for t in ("c", "v", "row", "f", "t", "is", "rPh",
                                                "mergeCell"))

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if not self.tags:
            self._bind(tag)
            return
        c, v, row, f, t, _, rph, merge = self.tags
        if tag == c:
            self._cell_start(attrib)
        elif tag in (v, f):
            self.collect, self.text = True, []
        elif tag == row:
            self._row_start(attrib)
        elif tag == t:
            self.collect, self.text = not self.phonetic, []
        elif tag == rph:
            self.phonetic = True
        elif tag == merge:
            ref = attrib.get("ref", "")
            if ":" in ref and len(self.merged) < 100_000:
                self.merged.append(ref)

    def end(self, tag: str) -> None:
        if not self.collect and tag != self.tags[0] and tag != self.tags[2]:
            if tag == self.tags[6]:
                self.phonetic = False
            return
        c, v, row, f, t = self.tags[:5]
        if tag == v:
            self.value, self.collect = "".join(self.text), False
        elif tag == c:
            self._cell_end()
        elif tag == row:
            if self.values:
                self._row_end()
        elif tag == t:
            self.inline.append("".join(self.text))
            self.collect = False
        elif tag == f:
            self.formula, self.collect = "".join(self.text), False

    def data(self, text: str) -> None:
        if self.collect:
            self.text.append(text)

    def _row_start(self, attrib: dict[str, str]) -> None:
        given = attrib.get("r")
        number = _int(given) if given else self.row + 1
        if number <= self.row:
            number = self.row + 1  # rows out of order: a damaged file; keep them apart
        if number > MAX_XLSX_ROWS:
            raise ScenarioFileError(
                f"{self.source} has rows beyond Excel's limit of {MAX_XLSX_ROWS:,}; the file is "
                "damaged or not a scenario table. Open it in Excel and save it again."
            )
        self.row = number
        self.values = []
        self.column = -1

    def _row_end(self) -> None:
        """Keep the row: as the header (row 1), or in the columns if any cell holds something.
        Each column is padded with None only when a later row has a cell in it, so memory
        follows the cells, not rows × columns."""
        values, self.values = self.values, []
        if self.row == 1:
            header: list[object] = [None] * (max(c for c, _ in values) + 1)
            for column, value in values:
                header[column] = value
            named = [j for j, v in enumerate(header) if v is not None and str(v).strip()]
            self.header, self.width = header, (named[-1] + 1 if named else 0)
            self.columns = [[] for _ in range(self.width)]
            return
        if not any(v is not None and v != "" for _, v in values):
            return
        index = len(self.numbers)
        self.numbers.append(self.row)
        for column, value in values:
            if column < self.width:
                cells = self.columns[column]
                if len(cells) < index:
                    cells.extend([None] * (index - len(cells)))
                cells.append(value)
            else:
                self.extras.setdefault(index, {})[column] = value

    def finish(self) -> tuple[list[int], list[list[object]]]:
        """The row numbers and the columns, each padded to the number of rows."""
        n = len(self.numbers)
        for cells in self.columns:
            cells.extend([None] * (n - len(cells)))
        return self.numbers, self.columns

    def _cell_start(self, attrib: dict[str, str]) -> None:
        self.cells += 1
        if self.cells > MAX_XLSX_CELLS:
            raise ScenarioFileError(
                f"{self.source} has more than {MAX_XLSX_CELLS:,} cells; an .xlsx scenario file "
                "holds at most that many (about 150,000 scenarios with every column). Save "
                "the scenarios as CSV."
            )
        ref = attrib.get("r")
        if ref:
            self.ref = ref
            self.column = column_index(ref.rstrip("0123456789"))
        else:
            self.column += 1
            self.ref = ""
        if not 0 <= self.column < MAX_XLSX_COLUMNS:
            raise ScenarioFileError(
                f"{self.source}: a cell has the reference {ref!r}, beyond Excel's last column "
                "XFD; the file is damaged. Open it in Excel and save it again."
            )
        self.type = attrib.get("t", "n")
        style = attrib.get("s")
        self.style = _int(style) if style else 0
        self.value = self.formula = None
        if self.inline:
            self.inline = []

    def _cell_end(self) -> None:
        value = self._value()
        if value is not None:
            if isinstance(value, str) and self.type != "s":  # text in the cell itself
                if len(value) > MAX_CELL_CHARS:
                    where = f"cell {self.ref}" if self.ref else f"a cell in row {self.row}"
                    raise _too_long(self.source, where, len(value))
                self.inline_chars += len(value)
                if self.inline_chars > MAX_XLSX_INLINE_TEXT_CHARS:
                    raise ScenarioFileError(
                        f"{self.source} holds more than {MAX_XLSX_INLINE_TEXT_CHARS:,} "
                        "characters of text in its cells; that is not a scenario table. Save "
                        "the scenarios as CSV."
                    )
            self.values.append((self.column, value))

    def _value(self) -> object:
        kind, raw = self.type, self.value
        if raw is None:
            if kind == "inlineStr":
                return "".join(self.inline) if self.inline else None
            if self.formula is not None:
                return FormulaWithoutValue("=" + (self.formula or "(shared formula)"))
            return None
        if kind == "n":
            raw = raw.strip()
            if not raw:
                return None
            number = _number(raw)
            if self.style in self.dates and isinstance(number, int | float):
                return _as_date(number, self.epoch)
            return number
        if kind == "s":
            index = _int(raw)
            if not 0 <= index < len(self.strings):
                raise ScenarioFileError(
                    f"{self.source}: cell {self.ref} refers to text {index} of "
                    f"{len(self.strings):,}; the file is damaged. Open it in Excel and save it "
                    "again."
                )
            return self.strings[index]
        if kind == "b":
            return raw.strip() in ("1", "true")
        return raw  # str: a formula's text; e: an error value like #DIV/0!; d: an ISO date


_WINDOWS_EPOCH = dt.datetime(1899, 12, 30)
_MAC_EPOCH = dt.datetime(1904, 1, 1)


def _as_date(serial: float, epoch: dt.datetime) -> object:
    """The date and time a serial number shows in a date-formatted cell (Excel's 1900 system
    counts a 29 February 1900 that never was: serials below 60 are a day later)."""
    if epoch == _WINDOWS_EPOCH and 0 < serial < 60:
        serial += 1
    try:
        return epoch + dt.timedelta(days=round(serial * 86_400) / 86_400)
    except (OverflowError, ValueError):
        return serial


def read_sheet(source: str, data: bytes) -> SheetCells:
    """The cells of the sheet named Scenarios (any case), else of the first worksheet.

    Raises ScenarioFileError for anything that is not a plausible workbook within the limits.
    """
    sheet = _read(source, data, None)
    assert sheet is not None
    return sheet


def read_named_sheet(source: str, data: bytes, wanted: str) -> SheetCells | None:
    """The cells of the worksheet named ``wanted`` (any case), or None when the workbook has no
    worksheet of that name; otherwise as :func:`read_sheet`."""
    return _read(source, data, wanted)


def _read(source: str, data: bytes, wanted: str | None) -> SheetCells | None:
    archive = check_archive(source, data)
    with archive:
        book = _workbook(archive, source)
        if wanted is None:
            name, part = _choose_sheet(book, source)
        else:
            found = [(n, p) for n, kind, p in book.sheets
                     if n.lower() == wanted.lower() and kind == "worksheet"]
            if not found:
                return None
            name, part = found[0]
        if part not in archive.NameToInfo:
            raise ScenarioFileError(f"{source}: the sheet {name} has no cells part ({part}); "
                                    "the file is damaged. Open it in Excel and save it again.")
        dates = _date_styles(archive, book.styles, source)
        strings = _shared_strings(archive, book.shared_strings, source)
        epoch = _MAC_EPOCH if book.date1904 else _WINDOWS_EPOCH
        sheet = _Sheet(source, strings, dates, epoch)
        _parse(archive, part, sheet, source)
    numbers, columns = sheet.finish()
    return SheetCells(name, sheet.header, numbers, columns, sheet.extras, tuple(sheet.merged))
