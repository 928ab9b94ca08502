"""A day under each scaling policy: bookkeeping that must hold whatever the demand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.finance.demand import workload_rates
from reportgen.simulate.autoscale import POLICIES, Fleet, minute_rates, simulate_day
from reportgen.simulate.day import hourly_rates_for

FLEET = Fleet(capacity_rps=2.0, planned_instances=40, instance_hour_usd=8.0, safety_factor=1.4,
              occupancy_rates_rps=np.array([0.0, 1.0, 2.0, 3.0]),
              occupancy=np.array([0.0, 0.4, 0.75, 0.95]))


def _table(hourly: np.ndarray, cold_start_min: float = 10.0) -> dict[str, dict[str, float]]:
    day = simulate_day(hourly, FLEET, cold_start_min=cold_start_min)
    return {row["policy"]: row for row in day.table.to_dict(orient="records")}


def test_the_fixed_fleet_bills_every_hour_and_dollars_follow_hours() -> None:
    table = _table(hourly_rates_for({"peak_qps": 50.0, "avg_qps": 25.0}))
    assert set(table) == set(POLICIES)
    assert table["fixed peak fleet"]["instance_hours"] == 40 * 24
    for row in table.values():
        assert row["cost_usd_per_day"] == pytest.approx(row["instance_hours"] * 8.0)


def test_without_cold_start_the_qps_policy_never_violates() -> None:
    """Safety ≥ 1 and instances ready at once: capacity always covers the demand."""
    table = _table(hourly_rates_for({"peak_qps": 50.0, "avg_qps": 25.0}), cold_start_min=0.0)
    assert table["QPS"]["slo_violation_minutes"] == 0
    assert table["scheduled"]["slo_violation_minutes"] == 0


def test_scaling_costs_less_than_the_peak_fleet_on_a_diurnal_day() -> None:
    table = _table(hourly_rates_for({"peak_qps": 50.0, "avg_qps": 25.0}))
    for policy in ("KV occupancy", "QPS", "scheduled"):
        assert table[policy]["instance_hours"] < table["fixed peak fleet"]["instance_hours"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0, 200), min_size=24, max_size=24))
def test_counts_stay_within_the_day(hourly: list[float]) -> None:
    table = _table(np.asarray(hourly))
    for row in table.values():
        assert 0 <= row["slo_violation_minutes"] <= 1440
        assert row["min_instances"] <= row["peak_instances"]
        assert row["instance_hours"] <= row["peak_instances"] * 24 + 1e-9


def test_minute_rates_pass_through_each_hours_middle() -> None:
    hourly = np.arange(24, dtype=float)
    minutes = minute_rates(hourly)
    assert minutes[30] == pytest.approx(0.5 / 60)  # minute 30 spans 30–31: its middle, 30.5
    assert minutes[14 * 60 + 29] == pytest.approx(14.0 - 0.5 / 60)


def test_hourly_rates_are_the_cost_outlooks_day() -> None:
    """One demand: the simulated day is the day finance prices, peak at peak_qps, mean avg_qps."""
    rates = hourly_rates_for({"peak_qps": 200.0, "avg_qps": 60.0})
    np.testing.assert_allclose(rates, workload_rates(60.0, 200.0))
    assert rates.max() == pytest.approx(200.0)
    assert rates.mean() == pytest.approx(60.0, rel=1e-6)
    flat = hourly_rates_for({"peak_qps": 200.0, "avg_qps": float("nan")})
    np.testing.assert_allclose(flat, np.full(24, 200.0))


def test_a_workloads_profile_sets_the_shape() -> None:
    profile = np.r_[np.ones(12), 3 * np.ones(12)]
    rates = hourly_rates_for({"peak_qps": 90.0, "avg_qps": 40.0, "workload": "Chat 8B"},
                             {"chat 8b": profile})
    np.testing.assert_allclose(rates, 40.0 * profile / profile.mean())

