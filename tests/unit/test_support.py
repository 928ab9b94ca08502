"""The support plan line: AWS Business Support's published bands (aws.amazon.com/premiumsupport/
pricing: the greater of $100 or 10 % of the first $10,000 of monthly usage, 7 % to $80,000, 5 %
to $250,000, 3 % above), and the same arithmetic as a workbook formula."""

from __future__ import annotations

import formulas  # type: ignore[import-untyped]
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reportgen.finance.support import support_formula, support_monthly_cost
from reportgen.units import CONSTANTS


def test_the_published_worked_example() -> None:
    # AWS's own example: $85,000 of monthly usage → $1,000 + $4,900 + $250 = $6,150
    assert support_monthly_cost(85_000) == pytest.approx(6_150)


def test_minimum_zero_and_switch() -> None:
    assert support_monthly_cost(500) == 100  # 10 % would be $50: the minimum applies
    assert support_monthly_cost(0) == 0  # no AWS spend, no support plan
    assert support_monthly_cost(1_000_000, {"INCLUDE_SUPPORT": 0}) == 0


@given(st.floats(min_value=1, max_value=1e8), st.floats(min_value=0, max_value=1e6))
def test_more_spend_never_costs_less_support(spend: float, more: float) -> None:
    low, high = support_monthly_cost(spend), support_monthly_cost(spend + more)
    assert high >= low
    assert high - low <= 0.1 * more + 1e-6  # never more than the top marginal rate


@pytest.mark.parametrize("spend", [0.0, 500.0, 10_000.0, 85_000.0, 250_000.0, 582_339.98])
def test_the_workbook_formula_computes_the_same(spend: float) -> None:
    names = {name: float(c.value) for name, c in CONSTANTS.items()
             if name.startswith("SUPPORT_") or name == "INCLUDE_SUPPORT"}
    text = support_formula("SPEND")
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, repr(names[name]))
    value = formulas.Parser().ast("=" + text.replace("SPEND", repr(spend)))[1].compile()()
    assert float(value) == pytest.approx(support_monthly_cost(spend))
