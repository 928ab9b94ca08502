"""The bad-input corpus: every kind of bad, hostile or faulty input and what the user is told.

Each :class:`Rejected` case is a file in this folder, or one that ``make`` writes (binary cases
are built here so the corpus stays small and reviewable). ``reportgen build <file>`` run in the
file's folder must exit 2, print exactly ``message`` on stderr and write nothing. ``limits``
lowers a limit for the case (so a "zip bomb" need not be 500 MiB): ``NAME`` in
reportgen.readers, ``xlsx.NAME`` in reportgen.xlsx_input, ``validate.NAME`` in reportgen.validate.

Each :class:`Accepted` case must build (exit 0), print exactly ``warnings``, and produce results
that ``check`` accepts: inputs that look wrong but are fine (European Excel CSV, BOM, empty rows)
or that are infeasible rather than erroneous (reported in the results, never as an error).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from tests.corpus.xlsx import Cell, Formula, sheet_xml, table_bytes, workbook_bytes

CORPUS = Path(__file__).parent
NAMES = ["scenario", "model", "gpu", "peak_qps", "avg_prompt_tokens", "avg_output_tokens"]
HEADER: list[Cell] = list(NAMES)
GOOD: list[Cell] = ["chat", "Llama-3.1-8B", "H100", 10, 1000, 200]
COLUMNS_HINT = "Run `reportgen columns` to see every column, its unit and allowed values."
CSV_FIX = ("Save it as 'CSV UTF-8 (comma delimited)' in Excel, or convert it: "
           "`iconv -f {enc} -t UTF-8 in.csv > out.csv`.")
UNKNOWN_MODEL = ("expected a catalog model, a Hugging Face id, a config.json path, or the override "
                 "columns params_b, layers, attention_heads, kv_heads, head_dim")
UNKNOWN_GPU = ("expected a catalog GPU, or the override columns gpu_memory_gib, gpu_tflops, "
               "gpu_bandwidth_tbps and gpu_hour_price")
REOPEN = "Open it in Excel and save it again."


@dataclass(frozen=True)
class Rejected:
    """A bad input: ``reportgen build`` exits 2 with exactly ``message`` and writes nothing."""

    name: str
    what: str
    message: tuple[str, ...]
    make: Callable[[Path], None] | None = None
    limits: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Accepted:
    """An input that must build: exactly ``warnings`` on stderr, results passing ``check``."""

    name: str
    what: str
    check: Callable[[pd.DataFrame], None]
    warnings: tuple[str, ...] = ()
    make: Callable[[Path], None] | None = None


def _problems(source: str, *lines: str) -> tuple[str, ...]:
    n = len(lines)
    head = f"reportgen: {source} has {n} problem{'s' if n != 1 else ''}; nothing was written."
    return (head, *(f"  {line}" for line in lines), COLUMNS_HINT)


def _write(data: bytes) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        path.write_bytes(data)

    return write


def _folder(path: Path) -> None:
    path.mkdir()


def _copy_of_a_workbook(path: Path) -> None:
    path.write_bytes(table_bytes([HEADER, GOOD]))


def _truncated_workbook(path: Path) -> None:
    data = table_bytes([HEADER, GOOD])
    path.write_bytes(data[: len(data) // 2])


def _zip_bomb(path: Path) -> None:
    # 2 MiB of zeros deflate to 2 KiB; the test lowers the 500 MiB limit to 1 MiB.
    zeros = bytes(2 * 1024 * 1024)
    path.write_bytes(workbook_bytes(sheet_xml([HEADER, GOOD]), extra={"xl/media/0.bin": zeros}))


def _many_parts(path: Path) -> None:
    extra = {f"xl/media/{i}.bin": b"x" for i in range(20)}
    path.write_bytes(workbook_bytes(sheet_xml([HEADER, GOOD]), extra=extra))


_LAUGHS = (
    '<!DOCTYPE worksheet [<!ENTITY lol "lol">'
    '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
    '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
)


def _xml_bomb(path: Path) -> None:
    body = '<row r="3"><c r="A3" t="inlineStr"><is><t>&lol3;</t></is></c></row>'
    path.write_bytes(workbook_bytes(sheet_xml([HEADER, GOOD], doctype=_LAUGHS, body=body)))


def _external_entity(path: Path) -> None:
    doctype = '<!DOCTYPE worksheet [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'
    body = '<row r="3"><c r="A3" t="inlineStr"><is><t>&secret;</t></is></c></row>'
    path.write_bytes(workbook_bytes(sheet_xml([HEADER, GOOD], doctype=doctype, body=body)))


def _damaged_sheet(path: Path) -> None:
    sheet = sheet_xml([HEADER, GOOD]).replace("</sheetData></worksheet>", "<row r=")
    path.write_bytes(workbook_bytes(sheet))


def _no_content_types(path: Path) -> None:
    path.write_bytes(workbook_bytes(sheet_xml([HEADER, GOOD]), content_types=False))


def _row_beyond_limit(path: Path) -> None:
    # A cell on row 200 of a file whose row limit the test lowers to 100 (Excel's is 1,048,576).
    body = '<row r="200"><c r="A200"><v>1</v></c></row>'
    path.write_bytes(workbook_bytes(sheet_xml([HEADER, GOOD], body=body)))


def _formula_without_value(path: Path) -> None:
    path.write_bytes(table_bytes([
        HEADER,
        ["chat", "Llama-3.1-8B", "H100", Formula("B9*2"), 1000, 200],
        [Formula('"r"&"ag"'), "Llama-3.1-8B", "H100", 10, 1000, 200],
    ]))


def _empty_sheet(path: Path) -> None:
    path.write_bytes(table_bytes([]))


def _bad_xlsx_cells(path: Path) -> None:
    path.write_bytes(table_bytes([
        HEADER,
        ["chat", "Llama-3.1-8B", "H100", "#DIV/0!", 1000, 200],
        ["rag", "Llama-3.1-8B", "H100", -3, 10**400, 200],
    ]))


def _extra_cells(path: Path) -> None:
    path.write_bytes(table_bytes([HEADER, [*GOOD, None, "stray note"]]))


def _openpyxl_book(path: Path, build: Callable[[Any], None]) -> None:
    """A workbook saved by openpyxl, as a spreadsheet would write it; ``build`` fills it."""
    import openpyxl

    book = openpyxl.Workbook()
    build(book)
    book.save(path)


def _merged_cells(path: Path) -> None:
    def build(book: Any) -> None:
        sheet = book.active
        sheet.title = "Scenarios"
        for row in ([*NAMES, "tpot_slo_ms"], ["chat", "Llama-3.1-8B", "H100", 10, 1000, 200, 40],
                    ["rag", "Llama-3.1-8B", None, 4, 1000, 200, None],
                    ["bot", "Llama-3.1-8B", None, 2, 500, 100, None]):
            sheet.append(row)
        sheet.merge_cells("C2:C4")  # one GPU typed once for three rows
        sheet.merge_cells("G2:G4")  # one latency target for three rows

    _openpyxl_book(path, build)


def _chart_sheet(path: Path) -> None:
    def build(book: Any) -> None:
        book.active.title = "Data"
        book.active.append(list(NAMES))
        book.create_chartsheet("Scenarios")

    _openpyxl_book(path, build)


def _date_cell(path: Path) -> None:
    def build(book: Any) -> None:
        import datetime as dt

        sheet = book.active
        sheet.title = "Scenarios"
        sheet.append(list(NAMES))
        # Excel turns "1/2" typed into a cell into the 2nd of January: a date, not a rate.
        sheet.append(["chat", "Llama-3.1-8B", "H100", dt.datetime(2024, 1, 2), 1000, 200])

    _openpyxl_book(path, build)


def _long_xlsx_cell(path: Path) -> None:
    path.write_bytes(table_bytes([HEADER, [*GOOD, "x" * 40_000]]))


def _long_csv_cell(path: Path) -> None:
    note = "x" * 5_000_000
    path.write_text(",".join([*NAMES, "note"]) + '\n"chat",Llama-3.1-8B,H100,10,1000,200,'
                    + note + "\n", "utf-8")


def _unclosed_quote(path: Path) -> None:
    rows = "".join(f"s{i},Llama-3.1-8B,H100,10,1000,200\n" for i in range(30_000))
    path.write_text(",".join(NAMES) + '\n"chat,Llama-3.1-8B,H100,10,1000,200\n' + rows,
                    "utf-8")


def _ole(path: Path) -> None:
    # The first bytes of an OLE2 compound file: what Excel writes for a password-protected
    # workbook (and for legacy .xls); the rest does not matter to the reader.
    path.write_bytes(bytes.fromhex("D0CF11E0A1B11AE1") + bytes(504))


REJECTED: tuple[Rejected, ...] = (
    Rejected("missing.csv", "a file that does not exist", (
        "reportgen: missing.csv: no such file. Check the path, or run `reportgen build` without "
        "an argument to use inputs/scenarios.csv.",
    ), make=lambda path: None),
    Rejected("empty.csv", "an empty (0-byte) file", (
        "reportgen: empty.csv is empty (0 bytes); expected a header row with the column names "
        "and one row per scenario. Run `reportgen columns` to see the columns.",
    )),
    Rejected("blank_lines_only.csv", "only blank lines", (
        "reportgen: blank_lines_only.csv has no header row on line 1; expected the column names "
        "(scenario, model, gpu, peak_qps, ...).",
    )),
    Rejected("header_only.csv", "a header and no rows", (
        "reportgen: header_only.csv has a header but no scenario rows; add one row per scenario "
        "under the header.",
    )),
    Rejected("a_folder.csv", "a folder instead of a file", (
        "reportgen: a_folder.csv is a folder; expected a .csv or .xlsx scenario file.",
    ), make=_folder),
    Rejected("scenarios.json", "an unsupported file type", (
        "reportgen: scenarios.json: unknown file type .json; expected .csv or .xlsx.",
    )),
    Rejected("too_big.csv", "a file over the size limit (lowered to 100 bytes here)", (
        "reportgen: too_big.csv is 200 bytes; the limit is 100 bytes (about 2,000,000 "
        "scenarios). Split the file.",
    ), make=_write(b"x" * 200), limits={"MAX_INPUT_BYTES": 100}),
    Rejected("just_over.csv", "a file just over the size limit (its size in words would read "
             "as the limit's)", (
        "reportgen: just_over.csv is 20,600 bytes; the limit is 20,480 bytes (about 2,000,000 "
        "scenarios). Split the file.",
    ), make=_write(b"x" * 20_600), limits={"MAX_INPUT_BYTES": 20_480}),
    Rejected("gbk.csv", "GBK-encoded Chinese text", (
        "reportgen: gbk.csv is not UTF-8 text: byte 0xBF on line 2 cannot be read; it looks like "
        "GBK/GB18030-encoded Chinese text. " + CSV_FIX.format(enc="GB18030"),
    )),
    Rejected("latin1.csv", "Latin-1 text (é)", (
        "reportgen: latin1.csv is not UTF-8 text: byte 0xE9 on line 2 cannot be read; it looks "
        "like Latin-1 / Windows-1252 text. " + CSV_FIX.format(enc="WINDOWS-1252"),
    )),
    Rejected("utf16.csv", "UTF-16 text (Excel's 'Unicode Text')", (
        "reportgen: utf16.csv is UTF-16 text (Excel's 'Unicode Text'); save it as 'CSV UTF-8 "
        "(comma delimited)' and try again.",
    )),
    Rejected("bad_quotes.csv", "a quote that is never closed", (
        'reportgen: bad_quotes.csv, line 3: not valid CSV (unexpected end of data); check the '
        'double quotes (") there: a quoted cell must end with a quote followed by the delimiter, '
        "or save the file again from a spreadsheet.",
    )),
    Rejected("workbook.csv", "an .xlsx workbook saved with a .csv suffix", (
        "reportgen: workbook.csv is a zip archive (an Excel workbook?), not CSV text; rename it "
        "to .xlsx, or save it from Excel as 'CSV UTF-8 (comma delimited)'.",
    ), make=_copy_of_a_workbook),
    Rejected("password.xlsx", "a password-protected workbook (an OLE2 file)", (
        "reportgen: password.xlsx is a password-protected (encrypted) workbook or a legacy .xls "
        "file; remove the password (File > Info > Protect Workbook > Encrypt with Password, clear "
        "it) and save it as .xlsx, or save it as CSV UTF-8.",
    ), make=_ole),
    Rejected("legacy.xls", "a legacy .xls workbook", (
        "reportgen: legacy.xls is a password-protected (encrypted) workbook or a legacy .xls "
        "file; remove the password (File > Info > Protect Workbook > Encrypt with Password, clear "
        "it) and save it as .xlsx, or save it as CSV UTF-8.",
    ), make=_ole),
    Rejected("truncated.xlsx", "a corrupt (truncated) workbook", (
        "reportgen: truncated.xlsx is not a valid .xlsx file (not a zip archive); is it damaged, "
        "or a CSV file with the wrong suffix? Open it in Excel and save it again as .xlsx.",
    ), make=_truncated_workbook),
    Rejected("text.xlsx", "a CSV file with an .xlsx suffix", (
        "reportgen: text.xlsx is not a valid .xlsx file (not a zip archive); is it damaged, "
        "or a CSV file with the wrong suffix? Open it in Excel and save it again as .xlsx.",
    ), make=_write(b"scenario,model\nchat,x\n")),
    Rejected("not_excel.xlsx", "a zip archive that is not a workbook (like an .ods)", (
        "reportgen: not_excel.xlsx is a zip archive but not an Excel workbook (an OpenDocument "
        ".ods?); save it as .xlsx (Excel Workbook) or CSV UTF-8.",
    ), make=_no_content_types),
    Rejected("zip_bomb.xlsx", "an archive that expands beyond the limit (lowered to 1 MiB)", (
        "reportgen: zip_bomb.xlsx expands to 2 MiB in 6 parts; the limit is 1 MiB and 10,000 "
        "parts. It is not a scenario table; save the scenarios as CSV.",
    ), make=_zip_bomb, limits={"xlsx.MAX_XLSX_UNCOMPRESSED_BYTES": 1024 * 1024}),
    Rejected("many_parts.xlsx", "an archive with too many parts (limit lowered to 10)", (
        "reportgen: many_parts.xlsx expands to 2.3 KiB in 25 parts; the limit is 500 MiB and 10 "
        "parts. It is not a scenario table; save the scenarios as CSV.",
    ), make=_many_parts, limits={"xlsx.MAX_XLSX_MEMBERS": 10}),
    Rejected("xml_bomb.xlsx", "a sheet with nested XML entities ('billion laughs')", (
        "reportgen: xml_bomb.xlsx contains XML that reportgen refuses to parse "
        "(EntitiesForbidden: entity or DTD declarations, as in an XML bomb); it is not a "
        "workbook saved by a spreadsheet. Open it in Excel and save it again as .xlsx, or use "
        "CSV.",
    ), make=_xml_bomb),
    Rejected("external_entity.xlsx", "a sheet with an external entity (XXE) to a local file", (
        "reportgen: external_entity.xlsx contains XML that reportgen refuses to parse "
        "(EntitiesForbidden: entity or DTD declarations, as in an XML bomb); it is not a "
        "workbook saved by a spreadsheet. Open it in Excel and save it again as .xlsx, or use "
        "CSV.",
    ), make=_external_entity),
    Rejected("damaged_sheet.xlsx", "a workbook whose sheet XML is cut short", (
        "reportgen: damaged_sheet.xlsx cannot be read as a workbook: its part "
        "xl/worksheets/sheet1.xml is damaged XML (unclosed token: line 1, column 912); open it "
        "in Excel and save it again as .xlsx.",
    ), make=_damaged_sheet),
    Rejected("far_row.xlsx", "a cell beyond the row limit (lowered to 100)", (
        "reportgen: far_row.xlsx has rows beyond Excel's limit of 100; the file is damaged or "
        "not a scenario table. Open it in Excel and save it again.",
    ), make=_row_beyond_limit, limits={"xlsx.MAX_XLSX_ROWS": 100}),
    Rejected("empty_sheet.xlsx", "a workbook with an empty sheet", (
        "reportgen: empty_sheet.xlsx, sheet Scenarios: row 1 is empty; expected the column names "
        "(scenario, model, gpu, peak_qps, ...).",
    ), make=_empty_sheet),
    Rejected("formula_without_value.xlsx", "formulas never calculated (no cached value)",
             _problems(
        "formula_without_value.xlsx (sheet Scenarios)",
        'row 2 (scenario "chat"), column peak_qps: a formula "=B9*2" with no saved value; '
        "expected a value; formulas are never evaluated, only the value a spreadsheet saved "
        "with them is read; open the file in Excel or LibreOffice, save it, and try again.",
        'row 3, column scenario: a formula "=\"r\"&\"ag\"" with no saved value; '
        "expected a value; formulas are never evaluated, only the value a spreadsheet saved "
        "with them is read; open the file in Excel or LibreOffice, save it, and try again.",
    ), make=_formula_without_value),
    Rejected("bad_cells.xlsx", "an error value, a negative and an overflowing number in XLSX",
             _problems(
        "bad_cells.xlsx (sheet Scenarios)",
        'row 2 (scenario "chat"), column peak_qps: got "#DIV/0!"; expected a number > 0 and '
        "≤ 1,000,000 in req/s.",
        'row 3 (scenario "rag"), column peak_qps: got "-3" (too small); expected a number > 0 '
        "and ≤ 1,000,000 in req/s.",
        'row 3 (scenario "rag"), column avg_prompt_tokens: got "1' + "0" * 56 + '..." '
        "(infinite); expected a number ≥ 1 and ≤ 2,000,000 in tokens.",
    ), make=_bad_xlsx_cells),
    Rejected("extra_cells.xlsx", "a value right of the last named column", _problems(
        "extra_cells.xlsx (sheet Scenarios)",
        'row 2 (scenario "chat"): 8 cells but the header has 6 columns (cell 8 is "stray note"); '
        "expected no more cells than header columns; give the extra cells a column name in row "
        "1, or delete them.",
    ), make=_extra_cells),
    Rejected("missing_columns.csv", "required columns missing", _problems(
        "missing_columns.csv",
        "row 1: missing required columns peak_qps, avg_prompt_tokens, avg_output_tokens; "
        "expected a header row with at least scenario, model, gpu, peak_qps, avg_prompt_tokens, "
        "avg_output_tokens; column names are case-insensitive; see `reportgen columns`.",
    )),
    Rejected("misspelt_columns.csv", "headers close to a column: a hyphen, a shortened name, "
             "a unit after a line break, a zero-width space, a synonym", _problems(
        "misspelt_columns.csv",
        'row 1, column D: the header "peak-qps" is not a reportgen column; expected a column '
        'name from `reportgen columns`; did you mean "peak_qps"? Rename the header.',
        'row 1, column G: the header "tpot_ms" is not a reportgen column; expected a column name '
        'from `reportgen columns`; did you mean "tpot_slo_ms"? Rename the header.',
        'row 1, column H: the header "ttft_slo_ms\\n(ms)" is not a reportgen column (it holds '
        "U+000A (a line break)); expected a column name from `reportgen columns`; did you mean "
        '"ttft_slo_ms"? Rename the header, or delete the invisible characters.',
        'row 1, column I: the header "max_batch\\u200b" is not a reportgen column (it holds '
        "U+200B ZERO WIDTH SPACE); expected a column name from `reportgen columns`; did you mean "
        '"max_batch"? Rename the header, or delete the invisible characters.',
        'row 1, column J: the header "batch_size" is not a reportgen column; expected a column '
        'name from `reportgen columns`; did you mean "max_batch"? Rename the header.',
    ), make=_write(
        'scenario,model,gpu,peak-qps,avg_prompt_tokens,avg_output_tokens,tpot_ms,'
        '"ttft_slo_ms\n(ms)",max_batch\u200b,batch_size,comment\n'
        "chat,Llama-3.1-8B,H100,10,1000,200,40,500,64,64,hello\n".encode())),
    Rejected("duplicate_column.csv", "a column given twice", _problems(
        "duplicate_column.csv",
        "row 1, column peak_qps: the column appears twice; expected each column once; delete "
        "one of them.",
    )),
    Rejected("duplicate_names.csv", "two scenarios with the same name (case and spaces ignored)",
             _problems(
        "duplicate_names.csv",
        'row 4 (scenario "Chat"), column scenario: "Chat" is already used on row 2; expected a '
        "unique name per scenario.",
    )),
    Rejected("blank_required_cells.csv", "blank name, model, GPU and rate", _problems(
        "blank_required_cells.csv",
        "row 2, column scenario: the name is blank; expected a name for every scenario.",
        'row 3 (scenario "rag"), column model: the model is blank; expected a catalog name, a '
        "Hugging Face id or a path to config.json.",
        'row 4 (scenario "bot"), column gpu: the GPU is blank; expected a catalog GPU name.',
        'row 5 (scenario "qa"), column peak_qps: the cell is blank; expected a number > 0 and '
        "≤ 1,000,000 in req/s.",
    )),
    Rejected("text_in_numbers.csv", "text, units, underscores, % and TRUE in numeric columns",
             _problems(
        "text_in_numbers.csv",
        'row 2 (scenario "chat"), column peak_qps: got "ten"; expected a number > 0 and '
        "≤ 1,000,000 in req/s.",
        'row 3 (scenario "rag"), column peak_qps: got "10 req/s"; expected a number > 0 and '
        "≤ 1,000,000 in req/s.",
        'row 3 (scenario "rag"), column avg_prompt_tokens: got "1_000"; expected a number ≥ 1 '
        "and ≤ 2,000,000 in tokens.",
        'row 4 (scenario "bot"), column peak_qps: got "10%"; expected a number > 0 and ≤ 1,000,000 '
        "in req/s.",
        'row 4 (scenario "bot"), column avg_output_tokens: got "TRUE"; expected a number ≥ 1 '
        "and ≤ 2,000,000 in tokens.",
    )),
    Rejected("bad_numbers.csv", "negative, zero, NaN, infinite and over-100 % values", _problems(
        "bad_numbers.csv",
        'row 2 (scenario "neg"), column peak_qps: got "-5" (too small); expected a number > 0 '
        "and ≤ 1,000,000 in req/s.",
        'row 3 (scenario "zero"), column peak_qps: got "0" (too small); expected a number > 0 '
        "and ≤ 1,000,000 in req/s.",
        'row 3 (scenario "zero"), column avg_prompt_tokens: got "0" (too small); expected a '
        "number ≥ 1 and ≤ 2,000,000 in tokens.",
        'row 4 (scenario "nan"), column peak_qps: got "NaN" (not a number); expected a number '
        "> 0 and ≤ 1,000,000 in req/s.",
        'row 4 (scenario "nan"), column avg_output_tokens: got "nan" (not a number); expected a '
        "number ≥ 1 and ≤ 2,000,000 in tokens.",
        'row 5 (scenario "inf"), column peak_qps: got "inf" (infinite); expected a number > 0 '
        "and ≤ 1,000,000 in req/s.",
        'row 5 (scenario "inf"), column avg_prompt_tokens: got "-inf" (infinite); expected a '
        "number ≥ 1 and ≤ 2,000,000 in tokens.",
        'row 6 (scenario "rate"), column prefix_cache_hit_rate: got "150%" (too large); expected '
        "a number ≥ 0 and ≤ 0.99 in fraction.",
    )),
    Rejected("absurd_values.csv", "1e30 QPS, a 10M-token prompt, a 1e12 batch cap", _problems(
        "absurd_values.csv",
        'row 2 (scenario "qps"), column peak_qps: got "1e30" (too large); expected a number > 0 '
        "and ≤ 1,000,000 in req/s.",
        'row 3 (scenario "prompt"), column avg_prompt_tokens: got "10000000" (too large); '
        "expected a number ≥ 1 and ≤ 2,000,000 in tokens.",
        'row 4 (scenario "batch"), column max_batch: got "1e12" (too large); expected a whole '
        "number ≥ 1 and ≤ 100,000 in sequences.",
    )),
    Rejected("context_window.csv", "prompts beyond the model's context window", _problems(
        "context_window.csv",
        'row 2 (scenario "long"), column max_prompt_tokens: prompt + output = 202,000 tokens '
        "exceed Llama-3.1-8B's context window of 131,072 tokens; expected a sequence that fits "
        "the model's context window.",
        'row 3 (scenario "short"), column avg_prompt_tokens: prompt + output = 4,500 tokens '
        "exceed Llama-2-7B's context window of 4,096 tokens; expected a sequence that fits the "
        "model's context window.",
    )),
    Rejected("inconsistent_columns.csv", "average above peak, maximum below mean", _problems(
        "inconsistent_columns.csv",
        'row 2 (scenario "chat"), column avg_qps: the average rate is above the peak rate; '
        "expected avg_qps ≤ peak_qps.",
        'row 2 (scenario "chat"), column max_prompt_tokens: the maximum is below the mean; '
        "expected max_prompt_tokens ≥ avg_prompt_tokens.",
        'row 2 (scenario "chat"), column max_output_tokens: the maximum is below the mean; '
        "expected max_output_tokens ≥ avg_output_tokens.",
    )),
    Rejected("unknown_model_gpu.csv", "misspelt and unknown model and GPU names", _problems(
        "unknown_model_gpu.csv",
        f'row 2 (scenario "chat"), column model: unknown model "Lama-3.1-8B"; {UNKNOWN_MODEL}; '
        'did you mean "Llama-3.1-8B", "Llama-3-8B", "Llama-3.1-70B"?',
        f'row 3 (scenario "rag"), column gpu: unknown GPU "H10"; {UNKNOWN_GPU}; did you mean '
        '"H100-SXM", "A10", "H200-SXM"?',
        f'row 4 (scenario "bot"), column model: unknown model "totally-new-model"; '
        f"{UNKNOWN_MODEL}; run `reportgen catalog models`.",
        f'row 4 (scenario "bot"), column gpu: unknown GPU "TPU-v5"; {UNKNOWN_GPU}; run '
        "`reportgen catalog gpus`.",
    )),
    Rejected("tp_not_dividing.csv", "a TP that does not divide the heads, and TP 3", _problems(
        "tp_not_dividing.csv",
        'row 2 (scenario "qwen"), column tp: tp 8 does not divide Qwen2.5-7B\'s 28 attention '
        "heads / 4 KV heads; expected one of 1, 2, 4, a list of them, or blank for the cheapest.",
        'row 3 (scenario "three"), column tp: got "3" (not allowed); expected one of 1, 2, 4, 8, '
        "auto, or a list such as 2|4.",
    )),
    Rejected("bad_choices.csv", "a precision, engine and method that do not exist", _problems(
        "bad_choices.csv",
        'row 2 (scenario "chat"), column weight_dtype: got "fp9"; expected one of bf16, fp16, '
        'fp8, int8, int4, fp4, mxfp4, auto, or a list such as bf16|fp8; did you mean "fp8"?',
        'row 2 (scenario "chat"), column engine: got "vlm"; expected one of vllm, tensorrt-llm, '
        'sglang, auto, or a list such as vllm|sglang; did you mean "vllm"?',
        'row 3 (scenario "rag"), column method: got "magic"; expected one of roofline, '
        "tutorial.",
    )),
    Rejected("decimal_comma_in_comma_file.csv", "an unquoted decimal comma shifting the cells",
             _problems(
        "decimal_comma_in_comma_file.csv",
        'row 2 (scenario "chat"): 7 cells but the header has 6 columns (cell 7 is "200"); '
        "expected no more cells than header columns; a decimal comma in a comma-separated file "
        'shifts every cell after it: write 10.5, quote the cell ("10,5"), or separate the cells '
        "with ;.",
    )),
    Rejected("control_characters.csv", "invisible control characters (U+0001, NUL) in text",
             _problems(
        "control_characters.csv",
        'row 2 (scenario "chat\\x01"), column scenario: the text contains the control character '
        "U+0001; expected printable text; delete it (it may be invisible).",
        'row 3 (scenario "rag"), column model: the text contains the control character U+0000; '
        "expected printable text; delete it (it may be invisible).",
    )),
    Rejected("custom_model_inconsistent.csv", "override columns describing an impossible model",
             _problems(
        "custom_model_inconsistent.csv",
        'row 2 (scenario "custom"), column model: the model "my-model" cannot be defined: model '
        "'my-model': attention_heads is not a multiple of kv_heads; expected consistent override "
        "columns (attention_heads a multiple of kv_heads, active_params_b ≤ params_b).",
    )),
    Rejected("tiny_values.csv", "positive values too small to mean anything (5e-324, 1e-7)",
             _problems(
        "tiny_values.csv",
        'row 2 (scenario "chat"), column avg_qps: got "5e-324" (too small: below 1e-06); '
        "expected a number ≥ 1e-06 and ≤ 1,000,000 in req/s.",
        'row 2 (scenario "chat"), column mbu: got "1e-7" (too small: below 1e-06); expected a '
        "number ≥ 1e-06 and ≤ 1 in fraction.",
    )),
    Rejected("long_text.csv", "a 1,001-character scenario name", _problems(
        "long_text.csv",
        f'row 2 (scenario "{"x" * 57}..."), column scenario: the text is 1,001 characters long; '
        "expected at most 1,000 characters.",
    )),
    Rejected("too_many_models.csv", "more different models than allowed (limit lowered to 2)",
             _problems(
        "too_many_models.csv",
        'row 4 (scenario "c"), column model: "Mistral-7B" is one model too many; expected at '
        "most 2 different models in one file; split the file.",
    ), limits={"validate.MAX_DISTINCT_NAMES": 2}),
    Rejected("too_many_gpus.csv", "more user-defined GPUs than allowed (limit lowered to 1)",
             _problems(
        "too_many_gpus.csv",
        'row 3 (scenario "b"), column gpu: "gpu-2" is one user-defined GPU too many; expected '
        "at most 1 GPUs defined by override columns in one file; split the file.",
    ), limits={"validate.MAX_DEFINED": 1}),
    Rejected("missing_config_json.csv", "a model given as a config.json that does not exist",
             _problems(
        "missing_config_json.csv",
        'row 2 (scenario "local"), column model: models/missing/config.json: no such file; '
        "expected a readable Hugging Face config.json.",
    )),
    Rejected("invisible_names.csv", "names that are only invisible, the same in two Unicode "
             "forms or with invisible characters, and a right-to-left override", _problems(
        "invisible_names.csv",
        'row 3, column scenario: the name "\\u200b\\u200b" holds only '
        "invisible characters (U+200B ZERO WIDTH SPACE); expected a name a reader can see; type "
        "the name again.",
        'row 5 (scenario "Café"), column scenario: "Café" is already used on row 4 as '
        '"Café": they read the same and differ only in invisible characters, spacing or '
        "Unicode form; expected a unique name per scenario.",
        'row 6 (scenario "chat\\u200b"), column scenario: "chat\\u200b" is already used on row 2 '
        'as "chat": they read the same and differ only in invisible characters, spacing or '
        "Unicode form; expected a unique name per scenario.",
        'row 7 (scenario "\\u202etxt.exe"), column scenario: the text contains the invisible '
        "character U+202E RIGHT-TO-LEFT OVERRIDE, which shows the text in another order than it "
        "is written; expected text without bidirectional controls; delete it.",
    ), make=_write(",".join(NAMES).encode() + b"\n" + "".join(
        f"{name},Llama-3.1-8B,H100,10,1000,200\n"
        for name in ("chat", "\u200b\u200b", "Caf\u00e9", "Cafe\u0301", "chat\u200b",
                     "\u202etxt.exe")).encode())),
    Rejected("merged_cells.xlsx", "a GPU and a latency target typed once in merged cells",
             _problems(
        "merged_cells.xlsx (sheet Scenarios)",
        'row 3 (scenario "rag"), column gpu: the cell is inside the merged cells C2:C4, whose '
        'value "H100" belongs to C2 only; expected a value in each row\'s own cell; unmerge the '
        "cells (Excel: Home > Merge & Center > Unmerge Cells) and fill in every row.",
        'row 3 (scenario "rag"), column tpot_slo_ms: the cell is inside the merged cells G2:G4, '
        'whose value "40" belongs to G2 only; expected a value in each row\'s own cell; unmerge '
        "the cells (Excel: Home > Merge & Center > Unmerge Cells) and fill in every row.",
        'row 4 (scenario "bot"), column gpu: the cell is inside the merged cells C2:C4, whose '
        'value "H100" belongs to C2 only; expected a value in each row\'s own cell; unmerge the '
        "cells (Excel: Home > Merge & Center > Unmerge Cells) and fill in every row.",
        'row 4 (scenario "bot"), column tpot_slo_ms: the cell is inside the merged cells G2:G4, '
        'whose value "40" belongs to G2 only; expected a value in each row\'s own cell; unmerge '
        "the cells (Excel: Home > Merge & Center > Unmerge Cells) and fill in every row.",
    ), make=_merged_cells),
    Rejected("chart_sheet.xlsx", "a chart sheet named Scenarios", (
        'reportgen: chart_sheet.xlsx: the sheet "Scenarios" is a chart sheet, not a worksheet of '
        'cells; put the scenarios in a worksheet named "Scenarios" (rename or delete the chart '
        "sheet), or save them as CSV.",
    ), make=_chart_sheet),
    Rejected("date_cell.xlsx", "a date where a rate is expected (Excel's reading of 1/2)",
             _problems(
        "date_cell.xlsx (sheet Scenarios)",
        'row 2 (scenario "chat"), column peak_qps: got "2024-01-02 00:00:00"; expected a number '
        "> 0 and ≤ 1,000,000 in req/s.",
    ), make=_date_cell),
    Rejected("long_cell.xlsx", "a cell longer than Excel allows (40,000 characters)", (
        "reportgen: long_cell.xlsx: cell G2 holds 40,000 characters; a cell holds at most "
        "32,767 in Excel, so the file was not saved by a spreadsheet. Open it in Excel and save "
        "it again, or save the scenarios as CSV.",
    ), make=_long_xlsx_cell),
    Rejected("long_cell.csv", "a 5,000,000-character cell in a file with quotes", (
        "reportgen: long_cell.csv, line 2: a cell is longer than 131,072 characters; the cells "
        "of a scenario file are names and numbers (at most 1,000 characters). Is it the right "
        "file?",
    ), make=_long_csv_cell),
    Rejected("unclosed_quote.csv", "a quote never closed, 30,000 rows before the end", (
        'reportgen: unclosed_quote.csv, line 2: a double quote (") opens a cell that is never '
        "closed, so the rest of the file reads as one cell of more than 131,072 characters; "
        "close the quote, or save the file again from a spreadsheet.",
    ), make=_unclosed_quote),
)


# --- accepted -----------------------------------------------------------------------------------


def _many_unknown_columns(path: Path) -> None:
    notes = [f"note {i}" for i in range(10_000)]
    path.write_text(",".join([*NAMES, *notes]) + "\n"
                    + ",".join(["chat", "Llama-3.1-8B", "H100", "10", "1000", "200", *notes])
                    + "\n", "utf-8")


def _european(results: pd.DataFrame) -> None:
    chat, rag = results.iloc[0], results.iloc[1]
    assert (chat["peak_qps"], chat["avg_qps"], chat["avg_prompt_tokens"]) == (12.5, 2.5, 1500)
    assert (chat["prefix_cache_hit_rate"], chat["gpu_hour_price"]) == (0.25, 2.75)
    assert (rag["peak_qps"], rag["avg_prompt_tokens"], rag["prefix_cache_hit_rate"]) == (
        1000, 2000, 0.35)


def _sep_line(results: pd.DataFrame) -> None:
    assert results["peak_qps"].tolist() == [7.5]


def _one_chat(results: pd.DataFrame) -> None:
    assert results["scenario"].tolist() == ["chat"]
    assert results["peak_qps"].tolist() == [10]


def _two_rows(results: pd.DataFrame) -> None:
    assert results["scenario"].tolist() == ["chat", "rag"]


def _infeasible(results: pd.DataFrame) -> None:
    rows = {str(r["scenario"]): r for r in results.to_dict(orient="records")}
    assert rows["too-big"]["bottleneck"] == "weights_do_not_fit"
    assert "The weights do not fit" in str(rows["too-big"]["notes"])
    assert rows["too-fast"]["bottleneck"] == "slo_unreachable"
    assert "No batch meets the latency targets" in str(rows["too-fast"]["notes"])
    assert float(rows["fine"]["gpus"]) >= 1
    assert rows["fine"]["bottleneck"] not in ("weights_do_not_fit", "slo_unreachable")


def _fp4(results: pd.DataFrame) -> None:
    row = results.iloc[0]
    assert row["weight_dtype"] == "fp4" and row["compute_dtype"] != "fp4"
    assert "no tensor cores for the weight precision" in row["notes"]
    assert "weight-only" in row["notes"]


# Leading tab and CR are stripped like any surrounding space, so "\tTab" arrives as "Tab";
# the model "=1+1" and GPU "@gpu" are user-defined (override columns) and keep their names.
# The last name is HTML, to check that the PDF (rendered from HTML) shows it as text.
INJECTION_NAMES = ('=HYPERLINK("http://x","y")', "+1+1", "-2+3", "@SUM(A1)", "Tab", "CR",
                   "custom", "<img src='file:///etc/hostname'><b>bold</b> &amp; x")
INJECTION_TEXT = (*INJECTION_NAMES[:4], INJECTION_NAMES[-1], "=1+1", "@gpu")


def _injection(results: pd.DataFrame) -> None:
    assert tuple(results["scenario"]) == INJECTION_NAMES
    assert results["model"].iloc[-2] == "=1+1"
    assert results["gpu"].iloc[-2] == "@gpu"


def _cached_formulas(results: pd.DataFrame) -> None:
    assert results["scenario"].tolist() == ["chat", "rag"]
    assert results["peak_qps"].tolist() == [10, 4]


def _cached_formula_book(path: Path) -> None:
    path.write_bytes(table_bytes([
        HEADER,
        ["chat", "Llama-3.1-8B", "H100", Formula("5*2", 10), 1000, 200],
        [Formula('"r"&"ag"', "rag"), "Llama-3.1-8B", "H100", Formula("SUM(D2)/2.5", 4.0), 1000,
         200],
    ]))


def _xlsx_with_gaps(path: Path) -> None:
    # Empty rows in between, an empty row far below, numbers typed as text.
    path.write_bytes(workbook_bytes(sheet_xml(
        [HEADER, GOOD, [None], ["rag", "Llama-3.1-8B", "H100", "10", "1000", "200"]],
        body='<row r="5000"></row>')))


ACCEPTED: tuple[Accepted, ...] = (
    Accepted("european_excel.csv", "semicolons, decimal commas, 1.000 thousands, BOM, CRLF, %",
             _european),
    Accepted("sep_line.csv", "Excel's 'sep=;' first line", _sep_line),
    Accepted("utf8_bom.csv", "UTF-8 with a byte-order mark", _one_chat),
    Accepted("unknown_column.csv", "a column about something else: ignored with a warning",
             _one_chat, warnings=(
        'reportgen: warning: unknown_column.csv: column "comment" is not a reportgen column and '
        "is ignored",
    )),
    Accepted("many_unknown_columns.csv", "10,000 unrelated columns: one summarised warning",
             _one_chat, warnings=(
        "reportgen: warning: many_unknown_columns.csv: 10,000 columns are not reportgen columns "
        'and are ignored, the first 5: "note 0", "note 1", "note 2", "note 3", "note 4"',
    ), make=_many_unknown_columns),
    Accepted("empty_rows.csv", "empty and whitespace-only rows are skipped", _two_rows),
    Accepted("infeasible.csv", "weights that fit no TP and an SLO no batch meets", _infeasible),
    Accepted("fp4_on_hopper.csv", "fp4 weights on a GPU without fp4 tensor cores", _fp4),
    Accepted("formula_injection.csv", "names starting with = + - @ tab CR stay text",
             _injection, warnings=(
        'reportgen: warning: formula_injection.csv: column "comment" is not a reportgen column '
        "and is ignored",
    )),
    Accepted("cached_formulas.xlsx", "formulas with cached values: the values are used",
             _cached_formulas, make=_cached_formula_book),
    Accepted("gaps.xlsx", "XLSX with empty rows and numbers stored as text", _two_rows,
             make=_xlsx_with_gaps),
)
