"""Repeatable: the same input gives the same outputs, byte for byte, stamped with its SHA-256.

The workbook and PDF checks run once reportgen.render.workbook / reportgen.render.pdf exist.
"""

from __future__ import annotations

import hashlib
import importlib.util
import zipfile
from pathlib import Path

import pytest

from reportgen.cli import main
from tests.corpus.cases import CORPUS

INPUT = CORPUS.parent.parent / "inputs" / "scenarios.csv"
HAVE_RENDERERS = all(importlib.util.find_spec(f"reportgen.render.{m}") is not None
                     for m in ("workbook", "pdf"))


def _build(source: Path, out: Path, *formats: str) -> None:
    args = ["build", str(source), "--out", str(out)]
    for fmt in formats:
        args += ["--format", fmt]
    assert main(args) == 0


def test_same_input_same_results_csv(tmp_path: Path) -> None:
    _build(INPUT, tmp_path / "a", "csv")
    _build(INPUT, tmp_path / "b", "csv")
    first = (tmp_path / "a" / "scenarios-results.csv").read_bytes()
    assert first == (tmp_path / "b" / "scenarios-results.csv").read_bytes()
    assert first.count(b"\n") == INPUT.read_bytes().count(b"\n")


def test_results_do_not_depend_on_the_working_folder(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _build(INPUT, tmp_path / "a", "csv")
    monkeypatch.chdir(tmp_path)
    _build(INPUT, Path("b"), "csv")
    assert (tmp_path / "a" / "scenarios-results.csv").read_bytes() == (
        tmp_path / "b" / "scenarios-results.csv").read_bytes()


@pytest.fixture(scope="module")
def two_full_builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if not HAVE_RENDERERS:
        pytest.skip("reportgen.render.workbook / reportgen.render.pdf do not exist yet")
    root = tmp_path_factory.mktemp("determinism")
    _build(INPUT, root / "a")
    _build(INPUT, root / "b")
    return root / "a", root / "b"


@pytest.mark.slow
def test_same_input_same_workbook_xml(two_full_builds: tuple[Path, Path]) -> None:
    a, b = (zipfile.ZipFile(folder / "scenarios.xlsx") for folder in two_full_builds)
    with a, b:
        assert a.namelist() == b.namelist()
        sheets = [n for n in a.namelist() if n.startswith("xl/worksheets/sheet")]
        assert sheets
        for name in a.namelist():
            assert a.read(name) == b.read(name), name


@pytest.mark.slow
def test_same_input_same_pdf_bytes(two_full_builds: tuple[Path, Path]) -> None:
    a, b = two_full_builds
    assert (a / "scenarios.pdf").read_bytes() == (b / "scenarios.pdf").read_bytes()


@pytest.mark.slow
def test_the_input_sha256_is_in_the_workbook_and_the_pdf(
    two_full_builds: tuple[Path, Path],
) -> None:
    import openpyxl

    pypdf = pytest.importorskip("pypdf")
    digest = hashlib.sha256(INPUT.read_bytes()).hexdigest()
    folder = two_full_builds[0]
    book = openpyxl.load_workbook(folder / "scenarios.xlsx", read_only=True)
    try:
        cells = [str(v) for ws in book.worksheets for row in ws.iter_rows(values_only=True)
                 for v in row if v is not None]
    finally:
        book.close()
    assert any(digest in cell for cell in cells)
    text = "".join(page.extract_text() for page in pypdf.PdfReader(folder / "scenarios.pdf").pages)
    assert digest in "".join(text.split())  # the PDF may break the 64 characters over lines
