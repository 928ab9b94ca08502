"""Levers are computed, not recited: each applies only where it means something, and what it is
worth is the engine's own plan of the row with that one change."""

from __future__ import annotations

import math

import pytest

from reportgen.levers import with_levers
from reportgen.plan import Plan
from tests.helpers import build_plan
from tests.scenarios import base_row

ROW = base_row(scenario="coding", avg_qps=60, ttft_slo_ms=2000, tpot_slo_ms=50,
               max_prompt_tokens=3000, max_output_tokens=1600, gpu="H100|H200")


def _levers(rows: list[dict[str, object]]) -> Plan:
    return with_levers(build_plan(rows))


def _changed(lever: str, chosen: dict[str, object]) -> dict[str, object]:
    """The row as a user would type it with the lever applied."""
    tp = int(chosen["tp"])  # type: ignore[call-overload]
    return {
        "next_tp": {"tp": 2 * tp, "gpu": chosen["gpu"]},
        "gpu:H100-SXM": {"gpu": "H100-SXM"},
        "gpu:H200-SXM": {"gpu": "H200-SXM"},
        "fp8_weights": {"weight_dtype": "fp8"},
        "fp8_kv": {"kv_dtype": "fp8"},
        "prefix_cache_30": {"prefix_cache_hit_rate": 0.3},
        "prefix_cache_50": {"prefix_cache_hit_rate": 0.5},
        "tpot_target_looser": {"tpot_slo_ms": 60},
        "safety_factor": {"safety_factor": 1.2},
        "max_context_halved": {"max_prompt_tokens": 1500, "max_output_tokens": 800},
    }[lever]


def test_each_lever_is_the_engine_plan_of_the_changed_row() -> None:
    plan = _levers([ROW])
    chosen = plan.results.iloc[0].to_dict()
    levers = plan.levers
    assert levers is not None
    assert set(levers["lever"]) == {
        "next_tp", "gpu:H100-SXM" if chosen["gpu"] != "H100-SXM" else "gpu:H200-SXM",
        "fp8_weights", "fp8_kv", "prefix_cache_30", "prefix_cache_50", "tpot_target_looser",
        "safety_factor", "max_context_halved",
    }
    for _, lever in levers.iterrows():
        again = build_plan([{**ROW, **_changed(str(lever["lever"]), chosen)}]).results.iloc[0]
        assert lever["monthly_cost"] == pytest.approx(again["monthly_cost"]), lever["lever"]
        assert lever["delta_monthly_cost"] == pytest.approx(
            again["monthly_cost"] - chosen["monthly_cost"])
        assert lever["delta_gpus"] == again["gpus"] - chosen["gpus"]
    savings = levers["delta_monthly_cost"].tolist()
    assert savings == sorted(savings)  # largest saving first


def test_levers_that_do_not_apply_are_not_offered() -> None:
    plan = _levers([base_row(weight_dtype="fp8", kv_dtype="fp8", safety_factor=1.1,
                                prefix_cache_hit_rate=0.6, tp=8)])
    assert set(plan.levers["lever"]) == set()  # no target, max = mean, tp already 8


def test_comparison_rows_and_unchosen_options_have_no_levers() -> None:
    plan = _levers([
        base_row(scenario="a", workload="w", tpot_slo_ms=50),
        base_row(scenario="b", workload="w", gpu="L40S", tpot_slo_ms=50),
        base_row(scenario="c", role="compare"),
    ])
    assert set(plan.levers["scenario"]) == {"a"}


def test_a_row_that_does_not_fit_learns_what_would_make_it_fit() -> None:
    plan = _levers([base_row(gpu="L40S", tp=2, pp=1)])  # 141 GB of weights on 2 × 48 GB
    assert plan.results.iloc[0]["status"] == "no fit"
    fp8 = plan.levers.set_index("lever").loc["fp8_weights"]
    assert bool(fp8["feasible"]) and fp8["monthly_cost"] > 0
    assert math.isnan(fp8["delta_monthly_cost"])  # no base to compare with


def test_more_pipeline_stages_are_weighed_where_memory_binds_a_full_node() -> None:
    """A 70B replica on a full L40S node (TP 8) held back by KV memory: the lever doubles the
    stages (16 GPUs over two nodes, twice the KV budget per replica), and what it is worth is
    the engine's plan of the row typed with pp 2."""
    row = base_row(scenario="long", gpu="L40S", tp=8, peak_qps=5, max_prompt_tokens=30000,
                   max_output_tokens=2000)
    plan = _levers([row])
    chosen = plan.results.iloc[0]
    assert (chosen["bottleneck"], chosen["pp"]) == ("kv_memory", 1)
    lever = plan.levers.set_index("lever").loc["next_pp"]
    assert "16 GPUs per replica across 2 nodes" in lever["change"]
    again = build_plan([{**row, "pp": 2}]).results.iloc[0]
    assert lever["monthly_cost"] == pytest.approx(again["monthly_cost"])
    assert lever["delta_monthly_cost"] == pytest.approx(
        again["monthly_cost"] - chosen["monthly_cost"])
    tpot_bound = _levers([base_row(tp=8, tpot_slo_ms=40)])  # stages would not speed decode
    assert "next_pp" not in set(tpot_bound.levers["lever"])
