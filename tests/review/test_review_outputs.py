"""The review's outputs on the shipped sample quarter (inputs/review/): the workbook's formulas
recalculate (LibreOffice) to what reportgen computed and follow an edited actual; the waterfall
chart is a stacked chart with an invisible base; the PDF says the numbers; the re-forecast is a
scenario file `reportgen build` accepts; the same inputs give the same bytes."""

from __future__ import annotations

import datetime as dt
import logging
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
from pypdf import PdfReader

from reportgen.cli import main
from reportgen.pipeline import BuildOptions, build
from reportgen.review.explain import signed_usd
from reportgen.review.pipeline import ReviewOptions, ReviewResult, run_review
from reportgen.review.render.pdf import write_review_pdf
from reportgen.review.render.variance_sheet import col
from tests.helpers import (
    lint_workbook,
    patch_number_cell,
    recalc_with_libreoffice,
    same_value,
    soffice,
)

pytestmark = pytest.mark.slow
needs_libreoffice = pytest.mark.skipif(soffice() is None, reason="LibreOffice not installed")

SAMPLE = Path(__file__).resolve().parents[2] / "inputs" / "review"
ACTUALS = tuple(SAMPLE / name for name in ("vllm-chat-assistant-2026q1.json.gz",
                                           "actuals-2026q1.csv", "cur-2026q1.csv"))
DATE = dt.date(2026, 4, 10)


def _review(folder: Path) -> ReviewResult:
    build(BuildOptions(SAMPLE / "plan-2026q1.csv", folder, "Inference fleet, Q1 2026",
                       ("xlsx",), dt.date(2025, 12, 15)))
    return run_review(ReviewOptions(folder / "plan-2026q1.xlsx", ACTUALS, folder / "out",
                                    generated=DATE))


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> ReviewResult:
    return _review(tmp_path_factory.mktemp("review"))


def _path(result: ReviewResult, suffix: str) -> Path:
    return next(p for p in result.outputs if p.name.endswith(suffix))


def _formula_cells(path: Path) -> dict[str, dict[str, str]]:
    wb = openpyxl.load_workbook(path)
    return {ws.title: {c.coordinate: c.value for row in ws.iter_rows() for c in row
                       if c.data_type == "f"} for ws in wb.worksheets}


def test_the_sample_review_is_as_documented(reviewed: ReviewResult) -> None:
    """inputs/review/README.md states these deviations; the review finds them."""
    review = reviewed.review
    assert not review.record.check.edited
    assert str(review.actuals.window[0]) == "2026-01-01"
    assert str(review.actuals.window[1]) == "2026-04-01"
    chat = review.workloads["chat-assistant"]
    assert chat.speed.efficiency == pytest.approx(0.88, abs=0.01)
    assert review.workloads["support-bot"].speed.efficiency == pytest.approx(0.95, abs=0.01)
    assert review.workloads["code-completion"].speed.efficiency == pytest.approx(1.02, abs=0.01)
    assert chat.actual.per_request("output_tokens") == pytest.approx(350 * 1.2, rel=0.01)
    assert review.reforecast.workloads["chat-assistant"].growth.monthly == pytest.approx(
        0.06, abs=0.01)
    assert sum(review.variance.components.values(), Decimal(0)) == review.variance.total
    assert review.reforecast.label == "2026-Q2"


@needs_libreoffice
def test_the_workbook_recalculates_to_the_computed_values(reviewed: ReviewResult,
                                                          tmp_path: Path) -> None:
    path = _path(reviewed, "-review.xlsx")
    checked, findings = lint_workbook(path)
    assert checked > 100 and findings == []
    cached = openpyxl.load_workbook(path, data_only=True)
    recalculated = recalc_with_libreoffice(path, tmp_path, always_recalc=True)
    formulas = _formula_cells(path)
    differ = [f"{sheet}!{ref}" for sheet, cells in formulas.items() for ref in cells
              if not same_value(recalculated[sheet].get(ref),
                                cached[sheet][ref].value if cached[sheet][ref].value is not None
                                else "")]
    assert differ == []


@needs_libreoffice
def test_an_edited_actual_flows_to_the_components(reviewed: ReviewResult,
                                                  tmp_path: Path) -> None:
    """A reviewer corrects chat-assistant's billed cost by +$1,000: the price component and the
    variance move by exactly that, the other components not at all, the check stays 0."""
    path = _path(reviewed, "-review.xlsx")
    edited = tmp_path / "edited.xlsx"
    row = 2 + list(reviewed.review.workloads).index("chat-assistant")
    cost = reviewed.review.workloads["chat-assistant"].drivers.actual_cost
    patch_number_cell(path, edited, f"Variance!{col('actual_cost')}{row}", cost + 1000)
    before = recalc_with_libreoffice(path, tmp_path, always_recalc=True)["Variance"]
    after = recalc_with_libreoffice(edited, tmp_path, always_recalc=True)["Variance"]
    total = 2 + len(reviewed.review.workloads)
    for name in ("volume", "mix", "tokens_per_request", "efficiency", "idle_capacity"):
        assert after[f"{col(name)}{total}"] == pytest.approx(before[f"{col(name)}{total}"])
    for name in ("price", "variance"):
        assert after[f"{col(name)}{total}"] - before[f"{col(name)}{total}"] == pytest.approx(
            1000.0, abs=1e-6)


def test_the_waterfall_chart_is_stacked_over_an_invisible_base(reviewed: ReviewResult) -> None:
    ws = openpyxl.load_workbook(_path(reviewed, "-review.xlsx"))["Review"]
    (chart,) = ws._charts
    assert chart.grouping == "stacked" and chart.overlap == 100
    base = chart.series[0]
    assert base.graphicalProperties.noFill
    assert [e.idx for e in chart.legend.legendEntry if e.delete] == [0]
    assert len(chart.series) == 4


def test_the_pdf_says_the_numbers(reviewed: ReviewResult, tmp_path: Path,
                                  caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        write_review_pdf(reviewed.review, tmp_path / "again.pdf")
    assert not [r.getMessage() for r in caplog.records if r.name.startswith("weasyprint")]
    reader = PdfReader(_path(reviewed, "-review.pdf"))
    text = " ".join(" ".join((page.extract_text() or "").split()) for page in reader.pages)
    review = reviewed.review
    v = review.variance
    for needle in ("QUARTER IN REVIEW", "The quarter against plan", "What changed and why",
                   "Re-forecast: 2026-Q2", "Autoscaling on KV-cache occupancy",
                   "Data, checks and method", *review.workloads,
                   f"${float(v.plan):,.0f}", f"${float(v.actual):,.0f}",
                   signed_usd(v.total).replace("\u2060", "")):
        assert needle in text.replace("\u2060", ""), needle
    assert len(reader.pages) <= 10


def test_the_reforecast_builds_a_budget(reviewed: ReviewResult, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = _path(reviewed, "-reforecast.csv")
    assert main(["build", str(path), "--out", str(tmp_path), "--format", "csv"]) == 0
    assert "total (plan)" in capsys.readouterr().out


def test_the_same_inputs_give_the_same_bytes(reviewed: ReviewResult, tmp_path: Path) -> None:
    again = _review(tmp_path)
    for suffix in ("-review.xlsx", "-review.pdf", "-reforecast.csv"):
        assert _path(again, suffix).read_bytes() == _path(reviewed, suffix).read_bytes(), suffix
