"""The day and quarter views of the budgeted fleet: a flat day autoscales to the peak fleet, the
reserved mix of a constant fleet is all reserved, and the first quarter is the plan itself."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from reportgen.catalog import load_catalogs, resolve_gpu
from reportgen.finance.outlook import (
    best_mix,
    day_fleet,
    hourly_replicas,
    quarter_label,
    quarterly,
)
from reportgen.finance.prices import shipped_price_book
from tests.helpers import build_plan
from tests.scenarios import base_row

CATALOGS = load_catalogs()
BOOK = shipped_price_book(lambda name: resolve_gpu(CATALOGS, name))


def test_a_flat_day_runs_the_peak_fleet_and_reserves_all_of_it() -> None:
    """avg = peak: every hour needs the peak fleet; reserving it all at the 1-year p5 rate
    (52 USD/h, reportgen/data/prices.csv) beats on demand (98.32)."""
    plan = build_plan([base_row(peak_qps=20, avg_qps=20, tp=8)])
    day = day_fleet(plan.results, BOOK).iloc[0]
    r = plan.results.iloc[0]
    assert day["autoscaled_replica_hours_per_day"] == day["peak_replica_hours_per_day"]
    assert day["autoscaled_monthly_cost"] == pytest.approx(r["monthly_cost"])
    assert day["reserved_units"] == r["billed_units"]
    assert day["mix_monthly_cost"] == pytest.approx(r["billed_units"] * 52 * 730)


def test_a_peaky_day_autoscales_below_the_peak_and_no_reserved_price_says_so() -> None:
    plan = build_plan([base_row(gpu="H200", peak_qps=40, avg_qps=10, tp=4)])
    day = day_fleet(plan.results, BOOK).iloc[0]
    assert day["autoscaled_monthly_cost"] < day["peak_monthly_cost"]
    assert day["mix_note"] == "no reserved_1y price in the price book"


def test_best_mix_reserves_the_level_that_costs_least() -> None:
    """Units 2 for 12 hours and 10 for 12: reserving 2 costs 2·52 + 8/2·98.32 an hour, less
    than reserving 10 (10·52) or none (6·98.32)."""
    units = np.array([2.0] * 12 + [10.0] * 12)
    level, hourly = best_mix(units, 98.32, 52.0)
    assert level == 2
    assert hourly == pytest.approx(min(2 * 52 + 4 * 98.32, 10 * 52, 6 * 98.32))


def test_the_first_quarter_is_the_plan_and_growth_adds_replicas() -> None:
    plan = build_plan([base_row(peak_qps=20, tp=8, growth_per_quarter=0.5, horizon_quarters=3)])
    r = plan.results.iloc[0]
    ramp = quarterly(plan.results, dt.date(2026, 12, 3))
    assert list(ramp["quarter"]) == ["Q4 2026", "Q1 2027", "Q2 2027"]
    first = ramp.iloc[0]
    assert (first["gpus"], first["nodes"]) == (r["gpus"], r["nodes"])
    assert first["monthly_cost"] == pytest.approx(r["monthly_cost"])
    assert ramp["gpus"].is_monotonic_increasing and ramp.iloc[2]["gpus"] > first["gpus"]
    assert quarter_label(dt.date(2026, 2, 1), 5) == "Q2 2027"


def test_a_row_sized_by_its_knee_keeps_its_size_in_the_first_quarter() -> None:
    """A row with P99 targets is sized by its knee, not the closed form: the ramp's first
    quarter and the busiest hour of the autoscaled day are the plan's fleet for it too (the
    default chat-8b-l40s row: 6 GPUs by its knee, 7 by the closed form), and its growth scales
    the rate the knee divides."""
    plan = build_plan([base_row(model="Llama-3.1-8B", gpu="L40S", peak_qps=20, avg_qps=8,
                                avg_prompt_tokens=600, avg_output_tokens=250,
                                max_prompt_tokens=2000, max_output_tokens=1000,
                                ttft_slo_ms=500, tpot_slo_ms=40, ttft_p99_ms=1000,
                                tpot_p99_ms=60, arrival_cv=2, growth_per_quarter=1.0,
                                horizon_quarters=2)])
    r = plan.results.iloc[0]
    assert r["knee_rps_per_instance"] > 0
    closed = np.ceil(r["concurrency"] / r["batch"] * r["safety_factor"])
    assert closed != r["instances"]  # the knee and the closed form disagree here
    ramp = quarterly(plan.results, dt.date(2026, 12, 3))
    assert (ramp.iloc[0]["gpus"], ramp.iloc[0]["nodes"]) == (r["gpus"], r["nodes"])
    assert ramp.iloc[0]["monthly_cost"] == pytest.approx(r["monthly_cost"])
    doubled = np.ceil(round(2 * r["peak_qps"] * r["safety_factor"]
                            / r["knee_rps_per_instance"], 9))
    assert ramp.iloc[1]["gpus"] == doubled * r["gpus_per_instance"]
    # following the day's traffic, its busiest hour runs the plan's replicas, not more
    day = hourly_replicas(r, None)
    assert day.max() == r["instances"] and day.min() < r["instances"]
