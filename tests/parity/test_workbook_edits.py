"""A reviewer's edits are planned, or flagged, never substituted or silently dropped: after
LibreOffice recalculates the edited workbook, a scenario typed in a spare row is planned and
counted, a GPU name the GPUs sheet lacks is #N/A on its row (not another GPU's figures), a
cleared row and an infeasible edit leave the other rows' totals intact, and the Summary's
Checks block counts and names each of them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.pipeline import load_with_efficiency, make_plan
from reportgen.plan import Plan
from reportgen.render.layout import FIRST_ROW, NAME_ROW
from reportgen.render.summary_sheet import TOTALS, TOTALS_FIRST_ROW
from reportgen.render.workbook import SPARE_ROWS, write_workbook
from tests.helpers import (
    GENERATED,
    Values,
    recalc_with_libreoffice,
    soffice,
    strip_cached_values,
)

DEFAULT_INPUT = Path(__file__).resolve().parents[2] / "inputs" / "scenarios.csv"
pytestmark = pytest.mark.skipif(soffice() is None, reason="LibreOffice is not installed")

ALIAS_ROW = "customer-service-bot"  # GPU typed as "H200", an alias the GPUs sheet lacks
CLEARED_ROW = "rag-long-prompt-h200-fp8"  # every Scenarios cell deleted
INFEASIBLE_ROW = "moe-qwen3-30b-a3b"  # a TPOT target no configuration meets


def _columns(ws: Worksheet) -> dict[str, str]:
    return {str(c.value): c.column_letter for c in ws[NAME_ROW] if c.value is not None}


def _checks(summary: dict[str, object]) -> dict[str, tuple[object, object, object]]:
    """Check label → (count, verdict, what to do), found below the "Checks" title."""
    top = next(r for r in range(1, 100) if summary.get(f"A{r}") == "Checks")
    out = {}
    for r in range(top + 2, top + 20):
        label = summary.get(f"A{r}")
        if not label:
            break
        out[str(label)] = (summary.get(f"B{r}"), summary.get(f"C{r}"), summary.get(f"D{r}"))
    return out


def _recalculated(plan: Plan, tmp_path: Path, edit: Callable[[Worksheet], None],
                  sheet: str = "Scenarios") -> tuple[openpyxl.Workbook, Values]:
    """The plan's workbook with ``edit`` made on ``sheet``, as LibreOffice recalculates it
    from the formulas alone."""
    built = tmp_path / "plan.xlsx"
    write_workbook(plan, built)
    wb = openpyxl.load_workbook(built)
    edit(wb[sheet])
    wb.save(built)
    bare = tmp_path / "bare.xlsx"
    strip_cached_values(built, bare)
    return wb, recalc_with_libreoffice(bare, tmp_path)


def test_broken_rows_are_flagged_and_the_rest_still_adds_up(tmp_path: Path) -> None:
    checked, _ = load_with_efficiency(DEFAULT_INPUT)
    plan = make_plan(checked, DEFAULT_INPUT.name, generated=GENERATED)
    results = plan.results.reset_index(drop=True)
    position = {name: i for i, name in enumerate(results["scenario"])}
    edited = (ALIAS_ROW, CLEARED_ROW, INFEASIBLE_ROW)
    assert all(results["status"].iloc[position[n]] == "chosen" for n in edited)
    kept = results[~results["scenario"].isin(edited)]
    expected_total = float((kept["monthly_cost"] * kept["counted"]).sum())

    def edit(scenarios: Worksheet) -> None:
        cols = _columns(scenarios)
        scenarios[f"{cols['gpu']}{FIRST_ROW + position[ALIAS_ROW]}"] = "H200"
        for cell in scenarios[FIRST_ROW + position[CLEARED_ROW]]:
            cell.value = None
        scenarios[f"{cols['tpot_slo_ms']}{FIRST_ROW + position[INFEASIBLE_ROW]}"] = 1

    wb, values = _recalculated(plan, tmp_path, edit)

    plan_cols = _columns(wb["Plan"])
    plan_sheet = values["Plan"]
    alias = FIRST_ROW + position[ALIAS_ROW]
    for name in ("gpu_row", "gpu_memory_gib", "gpu_bandwidth_tbps", "monthly_cost"):
        assert plan_sheet[f"{plan_cols[name]}{alias}"] == "#N/A", name
    assert plan_sheet[f"{plan_cols['status']}{alias}"] == "error"
    assert plan_sheet[f"{plan_cols['counted']}{alias}"] == 0
    cleared = FIRST_ROW + position[CLEARED_ROW]
    assert plan_sheet.get(f"{plan_cols['status']}{cleared}") in (None, "")
    assert plan_sheet.get(f"{plan_cols['monthly_cost']}{cleared}") in (None, "")
    infeasible = FIRST_ROW + position[INFEASIBLE_ROW]
    assert plan_sheet[f"{plan_cols['status']}{infeasible}"] == "no fit"

    summary = values["Summary"]
    total = summary[f"B{TOTALS_FIRST_ROW + TOTALS.index('monthly_cost')}"]
    assert total == pytest.approx(expected_total, rel=1e-9)
    found = _checks(summary)
    failing = found["Rows whose formulas fail (not counted)"]
    assert failing[:2] == (1, "CHECK")
    assert f"Plan row {alias} ({ALIAS_ROW})" in str(failing[2])
    no_fit = found["Plan rows that do not fit (not counted)"]
    assert no_fit[:2] == (1, "CHECK")
    assert f"Plan row {infeasible} ({INFEASIBLE_ROW})" in str(no_fit[2])
    assert found["Totals that do not reconcile"][:2] == (0, "OK")
    assert all(v[:2] == (0, "OK") for label, v in found.items()
               if "spare" in label or "below" in label)


def test_a_scenario_added_in_a_spare_row_is_planned_and_counted(tmp_path: Path) -> None:
    checked, _ = load_with_efficiency(DEFAULT_INPUT)
    plan = make_plan(checked, DEFAULT_INPUT.name, generated=GENERATED)
    results = plan.results.reset_index(drop=True)
    source = list(results["scenario"]).index(ALIAS_ROW)  # as the engine planned it
    inputs = plan.scenarios.reset_index(drop=True).iloc[source]
    added = FIRST_ROW + len(results)  # the first spare row
    last = FIRST_ROW + len(results) + SPARE_ROWS - 1

    def edit(scenarios: Worksheet) -> None:
        for name, col in _columns(scenarios).items():
            value = inputs[name]
            scenarios[f"{col}{added}"] = None if value == "" or value != value else value
        scenarios[f"A{added}"] = "customer-service-bot-eu"
        scenarios[f"{_columns(scenarios)['workload']}{added}"] = None
        scenarios[f"A{last + 2}"] = "beyond-the-spare-rows"

    wb, values = _recalculated(plan, tmp_path, edit)

    plan_cols = _columns(wb["Plan"])
    row = values["Plan"]
    for name in ("gpus", "nodes", "monthly_cost", "ttft_ms", "tpot_ms"):
        assert row[f"{plan_cols[name]}{added}"] == pytest.approx(
            float(results[name].iloc[source]), rel=1e-9), name
    assert row[f"{plan_cols['status']}{added}"] == "chosen"
    summary = values["Summary"]
    total = summary[f"B{TOTALS_FIRST_ROW + TOTALS.index('monthly_cost')}"]
    budgeted = float((results["monthly_cost"] * results["counted"]).sum())
    assert total == pytest.approx(budgeted + float(results["monthly_cost"].iloc[source]),
                                  rel=1e-9)
    found = _checks(summary)
    spare = next(v for label, v in found.items() if label.startswith("Added in spare rows"))
    assert spare[:2] == (1, "CHECK")
    assert found[f"Typed below row {last} (not planned)"][:2] == (1, "CHECK")
    assert found["Totals that do not reconcile"][:2] == (0, "OK")


def test_a_batch_curve_scenario_the_plan_lacks_is_an_error_not_another_row(
        tmp_path: Path) -> None:
    checked, _ = load_with_efficiency(DEFAULT_INPUT)
    plan = make_plan(checked, DEFAULT_INPUT.name, generated=GENERATED)

    def edit(curve: Worksheet) -> None:
        curve["B2"] = "no-such-scenario"  # pasted past the dropdown

    wb, values = _recalculated(plan, tmp_path, edit, sheet="Batch curve")
    header = next(r for r in range(1, 20) if wb["Batch curve"][f"A{r}"].value == "batch")
    cols = {str(c.value): c.column_letter for c in wb["Batch curve"][header]}
    curve = values["Batch curve"]
    for name in ("tpot_ms", "output_tokens_per_s_per_gpu"):
        assert curve[f"{cols[name]}{header + 1}"] == "#N/A", name
