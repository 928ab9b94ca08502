"""Every money figure of the default report agrees: the PDF's bill of materials, its summary, the
sum of the budgeted scenarios, and the workbook's Summary and BOM sheets after LibreOffice
recalculates them from their formulas alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.finance.support import support
from reportgen.pipeline import load_with_efficiency, make_plan
from reportgen.render.bom_sheet import SUMS
from reportgen.render.context import build as report_context
from reportgen.render.layout import FIRST_ROW
from reportgen.render.summary_sheet import (
    SUPPORT_FIRST_ROW,
    SUPPORT_LINES,
    TOTALS,
    TOTALS_FIRST_ROW,
)
from reportgen.render.workbook import write_workbook
from tests.helpers import GENERATED, recalc_with_libreoffice, soffice, strip_cached_values

DEFAULT_INPUT = Path(__file__).resolve().parents[2] / "inputs" / "scenarios.csv"
pytestmark = pytest.mark.skipif(soffice() is None, reason="LibreOffice is not installed")


def test_bom_summary_scenarios_and_recalculated_workbook_agree(tmp_path: Path) -> None:
    checked, _ = load_with_efficiency(DEFAULT_INPUT)
    plan = make_plan(checked, DEFAULT_INPUT.name, generated=GENERATED)
    counted = plan.results[plan.results["counted"] == 1]
    scenario_sums = {name: float(counted[name].sum())
                     for name in ("monthly_cost", "annual_cost", "gpus", "nodes")}
    report = report_context(plan)
    bom = report.procurement.total
    pdf = {"monthly_cost": bom.monthly_cost.value, "annual_cost": bom.annual_cost.value,
           "gpus": bom.gpus.value, "nodes": bom.nodes.value}
    plan_support = support(plan.results)
    spend, extra = plan_support.spend, plan_support.monthly_cost
    summary = {"monthly_cost": report.summary.total_monthly_cost.value - extra,
               "gpus": report.summary.total_gpus.value}
    assert report.procurement.support_monthly_cost is not None
    assert report.procurement.support_monthly_cost.value == extra
    assert report.summary.support_monthly_cost is not None
    assert report.summary.support_monthly_cost.value == extra
    assert extra > 0  # the default plan buys from AWS, so its support plan is a line
    for name, value in pdf.items():
        assert value == pytest.approx(scenario_sums[name]), name
    for name, value in summary.items():
        assert value == pytest.approx(scenario_sums[name]), name
    # the BOM lines add up to its total, GPU type by GPU type
    assert sum(float(r.monthly_cost.value) for r in report.procurement.rows) == pytest.approx(
        scenario_sums["monthly_cost"])

    built = tmp_path / "plan.xlsx"
    write_workbook(plan, built)
    bare = tmp_path / "bare.xlsx"
    strip_cached_values(built, bare)
    values = recalc_with_libreoffice(bare, tmp_path)
    sheet_totals = {name: values["Summary"][f"B{TOTALS_FIRST_ROW + i}"]
                    for i, name in enumerate(TOTALS)}
    for name in ("monthly_cost", "annual_cost", "gpus", "nodes"):
        assert sheet_totals[name] == pytest.approx(scenario_sums[name], rel=1e-9), name
    support_rows = {name: values["Summary"][f"B{SUPPORT_FIRST_ROW + i}"]
                    for i, (name, _, _) in enumerate(SUPPORT_LINES)}
    assert support_rows["supported_spend"] == pytest.approx(spend, rel=1e-9)
    assert support_rows["support_monthly_cost"] == pytest.approx(extra, rel=1e-9)
    assert support_rows["total_monthly_cost"] == pytest.approx(
        report.summary.total_monthly_cost.value, rel=1e-9)
    grand = report.procurement.grand_annual_cost
    assert grand is not None
    assert support_rows["total_annual_cost"] == pytest.approx(grand.value, rel=1e-9)
    bom_sheet = values["BOM"]
    total_row = next(r for r in range(FIRST_ROW, FIRST_ROW + 50)
                     if bom_sheet.get(f"A{r}") == "Total")
    first_sum_col = 2 + 6  # keys, then labels, then the sums
    for j, name in enumerate(SUMS):
        col = chr(ord("A") + first_sum_col + j)
        expected = float(counted[name].sum())
        assert bom_sheet[f"{col}{total_row}"] == pytest.approx(expected, rel=1e-9), name
    with_support = next(r for r in range(total_row, total_row + 5)
                        if bom_sheet.get(f"A{r}") == "Total with support")
    monthly_col = chr(ord("A") + first_sum_col + SUMS.index("monthly_cost"))
    assert bom_sheet[f"{monthly_col}{with_support}"] == pytest.approx(
        report.summary.total_monthly_cost.value, rel=1e-9)
    # the tornado's live lines recalculate from the same totals
    tornado = values["Sensitivity"]
    rows = {tornado[f"A{r}"]: r for r in range(FIRST_ROW, FIRST_ROW + 10) if tornado.get(f"A{r}")}
    price = rows["price"]
    assert tornado[f"D{price}"] == pytest.approx(0.8 * scenario_sums["monthly_cost"], rel=1e-9)
    assert tornado[f"E{price}"] == pytest.approx(1.2 * scenario_sums["monthly_cost"], rel=1e-9)
    band = rows["efficiency (calibration band)"]
    assert tornado[f"D{band}"] == pytest.approx(float(counted["monthly_cost_low"].sum()))
