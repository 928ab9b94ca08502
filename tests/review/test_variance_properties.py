"""The cost variance splits into six components that sum to it exactly, to the cent, for every
workload and in total, whatever the plan and the actuals (Hypothesis)."""

from __future__ import annotations

from decimal import Decimal, localcontext

from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.review.variance import (
    COMPONENTS,
    Drivers,
    Variance,
    cents,
    variance,
    waterfall,
)

money = st.floats(min_value=0.0, max_value=1e9, allow_nan=False, allow_infinity=False)
hours = st.floats(min_value=1e-3, max_value=1e8, allow_nan=False, allow_infinity=False)
requests = st.floats(min_value=0.0, max_value=1e12, allow_nan=False, allow_infinity=False)
factor = st.one_of(st.floats(min_value=1e-3, max_value=1e3, allow_nan=False),
                   st.just(float("nan")))  # an engine factor that could not be computed
drivers = st.builds(
    Drivers, plan_cost=money, plan_gpu_hours=hours,
    plan_requests=st.floats(min_value=1.0, max_value=1e12, allow_nan=False),
    actual_requests=requests, tokens_factor=factor, efficiency_factor=factor,
    actual_gpu_hours=st.floats(min_value=0.0, max_value=1e8, allow_nan=False),
    actual_cost=money,
)
portfolios = st.dictionaries(st.text(min_size=1, max_size=8), drivers, min_size=1, max_size=6)


@settings(max_examples=400, deadline=None)
@given(portfolios)
def test_components_sum_exactly_to_the_variance(portfolio: dict[str, Drivers]) -> None:
    v = variance(portfolio)
    with localcontext(prec=1000):  # exact decimal sums of amounts in cents
        _check_sums(portfolio, v)


def _check_sums(portfolio: dict[str, Drivers], v: Variance) -> None:
    for w in v.workloads:
        assert sum(w.components.values(), Decimal(0)) == w.total
        assert w.total == cents(portfolio[w.name].actual_cost) - cents(portfolio[w.name].plan_cost)
        assert all(amount == amount.quantize(Decimal("0.01")) for amount in w.components.values())
    assert sum(v.components.values(), Decimal(0)) == v.total == v.actual - v.plan
    steps = [amount for _, amount in waterfall(v)]
    assert steps[0] + sum(steps[1:-1], Decimal(0)) == steps[-1]


@settings(max_examples=200, deadline=None)
@given(portfolios)
def test_actuals_equal_to_the_plan_give_no_variance(portfolio: dict[str, Drivers]) -> None:
    as_planned = {
        name: Drivers(d.plan_cost, d.plan_gpu_hours, d.plan_requests, d.plan_requests, 1.0, 1.0,
                      d.plan_gpu_hours, d.plan_cost)
        for name, d in portfolio.items()
    }
    v = variance(as_planned)
    assert all(amount == 0 for amount in v.components.values())
    assert v.total == 0


def test_each_component_is_the_change_its_driver_makes() -> None:
    """One workload, each driver changed alone: only its component moves, by the hand figure."""
    plan = Drivers(plan_cost=10_000.0, plan_gpu_hours=2_000.0, plan_requests=1e6,
                   actual_requests=1e6, tokens_factor=1.0, efficiency_factor=1.0,
                   actual_gpu_hours=2_000.0, actual_cost=10_000.0)
    cases = {
        # 10 % more requests: the fleet would grow 10 % at the plan's price (one workload:
        # volume, no mix)
        "volume": (dict(actual_requests=1.1e6, actual_gpu_hours=2_200.0, actual_cost=11_000.0),
                   Decimal("1000.00")),
        # 20 % more GPU time per request, paid for at the plan's price
        "tokens_per_request": (dict(tokens_factor=1.2, actual_gpu_hours=2_400.0,
                                    actual_cost=12_000.0), Decimal("2000.00")),
        "efficiency": (dict(efficiency_factor=1.25, actual_gpu_hours=2_500.0,
                            actual_cost=12_500.0), Decimal("2500.00")),
        # 500 GPU-hours more than needed at $5
        "idle_capacity": (dict(actual_gpu_hours=2_500.0, actual_cost=12_500.0),
                          Decimal("2500.00")),
        # the same hours at $5.50 instead of $5
        "price": (dict(actual_cost=11_000.0), Decimal("1000.00")),
    }
    for component, (change, expected) in cases.items():
        d = Drivers(**{**plan.__dict__, **change})
        parts = variance({"w": d}).workloads[0].components
        assert parts[component] == expected, component
        assert all(parts[c] == 0 for c in COMPONENTS if c != component), component


def test_mix_moves_cost_between_workloads_and_sums_to_zero_when_volume_is_flat() -> None:
    """Traffic shifts from a cheap workload to an expensive one, total requests unchanged."""
    cheap = Drivers(1_000.0, 100.0, 1e6, 0.5e6, 1.0, 1.0, 50.0, 500.0)
    dear = Drivers(9_000.0, 900.0, 1e6, 1.5e6, 1.0, 1.0, 1_350.0, 13_500.0)
    v = variance({"cheap": cheap, "dear": dear})
    assert v.components["volume"] == 0
    assert v.components["mix"] == Decimal("4000.00")  # −500 + 4,500
    assert v.total == Decimal("4000.00")
