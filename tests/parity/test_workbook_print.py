"""The workbook prints as a reader would want it: every sheet one page wide (landscape where
wide, header row and names repeated), the Summary on one page, the whole book in a few dozen
pages rather than a hundred. Printed with LibreOffice headless to PDF."""

from __future__ import annotations

import subprocess
from pathlib import Path

import openpyxl
import pytest

from reportgen.pipeline import load_with_efficiency, make_plan
from reportgen.render.workbook import write_workbook
from tests.helpers import GENERATED, LIBREOFFICE_TIMEOUT_S, soffice

DEFAULT_INPUT = Path(__file__).resolve().parents[2] / "inputs" / "scenarios.csv"
pytestmark = pytest.mark.skipif(soffice() is None, reason="LibreOffice is not installed")


def test_every_sheet_prints_one_page_wide_and_the_summary_on_one_page(tmp_path: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    checked, _ = load_with_efficiency(DEFAULT_INPUT)
    plan = make_plan(checked, DEFAULT_INPUT.name, generated=GENERATED)
    book = tmp_path / "plan.xlsx"
    write_workbook(plan, book)
    wb = openpyxl.load_workbook(book)
    for ws in wb.worksheets:
        assert ws.sheet_properties.pageSetUpPr.fitToPage, ws.title
        assert ws.page_setup.fitToWidth == 1, ws.title
    assert wb["Summary"].page_setup.fitToHeight == 1
    assert wb["Plan"].page_setup.orientation == "landscape"
    assert wb["Plan"].print_title_rows == "$1:$2"  # the labels and the names

    binary = soffice()
    assert binary is not None
    profile = (tmp_path / "profile").resolve().as_uri()
    subprocess.run([binary, f"-env:UserInstallation={profile}", "--headless", "--norestore",
                    "--convert-to", "pdf", "--outdir", str(tmp_path), str(book)],
                   check=True, capture_output=True, timeout=LIBREOFFICE_TIMEOUT_S)
    pages = pypdf.PdfReader(tmp_path / "plan.pdf").pages
    assert len(pages) <= 2 * len(wb.sheetnames)  # 110 pages before the print setup
    first, second = pages[0].extract_text(), pages[1].extract_text()
    assert "Totals" in first and "Checks" in first and "By scenario" in first
    assert str(plan.results["scenario"].iloc[-1]) in first  # the whole Summary table
    assert "By scenario" not in second
