"""Read a scenario file (CSV or XLSX) into a raw table of cells. No interpretation here beyond
what the file format needs: encoding, delimiter, the sheet to read.

The raw table keeps every cell as the file had it (text, or a number from XLSX) together with the
row number a spreadsheet would show, so that validation can point at the exact cell.
"""

from __future__ import annotations

import csv
import hashlib
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

from reportgen.errors import ScenarioFileError

MAX_INPUT_BYTES = 200 * 1024 * 1024  # a 1,000,000-row CSV is about 100 MB
MAX_XLSX_UNCOMPRESSED_BYTES = 500 * 1024 * 1024  # refuse "zip bombs" before parsing
MAX_XLSX_MEMBERS = 10_000
OLE_SIGNATURE = bytes.fromhex("D0CF11E0A1B11AE1")  # encrypted .xlsx and legacy .xls
UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class RawTable:
    """Cells of a scenario file: a header and data rows, each with its spreadsheet row number."""

    source: str  # the name shown in messages
    header: list[str]
    rows: list[tuple[int, list[object]]]
    sha256: str
    delimiter: str = ","  # CSV only; ';' implies decimal commas are allowed


def read_table(path: Path) -> RawTable:
    """Read ``path`` (by suffix: .csv/.txt or .xlsx/.xlsm) into a RawTable."""
    source = str(path)
    if not path.exists():
        raise ScenarioFileError(
            f"{source}: no such file. Check the path, or run `reportgen build` without an "
            "argument to use inputs/scenarios.csv."
        )
    if path.is_dir():
        raise ScenarioFileError(f"{source} is a folder; expected a .csv or .xlsx scenario file.")
    size = path.stat().st_size
    if size == 0:
        raise ScenarioFileError(
            f"{source} is empty (0 bytes); expected a header row with the column names and one "
            "row per scenario. Run `reportgen columns` to see the columns."
        )
    if size > MAX_INPUT_BYTES:
        raise ScenarioFileError(
            f"{source} is {size / 2**20:,.0f} MiB; the limit is {MAX_INPUT_BYTES / 2**20:,.0f} MiB "
            "(about 2,000,000 scenarios). Split the file."
        )
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    suffix = path.suffix.lower()
    if suffix in (".xlsx", ".xlsm"):
        return _read_xlsx(source, data, digest)
    if suffix in (".csv", ".txt", ".tsv"):
        return _read_csv(source, data, digest)
    if suffix == ".xls" or data.startswith(OLE_SIGNATURE):
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
        guess = _guess_encoding(data)
        raise ScenarioFileError(
            f"{source} is not UTF-8 text: byte 0x{data[err.start]:02X} on line {line} "
            f"cannot be read; it looks like {guess}. Save it as 'CSV UTF-8' in Excel, or convert "
            "it (for example `iconv -f GBK -t UTF-8 in.csv > out.csv`)."
        ) from None


def _guess_encoding(data: bytes) -> str:
    if b"\x00" in data[:4096]:
        return "a binary file, not text"
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        text = ""
    if text and any("\u4e00" <= ch <= "\u9fff" for ch in text):
        return "GBK/GB18030-encoded Chinese text"
    return "Latin-1 / Windows-1252 text"


def _sniff_delimiter(first_line: str) -> str:
    counts = {d: first_line.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] > 0 else ","


def _read_csv(source: str, data: bytes, digest: str) -> RawTable:
    text = _decode(source, data)
    first_line = text.split("\n", 1)[0]
    delimiter = _sniff_delimiter(first_line)
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    except csv.Error as err:
        raise ScenarioFileError(f"{source} is not valid CSV: {err}.") from None
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
    if data.startswith(OLE_SIGNATURE):
        raise ScenarioFileError(
            f"{source} is password-protected (encrypted) or a legacy .xls file; remove the "
            "password (File ▸ Info ▸ Protect Workbook) and save it as .xlsx."
        )
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise ScenarioFileError(f"{source} is not a valid .xlsx file (not a zip archive); "
                                "is it corrupt, or a CSV with the wrong suffix?")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = archive.infolist()
        expanded = sum(m.file_size for m in members)
    if len(members) > MAX_XLSX_MEMBERS or expanded > MAX_XLSX_UNCOMPRESSED_BYTES:
        raise ScenarioFileError(
            f"{source} expands to {expanded / 2**20:,.0f} MiB in {len(members)} parts; the limit "
            f"is {MAX_XLSX_UNCOMPRESSED_BYTES / 2**20:,.0f} MiB. It is not a scenario table."
        )


def _read_xlsx(source: str, data: bytes, digest: str) -> RawTable:
    _check_archive(source, data)
    import openpyxl  # deferred: only XLSX inputs pay for it; uses defusedxml when installed

    try:
        values = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        formulas = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    except Exception as err:  # openpyxl raises many types for a damaged file
        raise ScenarioFileError(
            f"{source} cannot be read as a workbook ({type(err).__name__}: {err}); open it in "
            "Excel and save it again as .xlsx."
        ) from None
    names = {name.lower(): name for name in values.sheetnames}
    sheet_name = names.get("scenarios", values.sheetnames[0])
    value_rows = values[sheet_name].iter_rows(values_only=True)
    formula_rows = formulas[sheet_name].iter_rows(values_only=True)
    header: list[str] = []
    rows: list[tuple[int, list[object]]] = []
    for n, (cells, raw) in enumerate(zip(value_rows, formula_rows, strict=False), start=1):
        if n == 1:
            header = ["" if c is None else str(c).strip() for c in cells]
            continue
        row: list[object] = []
        for value, original in zip(cells, raw, strict=False):
            if value is None and isinstance(original, str) and original.startswith("="):
                value = _FormulaWithoutValue(original)
            row.append(value)
        rows.append((n, row))
    values.close()
    formulas.close()
    if not any(header):
        raise ScenarioFileError(
            f"{source}, sheet {sheet_name}: row 1 is empty; expected the column names "
            "(scenario, model, gpu, peak_qps, ...)."
        )
    return RawTable(f"{source} (sheet {sheet_name})", header, rows, digest)


class _FormulaWithoutValue(str):
    """A formula cell with no saved result (the file was never opened in a spreadsheet)."""
