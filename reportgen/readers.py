"""Read a scenario file (CSV or XLSX) into a raw table of cells. No interpretation here beyond
what the file format needs: encoding, delimiter, the sheet to read.

The raw table keeps every cell as the file had it (text, or a number from XLSX) together with the
row number a spreadsheet would show, so that validation can point at the exact cell. Cells are
held column by column (a :class:`Grid`), the shape validation checks them in.

The file is read through :func:`reportgen.inputfiles.read_input`: a regular file only, at most
MAX_INPUT_BYTES, never written.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import re
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import overload
from xml.parsers.expat import ExpatError

from reportgen import schema
from reportgen.errors import InputFileError, ScenarioFileError
from reportgen.inputfiles import InputFile, read_input
from reportgen.xlsx_input import FormulaWithoutValue, read_sheet

MAX_INPUT_BYTES = 200 * 1024 * 1024  # a 1,000,000-row CSV is about 100 MB
OLE_SIGNATURE = bytes.fromhex("D0CF11E0A1B11AE1")  # encrypted .xlsx and legacy .xls
ZIP_SIGNATURE = b"PK\x03\x04"  # .xlsx (and .ods, .zip)
UTF8_BOM = b"\xef\xbb\xbf"
_SEP_LINE = re.compile(r'^"?sep=(.)"?\r?$', re.IGNORECASE)  # Excel's "sep=;" first line
_FormulaWithoutValue = FormulaWithoutValue  # the name validation knows it by
_COLUMN_NAMES = frozenset(c.name for c in schema.COLUMNS)


class Grid(Sequence[tuple[int, list[object]]]):
    """Data rows held column by column: ``columns[j][i]`` is the cell of row ``numbers[i]``
    under header position ``j`` (None where the row has no cell there).

    ``extras`` holds, for the rows that have them, the cells right of the last header column
    ({row index: {column position: value}}): kept apart so that one stray cell far to the right
    costs one entry, not a column. Iterating gives ``(row number, cells)`` pairs, as
    ``RawTable.rows`` always has.
    """

    def __init__(self, numbers: list[int], columns: list[list[object]],
                 extras: dict[int, dict[int, object]] | None = None) -> None:
        self.numbers = numbers
        self.columns = columns
        self.extras = extras or {}

    @classmethod
    def from_rows(cls, rows: Sequence[tuple[int, Sequence[object]]], width: int) -> Grid:
        """A grid of ``width`` columns from (row number, cells) pairs."""
        numbers = [n for n, _ in rows]
        padded = [list(cells[:width]) + [None] * (width - len(cells)) for _, cells in rows]
        columns = [list(column) for column in zip(*padded, strict=True)] if padded else [
            [] for _ in range(width)]
        extras = {i: {j: cells[j] for j in range(width, len(cells)) if cells[j] is not None}
                  for i, (_, cells) in enumerate(rows) if len(cells) > width}
        return cls(numbers, columns, {i: e for i, e in extras.items() if e})

    def __len__(self) -> int:
        return len(self.numbers)

    @overload
    def __getitem__(self, i: int) -> tuple[int, list[object]]: ...
    @overload
    def __getitem__(self, i: slice) -> list[tuple[int, list[object]]]: ...
    def __getitem__(self, i: int | slice) -> tuple[int, list[object]] | list[
            tuple[int, list[object]]]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        cells = [column[i] for column in self.columns]
        extra = self.extras.get(i)
        if extra:
            cells += [None] * (max(extra) + 1 - len(cells))
            for j, value in extra.items():
                cells[j] = value
        return self.numbers[i], cells

    def __iter__(self) -> Iterator[tuple[int, list[object]]]:
        return (self[i] for i in range(len(self)))


@dataclass(frozen=True)
class RawTable:
    """Cells of a scenario file: a header and data rows, each with its spreadsheet row number."""

    source: str  # the name shown in messages
    header: list[str]
    rows: Sequence[tuple[int, list[object]]]  # a Grid when read from a file
    sha256: str
    delimiter: str = ","  # CSV only; ';' implies decimal commas are allowed
    kind: str = "csv"  # "csv" or "xlsx": what the file was, for the hints in messages
    merged: tuple[str, ...] = ()  # XLSX: merged ranges of the sheet ("B4:B6")
    origin: InputFile | None = field(default=None, compare=False)  # the file it was read from

    @functools.cached_property
    def grid(self) -> Grid:
        """The rows column by column (the rows themselves when they already are a Grid)."""
        if isinstance(self.rows, Grid):
            return self.rows
        width = len(self.header)
        while width and not self.header[width - 1]:
            width -= 1  # blank header cells at the end are no columns: cells there are extra
        return Grid.from_rows(self.rows, width)


def read_table(path: Path) -> RawTable:
    """Read ``path`` (by suffix: .csv/.txt/.tsv or .xlsx/.xlsm) into a RawTable.

    Raises ScenarioFileError, with what to do, for a missing, empty, unreadable, oversized,
    mis-encoded, encrypted, corrupt or hostile file.
    """
    source = str(path)
    try:
        data, origin = read_input(
            path, what="a .csv or .xlsx scenario file", limit=MAX_INPUT_BYTES,
            missing="Check the path, or run `reportgen build` without an argument to use "
                    "inputs/scenarios.csv.",
            too_big="(about 2,000,000 scenarios). Split the file.")
    except InputFileError as err:
        raise ScenarioFileError(str(err)) from None
    if not data:
        raise ScenarioFileError(
            f"{source} is empty (0 bytes); expected a header row with the column names and one "
            "row per scenario. Run `reportgen columns` to see the columns."
        )
    digest = hashlib.sha256(data).hexdigest()
    suffix = path.suffix.lower()
    if data.startswith(OLE_SIGNATURE):
        raise ScenarioFileError(
            f"{source} is a password-protected (encrypted) workbook or a legacy .xls file; "
            "remove the password (File > Info > Protect Workbook > Encrypt with Password, "
            "clear it) and save it as .xlsx, or save it as CSV UTF-8."
        )
    if suffix in (".xlsx", ".xlsm"):
        return _read_xlsx(source, data, digest, origin)
    if suffix in (".csv", ".txt", ".tsv"):
        if data.startswith(ZIP_SIGNATURE):
            raise ScenarioFileError(
                f"{source} is a zip archive (an Excel workbook?), not CSV text; rename it to "
                ".xlsx, or save it from Excel as 'CSV UTF-8 (comma delimited)'."
            )
        return _read_csv(source, data, digest, origin)
    if suffix == ".xls":
        raise ScenarioFileError(
            f"{source} is a legacy .xls workbook; save it as .xlsx or CSV UTF-8 and try again."
        )
    raise ScenarioFileError(
        f"{source}: unknown file type {suffix or '(no suffix)'}; expected .csv or .xlsx."
    )


# --- CSV ----------------------------------------------------------------------------------------


def _decode(source: str, data: bytes) -> str:
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ScenarioFileError(
            f"{source} is UTF-16 text (Excel's 'Unicode Text'); save it as 'CSV UTF-8 (comma "
            "delimited)' and try again."
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        guess, iconv = _guess_encoding(data)
        todo = ("Save it as 'CSV UTF-8 (comma delimited)' in Excel"
                + (f", or convert it: `iconv -f {iconv} -t UTF-8 in.csv > out.csv`." if iconv
                   else "."))
        raise ScenarioFileError(
            f"{source} is not UTF-8 text: byte 0x{data[err.start]:02X} on line {line} "
            f"cannot be read; it looks like {guess}. {todo}"
        ) from None


def _guess_encoding(data: bytes) -> tuple[str, str]:
    """What a non-UTF-8 file probably is, in words, and its iconv name ("" if not text)."""
    if b"\x00" in data[:4096]:
        return "a binary file, not text", ""
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        text = ""
    if text and any("\u4e00" <= ch <= "\u9fff" for ch in text):
        return "GBK/GB18030-encoded Chinese text", "GB18030"
    return "Latin-1 / Windows-1252 text", "WINDOWS-1252"


def _sniff_delimiter(first_line: str) -> str:
    counts = {d: first_line.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] > 0 else ","


def _read_csv(source: str, data: bytes, digest: str, origin: InputFile) -> RawTable:
    text = _decode(source, data)
    first_line, _, rest = text.partition("\n")
    sep = _SEP_LINE.match(first_line.strip())
    if sep:  # "sep=;" as the first line: Excel's hint of the delimiter, not part of the table
        delimiter, text = sep.group(1), rest
        first_line = rest.partition("\n")[0]
    else:
        delimiter = _sniff_delimiter(first_line)
    table = _plain_csv(text, delimiter) if '"' not in text and "\x00" not in text else None
    if table is None:
        records = _csv_records(source, text, delimiter, 1 if sep else 0)
        header = _header(records[0] if records else [])
        table = header, Grid.from_rows(list(enumerate(records[1:], start=2)), len(header))
    header, grid = _names_under_labels(*table)
    if not header:
        raise ScenarioFileError(
            f"{source} has no header row on line 1; expected the column names "
            "(scenario, model, gpu, peak_qps, ...)."
        )
    return RawTable(source, header, grid, digest, delimiter, origin=origin)


def _names_under_labels(header: list[str], grid: Grid) -> tuple[list[str], Grid]:
    """The header of a table written by reportgen: its Scenarios sheet has the reader's labels
    on row 1 and the column names on row 2 (in any language), so when the first data row is
    column names, scenario among them, it is the header and the labels above are skipped."""
    if not len(grid):
        return header, grid
    cells = ["" if c is None else str(c).strip() for c in grid[0][1]]
    names = [c for c in cells if c]
    if "scenario" not in names or not set(names) <= _COLUMN_NAMES:
        return header, grid
    shifted = {i - 1: extra for i, extra in grid.extras.items() if i > 0}
    return _header(cells), Grid(grid.numbers[1:], [c[1:] for c in grid.columns], shifted)


def _header(cells: Sequence[object]) -> list[str]:
    """Header cells as text, stripped, without the blank ones at the end."""
    header = ["" if c is None else str(c).strip() for c in cells]
    while header and not header[-1]:
        header.pop()
    return header


def _plain_csv(text: str, delimiter: str) -> tuple[list[str], Grid] | None:
    """The fast path for CSV without quotes: pandas' C tokenizer, column by column.

    Without a quote character CSV has no escaping, so this reads exactly what the csv module
    reads (tests compare the two); None when the file does not fit the fast path (a row with
    more cells than the first line, no lines at all): the csv module then reads it.
    """
    import pandas as pd

    try:
        frame = pd.read_csv(io.StringIO(text), sep=delimiter, header=None, dtype=str,
                            na_filter=False, keep_default_na=False, skip_blank_lines=False,
                            quoting=csv.QUOTE_NONE, engine="c", encoding_errors="strict")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError):
        return None
    columns: list[list[object]] = [frame[j].tolist() for j in frame.columns]
    header = _header([column[0] for column in columns])
    extras: dict[int, dict[int, object]] = {}
    for j in range(len(header), len(columns)):  # cells under blank header cells at the end
        for i, cell in enumerate(columns[j][1:]):
            if str(cell).strip():
                extras.setdefault(i, {})[j] = cell
    data = [column[1:] for column in columns[: len(header)]]
    return header, Grid(list(range(2, len(frame) + 1)), data, extras)


def _csv_records(source: str, text: str, delimiter: str, offset: int) -> list[list[str]]:
    """Every record, read by the csv module (strict about quotes); ScenarioFileError naming
    the line of the first bad record (``offset``: lines before ``text`` in the file)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    records: list[list[str]] = []
    done = 0  # the last line of the last complete record: a bad record starts after it
    try:
        for cells in reader:
            records.append(cells)
            done = reader.line_num
    except csv.Error as err:
        line = done + 1 + offset
        if "field larger than field limit" in str(err):
            after = text.split("\n", done)[-1] if done else text
            raise ScenarioFileError(_long_cell(source, line, after.count('"') % 2 == 1)
                                    ) from None
        raise ScenarioFileError(
            f"{source}, line {line}: not valid CSV ({err}); "
            'check the double quotes (") there: a quoted cell must end with a quote followed by '
            "the delimiter, or save the file again from a spreadsheet."
        ) from None
    return records


def _long_cell(source: str, line: int, unclosed: bool) -> str:
    limit = csv.field_size_limit()
    if unclosed:
        return (f'{source}, line {line}: a double quote (") opens a cell that is never closed, '
                f"so the rest of the file reads as one cell of more than {limit:,} characters; "
                "close the quote, or save the file again from a spreadsheet.")
    return (f"{source}, line {line}: a cell is longer than {limit:,} characters; the cells of "
            "a scenario file are names and numbers (at most 1,000 characters). Is it the right "
            "file?")


# --- XLSX ---------------------------------------------------------------------------------------


def _read_xlsx(source: str, data: bytes, digest: str, origin: InputFile) -> RawTable:
    try:
        sheet = read_sheet(source, data)
    except ScenarioFileError:
        raise
    except (ExpatError, ValueError, LookupError, EOFError, OSError, zipfile.BadZipFile,
            zlib.error, NotImplementedError, RecursionError) as err:  # a damaged or hostile file
        raise ScenarioFileError(_unreadable(source, err)) from None
    header, grid = _names_under_labels(
        _header(sheet.header), Grid(sheet.numbers, sheet.columns, sheet.extras))
    if not any(header):
        raise ScenarioFileError(
            f"{source}, sheet {sheet.name}: row 1 is empty; expected the column names "
            "(scenario, model, gpu, peak_qps, ...)."
        )
    return RawTable(f"{source} (sheet {sheet.name})", header, grid, digest, kind="xlsx",
                    merged=sheet.merged, origin=origin)


def _unreadable(source: str, err: BaseException) -> str:
    cause: BaseException | None = err
    while cause is not None:  # the parser's error may be wrapped in another
        if type(cause).__module__.startswith("defusedxml"):
            return (f"{source} contains XML that reportgen refuses to parse "
                    f"({type(cause).__name__}: entity or DTD declarations, as in an XML bomb); it "
                    "is not a workbook saved by a spreadsheet. Open it in Excel and save it again "
                    "as .xlsx, or use CSV.")
        cause = cause.__cause__ or cause.__context__
    detail = " ".join(str(err).split())  # one line
    return (f"{source} cannot be read as a workbook ({type(err).__name__}: {detail}); open it in "
            "Excel and save it again as .xlsx.")
