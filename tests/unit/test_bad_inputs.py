"""Every kind of bad input in tests/corpus gets exactly its message, exit code 2 and no output;
inputs that only look wrong build, and infeasible scenarios are results, not errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from reportgen import inputfiles, readers, validate, xlsx_input
from reportgen.cli import main
from reportgen.errors import ScenarioFileError
from reportgen.render.layout import FIRST_ROW
from tests.corpus.cases import (
    ACCEPTED,
    CORPUS,
    GOOD,
    HEADER,
    INJECTION_NAMES,
    INJECTION_TEXT,
    NAMES,
    REJECTED,
    Accepted,
    Rejected,
)
from tests.corpus.xlsx import table_bytes


def _place(case: Rejected | Accepted, folder: Path) -> Path:
    """Put the case's file in ``folder`` (copied from the corpus, or made by the case)."""
    folder.mkdir(exist_ok=True)
    path = folder / case.name
    if case.make is not None:
        case.make(path)
    else:
        shutil.copyfile(CORPUS / case.name, path)
    return path


@pytest.mark.parametrize("case", REJECTED, ids=[c.name for c in REJECTED])
def test_bad_input_exits_2_with_its_message_and_writes_nothing(
    case: Rejected, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _place(case, tmp_path / "in")
    for name, value in case.limits.items():
        module, _, attribute = name.rpartition(".")
        monkeypatch.setattr({"": readers, "xlsx": xlsx_input, "validate": validate}[module],
                            attribute, value)
    monkeypatch.chdir(path.parent)  # messages name the file as the user typed it
    out = tmp_path / "out"
    code = main(["build", case.name, "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert captured.err.splitlines() == list(case.message)
    assert "Traceback" not in captured.err
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("case", ACCEPTED, ids=[c.name for c in ACCEPTED])
def test_input_that_only_looks_wrong_builds(
    case: Accepted, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _place(case, tmp_path / "in")
    monkeypatch.chdir(path.parent)
    out = tmp_path / "out"
    code = main(["build", case.name, "--out", str(out), "--format", "csv"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.err.splitlines() == list(case.warnings)
    results = pd.read_csv(out / f"{path.stem}-results.csv", keep_default_na=False,
                          na_values=[""])
    case.check(results)


def test_every_corpus_file_is_a_listed_case() -> None:
    cases: list[Rejected | Accepted] = [*REJECTED, *ACCEPTED]
    listed = {c.name for c in cases if c.make is None}
    on_disk = {p.name for p in CORPUS.iterdir() if p.suffix in (".csv", ".json", ".xlsx")}
    assert on_disk == listed
    assert all(p.stat().st_size < 50_000 for p in CORPUS.iterdir())


def test_validate_and_estimate_report_the_same_problems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    case = next(c for c in REJECTED if c.name == "bad_numbers.csv")
    _place(case, tmp_path)
    monkeypatch.chdir(tmp_path)
    for command in ("validate", "estimate"):
        assert main([command, case.name]) == 2
        captured = capsys.readouterr()
        assert captured.err.splitlines() == list(case.message)
        assert captured.out == ""


def test_thousands_of_bad_cells_show_the_first_200_and_a_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    lines = [",".join(NAMES)] + [f"s{i},Llama-3.1-8B,H100,-1,1000,200" for i in range(1000)]
    (tmp_path / "many.csv").write_text("\n".join(lines) + "\n")
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "many.csv"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "reportgen: many.csv has 1,000 problems; nothing was written."
    assert err[1].startswith('  row 2 (scenario "s0"), column peak_qps: got "-1" (too small)')
    assert err[-2] == ("  ... and 800 more (the first 200 are shown); fix these and run "
                       "`reportgen validate` again.")
    assert len(err) == 1 + 200 + 2


# --- XLSX is parsed safely ------------------------------------------------------------------------


def test_openpyxl_parses_with_defusedxml() -> None:
    assert openpyxl.DEFUSEDXML is True


def test_a_real_zip_bomb_is_refused_before_any_xml_is_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A member whose header declares more than the real limit: refused from the directory
    alone, without inflating anything (the archive itself is tiny)."""
    data = bytearray(table_bytes([HEADER, GOOD]))
    name = b"xl/worksheets/sheet1.xml"
    entry = data.find(b"PK\x01\x02")  # central directory entries: name at +46, size at +24
    while data[entry + 46: entry + 46 + len(name)] != name:
        entry = data.find(b"PK\x01\x02", entry + 4)
        assert entry >= 0
    data[entry + 24: entry + 28] = (600 * 1024 * 1024).to_bytes(4, "little")
    path = tmp_path / "bomb.xlsx"
    path.write_bytes(bytes(data))
    parsed: list[object] = []
    monkeypatch.setattr(xlsx_input, "_parse", lambda *a, **k: parsed.append(a))
    with pytest.raises(ScenarioFileError, match="expands to 600 MiB in 5 parts"):
        readers.read_table(path)
    assert not parsed
    assert path.stat().st_size < 50_000


def test_unreadable_file_is_a_user_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "locked.csv"
    path.write_text(",".join(NAMES) + "\n")

    def refuse(path: Path) -> int:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(inputfiles, "_open", refuse)
    monkeypatch.chdir(tmp_path)
    assert main(["build", "locked.csv", "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "reportgen: locked.csv cannot be read: Permission denied. Check that the file exists "
        "and that you may read it.",
    ]


# --- nothing injected in the workbook and the PDF ---------------------------------------------


@pytest.mark.slow
def test_user_text_is_text_in_the_workbook_and_the_pdf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Names starting with = + - @ are written as text cells (never formulas) in the workbook,
    the Plan sheet shows them as text, and the PDF shows HTML in a name as characters."""
    pytest.importorskip("reportgen.render.workbook")
    pytest.importorskip("reportgen.render.pdf")
    pypdf = pytest.importorskip("pypdf")
    case = next(c for c in ACCEPTED if c.name == "formula_injection.csv")
    _place(case, tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["build", case.name, "--out", "out"]) == 0
    capsys.readouterr()
    book = openpyxl.load_workbook(tmp_path / "out" / "formula_injection.xlsx")
    cached = openpyxl.load_workbook(tmp_path / "out" / "formula_injection.xlsx", data_only=True)
    text_cells = {(ws.title, c.value) for ws in book.worksheets for row in ws.iter_rows()
                  for c in row if c.data_type == "s"}
    for name in INJECTION_NAMES:
        assert ("Scenarios", name) in text_cells, name
    assert ("Models", "=1+1") in text_cells and ("GPUs", "@gpu") in text_cells
    formulas = [str(c.value) for ws in book.worksheets for row in ws.iter_rows() for c in row
                if c.data_type == "f"]
    assert not any("HYPERLINK" in f or "SUM(A1)" in f or "@gpu" in f for f in formulas)
    assert not {"=1+1", "=+1+1", "+1+1", "=-2+3", "-2+3"} & set(formulas)
    plan = [row[0] for row in cached["Plan"].iter_rows(min_row=FIRST_ROW, values_only=True)
            if row[0] is not None]
    assert tuple(plan) == INJECTION_NAMES
    pdf = pypdf.PdfReader(tmp_path / "out" / "formula_injection.pdf")
    flat = "".join("".join(page.extract_text() for page in pdf.pages).split())
    for text in INJECTION_TEXT:
        assert "".join(text.split()) in flat, text
