"""Read a scenario file (CSV or XLSX) into a raw table of cells. No interpretation here beyond
what the file format needs: encoding, delimiter, the sheet to read.

The raw table keeps every cell as the file had it (text, or a number from XLSX) together with the
row number a spreadsheet would show, so that validation can point at the exact cell.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import zipfile
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any

from reportgen.errors import ScenarioFileError

MAX_INPUT_BYTES = 200 * 1024 * 1024  # a 1,000,000-row CSV is about 100 MB
MAX_XLSX_UNCOMPRESSED_BYTES = 500 * 1024 * 1024  # refuse "zip bombs" before parsing
MAX_XLSX_MEMBERS = 10_000
MAX_XLSX_ROWS = 1_048_576  # Excel's own limit; a row number beyond it means a damaged file
OLE_SIGNATURE = bytes.fromhex("D0CF11E0A1B11AE1")  # encrypted .xlsx and legacy .xls
ZIP_SIGNATURE = b"PK\x03\x04"  # .xlsx (and .ods, .zip)
UTF8_BOM = b"\xef\xbb\xbf"
_SEP_LINE = re.compile(r'^"?sep=(.)"?\r?$', re.IGNORECASE)  # Excel's "sep=;" first line


@dataclass(frozen=True)
class RawTable:
    """Cells of a scenario file: a header and data rows, each with its spreadsheet row number."""

    source: str  # the name shown in messages
    header: list[str]
    rows: list[tuple[int, list[object]]]
    sha256: str
    delimiter: str = ","  # CSV only; ';' implies decimal commas are allowed
    kind: str = "csv"  # "csv" or "xlsx": what the file was, for the hints in messages


def read_table(path: Path) -> RawTable:
    """Read ``path`` (by suffix: .csv/.txt/.tsv or .xlsx/.xlsm) into a RawTable.

    Raises ScenarioFileError, with what to do, for a missing, empty, unreadable, oversized,
    mis-encoded, encrypted, corrupt or hostile file.
    """
    source = str(path)
    try:
        if not path.exists():
            raise ScenarioFileError(
                f"{source}: no such file. Check the path, or run `reportgen build` without an "
                "argument to use inputs/scenarios.csv."
            )
        if path.is_dir():
            raise ScenarioFileError(
                f"{source} is a folder; expected a .csv or .xlsx scenario file."
            )
        size = path.stat().st_size
        if size > MAX_INPUT_BYTES:
            raise ScenarioFileError(
                f"{source} is {size / 2**20:,.0f} MiB; the limit is "
                f"{MAX_INPUT_BYTES / 2**20:,.0f} MiB (about 2,000,000 scenarios). Split the file."
            )
        data = path.read_bytes()
    except OSError as err:
        raise ScenarioFileError(
            f"{source} cannot be read: {err.strerror or err}. Check that the file exists and "
            "that you may read it."
        ) from None
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
        return _read_xlsx(source, data, digest)
    if suffix in (".csv", ".txt", ".tsv"):
        if data.startswith(ZIP_SIGNATURE):
            raise ScenarioFileError(
                f"{source} is a zip archive (an Excel workbook?), not CSV text; rename it to "
                ".xlsx, or save it from Excel as 'CSV UTF-8 (comma delimited)'."
            )
        return _read_csv(source, data, digest)
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


def _read_csv(source: str, data: bytes, digest: str) -> RawTable:
    text = _decode(source, data)
    first_line, _, rest = text.partition("\n")
    sep = _SEP_LINE.match(first_line.strip())
    if sep:  # "sep=;" as the first line: Excel's hint of the delimiter, not part of the table
        delimiter, text = sep.group(1), rest
        first_line = rest.partition("\n")[0]
    else:
        delimiter = _sniff_delimiter(first_line)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    records: list[list[str]] = []
    done = 0  # the last line of the last complete record: a bad record starts after it
    try:
        for cells in reader:
            records.append(cells)
            done = reader.line_num
    except csv.Error as err:
        line = done + 1
        raise ScenarioFileError(
            f"{source}, line {line + (1 if sep else 0)}: not valid CSV ({err}); "
            'check the double quotes (") there: a quoted cell must end with a quote followed by '
            "the delimiter, or save the file again from a spreadsheet."
        ) from None
    if not records or not any(cell.strip() for cell in records[0]):
        raise ScenarioFileError(
            f"{source} has no header row on line 1; expected the column names "
            "(scenario, model, gpu, peak_qps, ...)."
        )
    header = [cell.strip() for cell in records[0]]
    rows: list[tuple[int, list[object]]] = [
        (n, list(cells)) for n, cells in enumerate(records[1:], start=2)
    ]
    return RawTable(source, header, rows, digest, delimiter)


# --- XLSX ---------------------------------------------------------------------------------------


def _check_archive(source: str, data: bytes) -> None:
    """Refuse what is not a plausible .xlsx before any XML is parsed.

    The expanded size is the sum of the sizes the archive declares; CPython's zipfile never
    inflates a member beyond its declared size, so a lying header cannot get past this.
    """
    if not data.startswith(ZIP_SIGNATURE) or not zipfile.is_zipfile(io.BytesIO(data)):
        raise ScenarioFileError(
            f"{source} is not a valid .xlsx file (not a zip archive); is it damaged, or a CSV "
            "file with the wrong suffix? Open it in Excel and save it again as .xlsx."
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as err:
        raise ScenarioFileError(
            f"{source} is a damaged .xlsx file ({err}); open it in Excel and save it again."
        ) from None
    expanded = sum(m.file_size for m in members)
    if len(members) > MAX_XLSX_MEMBERS or expanded > MAX_XLSX_UNCOMPRESSED_BYTES:
        raise ScenarioFileError(
            f"{source} expands to {expanded / 2**20:,.0f} MiB in {len(members):,} parts; the "
            f"limit is {MAX_XLSX_UNCOMPRESSED_BYTES / 2**20:,.0f} MiB and "
            f"{MAX_XLSX_MEMBERS:,} parts. It is not a scenario table; save the scenarios as CSV."
        )
    if not any(m.filename == "[Content_Types].xml" for m in members):
        raise ScenarioFileError(
            f"{source} is a zip archive but not an Excel workbook (an OpenDocument .ods?); "
            "save it as .xlsx (Excel Workbook) or CSV UTF-8."
        )


def _read_xlsx(source: str, data: bytes, digest: str) -> RawTable:
    _check_archive(source, data)
    import openpyxl  # deferred: only XLSX inputs pay for it

    if not openpyxl.DEFUSEDXML:
        raise ScenarioFileError(
            f"{source}: reading .xlsx needs the defusedxml package (it protects against hostile "
            "XML) and it is not installed; install it (`pip install defusedxml`) or use CSV."
        )
    try:
        values = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        formulas = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    except Exception as err:  # openpyxl raises many types for a damaged file
        raise ScenarioFileError(_unreadable(source, err)) from None
    try:
        names = {name.lower(): name for name in values.sheetnames}
        sheet_name = names.get("scenarios", values.sheetnames[0])
        header, rows = _xlsx_rows(source, values[sheet_name], formulas[sheet_name])
    except ScenarioFileError:
        raise
    except Exception as err:  # sheets are parsed lazily, while the rows are read
        raise ScenarioFileError(_unreadable(source, err)) from None
    finally:
        values.close()
        formulas.close()
    if not any(header):
        raise ScenarioFileError(
            f"{source}, sheet {sheet_name}: row 1 is empty; expected the column names "
            "(scenario, model, gpu, peak_qps, ...)."
        )
    return RawTable(f"{source} (sheet {sheet_name})", header, rows, digest, kind="xlsx")


def _unreadable(source: str, err: BaseException) -> str:
    cause: BaseException | None = err
    while cause is not None:  # openpyxl wraps the parser's error in its own
        if type(cause).__module__.startswith("defusedxml"):
            return (f"{source} contains XML that reportgen refuses to parse "
                    f"({type(cause).__name__}: entity or DTD declarations, as in an XML bomb); it "
                    "is not a workbook saved by a spreadsheet. Open it in Excel and save it again "
                    "as .xlsx, or use CSV.")
        cause = cause.__cause__ or cause.__context__
    detail = " ".join(str(err).split())  # one line
    return (f"{source} cannot be read as a workbook ({type(err).__name__}: {detail}); open it in "
            "Excel and save it again as .xlsx.")


def _xlsx_rows(source: str, value_sheet: Any, formula_sheet: Any
               ) -> tuple[list[str], list[tuple[int, list[object]]]]:
    """Header and non-empty rows of a sheet; formulas are never evaluated: a formula's cached
    value is used, and one without a cached value becomes a _FormulaWithoutValue."""
    for sheet in (value_sheet, formula_sheet):
        sheet.reset_dimensions()  # read the cells present, not the size the file declares
    value_rows = value_sheet.iter_rows(values_only=True)
    formula_rows = formula_sheet.iter_rows(values_only=True)
    header: list[str] = []
    rows: list[tuple[int, list[object]]] = []
    for n, (cells, raw) in enumerate(zip(value_rows, formula_rows, strict=False), start=1):
        if n > MAX_XLSX_ROWS:
            raise ScenarioFileError(
                f"{source} has rows beyond Excel's limit of {MAX_XLSX_ROWS:,}; the file is "
                "damaged or not a scenario table. Open it in Excel and save it again."
            )
        if n == 1:
            header = ["" if c is None else str(c).strip() for c in cells]
            continue
        if not cells and not raw:
            continue  # a row the file leaves out
        row: list[object] = []
        for value, original in zip_longest(cells, raw):
            if value is None and isinstance(original, str) and original.startswith("="):
                value = _FormulaWithoutValue(original)
            row.append(value)
        if any(v is not None and v != "" for v in row):
            rows.append((n, row))
    return header, rows


class _FormulaWithoutValue(str):
    """A formula cell with no saved result (the file was never opened in a spreadsheet)."""
