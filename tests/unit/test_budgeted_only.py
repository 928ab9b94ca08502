"""Totals, the bill of materials, procurement and the Summary chart count only budgeted rows:
never a comparison row, a tutorial row or an option its workload did not choose."""

from __future__ import annotations

import pytest

from reportgen.plan import Plan
from reportgen.render import context
from reportgen.render.summary_sheet import CHARTED, PER_SCENARIO
from reportgen.render.workbook import build_workbook
from tests.helpers import build_plan
from tests.scenarios import base_row


@pytest.fixture(scope="module")
def plan() -> Plan:
    return build_plan([
        base_row(scenario="chosen-h100", workload="chat", tpot_slo_ms=50),
        base_row(scenario="option-h200", workload="chat", gpu="H200", tpot_slo_ms=50),
        base_row(scenario="reference", role="compare"),
        base_row(scenario="tutorial", method="tutorial"),
        base_row(scenario="405b", model="Llama-3.1-405B", peak_qps=2, weight_dtype="bf16"),
    ])


def test_the_bill_and_procurement_count_budgeted_rows_only(plan: Plan) -> None:
    r = plan.results
    counted = r[r["counted"] == 1]
    assert set(counted["scenario"]) == {"405b"} | ({"chosen-h100", "option-h200"}
                                                  & set(counted["scenario"]))
    assert len(counted) == 2 and set(r.loc[r["counted"] == 0, "status"]) == {"option", "compare"}
    report = context.build(plan)
    bom = report.procurement
    assert bom.total.gpus.value == counted["gpus"].sum()
    assert bom.total.monthly_cost.value == pytest.approx(counted["monthly_cost"].sum())
    listed = {name.strip() for row in bom.rows for name in row.scenarios.split(",")}
    assert listed == set(counted["scenario"])
    assert "405b spans 2 nodes" in bom.nodes_note  # the fabric its replicas need


def test_the_summary_chart_shows_budgeted_rows_only(plan: Plan) -> None:
    """By scenario lists every row (comparisons at 0 budgeted); the chart's own table lists
    the budgeted rows only, each picked by its place among them (a live MATCH)."""
    wb, cache = build_workbook(plan)
    ws = wb["Summary"]
    header = next(c.row for c in ws["A"] if c.value == "scenario" and c.row > 20)
    column = PER_SCENARIO.index(CHARTED) + 1
    assert column == 7
    for i, row in plan.results.reset_index(drop=True).iterrows():
        cell = ws.cell(row=header + 1 + int(i), column=column)
        assert cell.value.startswith("=")  # live: Plan's chosen_cost (monthly_cost if counted)
        expected = row["monthly_cost"] if row["counted"] == 1 else 0.0
        assert cache["Summary"][cell.coordinate] == pytest.approx(expected)
    [chart] = ws._charts
    values = str(chart.series[0].val.numRef.f)
    first, last = (int(ref.split("$")[-1]) for ref in values.split("!")[1].split(":"))
    budgeted = plan.results[plan.results["counted"] == 1]
    assert last - first + 1 == len(budgeted)
    names = [cache["Summary"][f"A{r}"] for r in range(first, last + 1)]
    costs = [cache["Summary"][f"B{r}"] for r in range(first, last + 1)]
    assert names == budgeted["scenario"].tolist()
    assert costs == pytest.approx(budgeted["monthly_cost"].tolist())
    assert all("MATCH(" in ws[f"A{r}"].value for r in range(first, last + 1))