"""What each output shows of the simulation, and that only the outputs that show it run it."""

from __future__ import annotations

import csv
from pathlib import Path

import openpyxl
import pytest

from reportgen.pipeline import BuildOptions, build
from reportgen.render import context
from reportgen.render.layout import FIRST_ROW, NAME_ROW
from reportgen.simulate.plan_latency import with_latency
from tests.helpers import GENERATED, build_plan

ROW = {"scenario": "chat", "model": "llama-3.1-8b", "gpu": "H100", "peak_qps": 30,
       "avg_qps": 12, "avg_prompt_tokens": 600, "avg_output_tokens": 200,
       "max_prompt_tokens": 2000, "max_output_tokens": 800, "tp": 1, "weight_dtype": "bf16",
       "kv_dtype": "bf16", "ttft_p99_ms": 400, "tpot_p99_ms": 30, "arrival_cv": 1.5}


def _input(tmp_path: Path) -> Path:
    path = tmp_path / "p99.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(ROW))
        writer.writeheader()
        writer.writerow(ROW)
    return path


def test_a_csv_build_sizes_by_the_knee_but_simulates_no_day(tmp_path: Path) -> None:
    result = build(BuildOptions(_input(tmp_path), tmp_path / "out", formats=("csv",),
                                generated=GENERATED))
    assert result.plan.latency is None
    assert result.plan.results["sized_by"].iloc[0] == "knee of the P99 targets"


def test_the_workbook_holds_the_knee_as_an_input_and_the_simulated_values(
        tmp_path: Path) -> None:
    result = build(BuildOptions(_input(tmp_path), tmp_path / "out", formats=("xlsx",),
                                generated=GENERATED))
    knee = float(result.plan.results["knee_rps_per_instance"].iloc[0])
    book = openpyxl.load_workbook(result.outputs[0])
    scenarios = book["Scenarios"]
    header = [c.value for c in scenarios[NAME_ROW]]
    knee_cell = scenarios.cell(row=FIRST_ROW, column=header.index("knee_rps") + 1)
    assert knee_cell.value == pytest.approx(knee)
    latency = book["Latency"]
    assert "not formulas" in str(latency["A2"].value)
    cells = [c.value for row in latency.iter_rows() for c in row]
    assert "chat" in cells and "KV occupancy" in cells
    assert not any(isinstance(v, str) and v.startswith("=") for v in cells)


def test_the_report_has_a_latency_section_for_budgeted_rows() -> None:
    plan = with_latency(build_plan([ROW]))
    assert plan.latency is not None
    section = context.build(plan).latency
    assert section is not None
    assert [r.scenario for r in section.rows] == ["chat"]
    assert section.rows[0].sized_by == "knee of the P99 targets"
    assert {d.policy for d in section.day_rows} == {"fixed peak fleet", "KV occupancy", "QPS",
                                                    "scheduled"}
    assert section.chart.startswith("data:image/") and section.day_chart


def test_rows_past_the_simulation_limit_are_listed_not_dropped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("reportgen.simulate.plan_latency.MAX_LATENCY_ROWS", 1)
    small = {**ROW, "scenario": "small", "peak_qps": 2, "avg_qps": 1, "ttft_p99_ms": "",
             "tpot_p99_ms": ""}
    plan = with_latency(build_plan([ROW, small]))
    assert plan.latency is not None
    assert list(plan.latency.table["scenario"]) == ["chat"]
    assert plan.latency.not_simulated == ("small",)


def test_the_fixed_fleets_day_costs_the_plans_billed_month() -> None:
    """One billing: the fixed peak fleet over a day, scaled to a month, is the plan's monthly
    cost (whole H100 instances billed included), so the day's dollars agree with every page."""
    from reportgen.units import CONSTANTS

    plan = with_latency(build_plan([{**ROW, "tp": 2}]))
    assert plan.latency is not None
    day = plan.latency.day
    fixed = float(day.loc[day["policy"] == "fixed peak fleet", "cost_usd_per_day"].iloc[0])
    hours = float(CONSTANTS["HOURS_PER_MONTH"].value)
    assert fixed * hours / 24 == pytest.approx(float(plan.results["monthly_cost"].iloc[0]))
