"""The tornado moves the budgeted cost the way each input must: price exactly ±20 %, more traffic
or a larger safety factor never cheaper, the band equal to the plan's own low and high."""

from __future__ import annotations

import pytest

from reportgen.finance.sensitivity import tornado
from tests.helpers import build_plan
from tests.scenarios import base_row


def test_tornado_directions_and_exact_lines() -> None:
    plan = build_plan([base_row(peak_qps=40, tp=4), base_row(scenario="b", gpu="H200",
                                                             peak_qps=10, tp=2)])
    base = float(plan.results["monthly_cost"].sum())
    frame = tornado(plan).set_index("factor")
    assert frame.loc["price", "low_cost"] == pytest.approx(0.8 * base)
    assert frame.loc["price", "high_cost"] == pytest.approx(1.2 * base)
    qps = frame.loc["peak and average request rate"]
    assert qps["low_cost"] <= base <= qps["high_cost"]
    safety = frame.loc["safety factor"]
    assert safety["low_cost"] <= base <= safety["high_cost"]
    band = frame.loc["efficiency (calibration band)"]
    assert band["low_cost"] == pytest.approx(float(plan.results["monthly_cost_low"].sum()))
    assert band["high_cost"] == pytest.approx(float(plan.results["monthly_cost_high"].sum()))
    assert list(frame["swing"]) == sorted(frame["swing"], reverse=True)
