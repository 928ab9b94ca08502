"""Invariants of the search and the choice (Hypothesis): searching never costs more than any
configuration typed explicitly, and totals count exactly one row per workload."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from reportgen.engine import estimate
from tests.helpers import build_plan
from tests.scenarios import validated

MODELS = ("Llama-3.1-8B", "Llama-3.1-70B", "Mixtral-8x7B", "Qwen2.5-32B", "Qwen3-30B-A3B")
GPUS = ("H100-SXM", "H200-SXM", "A100-SXM-80GB", "L40S", "B200")
SOME = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

workloads = st.fixed_dictionaries(
    {
        "model": st.sampled_from(MODELS),
        "peak_qps": st.floats(0.5, 500),
        "avg_prompt_tokens": st.integers(50, 8000),
        "avg_output_tokens": st.integers(20, 1500),
        "tpot_slo_ms": st.one_of(st.none(), st.floats(5, 120)),
        "ttft_slo_ms": st.one_of(st.none(), st.floats(100, 5000)),
        "weight_dtype": st.sampled_from(("bf16", "fp8")),
    }
)


@SOME
@given(workloads, st.lists(st.sampled_from(GPUS), min_size=1, max_size=3, unique=True))
@example({"model": "Mixtral-8x7B", "peak_qps": 1.0, "avg_prompt_tokens": 5061,
          "avg_output_tokens": 20, "tpot_slo_ms": 5.0, "ttft_slo_ms": None,
          "weight_dtype": "bf16"}, ["B200"])  # only TP 8 × PP 2 meets the 5 ms target
def test_auto_never_costs_more_than_an_explicit_choice(
    workload: dict[str, object], gpus: list[str]
) -> None:
    searched = build_plan([{"scenario": "s", "gpu": "|".join(gpus), **workload}])
    chosen = searched.results.iloc[0]
    explicit = [
        {"scenario": f"{g}-{t}", "gpu": g, "tp": t, **workload}
        for g, t in itertools.product(gpus, (1, 2, 4, 8))
    ]
    checked = validated([row for row in explicit if _splits_heads(row)])
    each = estimate(checked.scenarios, checked.tables)
    feasible = each[each["in_plan_total"] == 1]
    if feasible.empty:
        # no single-node replica meets the targets: the search may still plan pipeline stages
        # (a blank pp), which the next test compares with every tp × pp typed explicitly
        assert chosen["status"] == "no fit" or float(chosen["pp"]) > 1
        return
    assert chosen["status"] == "chosen"
    cheapest = round(float(feasible["monthly_cost"].min()), 2)
    assert round(float(chosen["monthly_cost"]), 2) <= cheapest


BIG = ("Llama-3.1-405B", "DeepSeek-V3", "Llama-3.1-70B")
BIG_GPUS = ("H100-SXM", "H200-SXM", "L40S")


@SOME
@given(st.fixed_dictionaries({
    "model": st.sampled_from(BIG),
    "peak_qps": st.floats(0.5, 50),
    "avg_prompt_tokens": st.integers(100, 12000),
    "avg_output_tokens": st.integers(20, 1500),
    "tpot_slo_ms": st.one_of(st.none(), st.floats(20, 200)),
}), st.lists(st.sampled_from(BIG_GPUS), min_size=1, max_size=2, unique=True),
    st.sampled_from(("auto", "")))
def test_auto_never_costs_more_than_an_explicit_replica_shape(
    workload: dict[str, object], gpus: list[str], pp: str
) -> None:
    """With pipeline stages searched (pp auto) the plan costs no more than any tp × pp typed
    explicitly; with pp blank, no more than any single-node one, and no more than any at all
    when no single-node one meets the targets."""
    searched = build_plan([{"scenario": "s", "gpu": "|".join(gpus), "pp": pp, **workload}])
    chosen = searched.results.iloc[0]
    explicit = [{"scenario": f"{g}-{t}-{p}", "gpu": g, "tp": t, "pp": p, **workload}
                for g, t, p in itertools.product(gpus, (1, 2, 4, 8), (1, 2, 4))]
    checked = validated([row for row in explicit if _splits_heads(row)])
    each = estimate(checked.scenarios, checked.tables)
    feasible = each[each["in_plan_total"] == 1]
    single = feasible[feasible["pp"] == 1]
    pool = feasible if pp == "auto" or single.empty else single
    if pool.empty:
        assert chosen["status"] == "no fit"
        return
    assert chosen["status"] == "chosen"
    assert round(float(chosen["monthly_cost"]), 2) <= round(float(pool["monthly_cost"].min()), 2)
    if pp == "" and not single.empty:
        assert chosen["pp"] == 1  # a blank pp keeps replicas on one node when one suffices


def _splits_heads(row: dict[str, object]) -> bool:
    heads = {"Llama-3.1-8B": (32, 8), "Llama-3.1-70B": (64, 8), "Mixtral-8x7B": (32, 8),
             "Qwen2.5-32B": (40, 8), "Qwen3-30B-A3B": (32, 4), "Llama-3.1-405B": (128, 8),
             "DeepSeek-V3": (128, 128)}[str(row["model"])]
    t = int(row["tp"])  # type: ignore[call-overload]
    return heads[0] % t == 0 and (heads[1] % t == 0 or t % heads[1] == 0)


@SOME
@given(st.lists(st.tuples(workloads, st.sampled_from(GPUS), st.sampled_from(("a", "b", "c")),
                          st.sampled_from(("plan", "plan", "compare"))),
                min_size=1, max_size=6))
def test_totals_count_one_plan_row_per_workload_and_no_comparison(
    rows: list[tuple[dict[str, object], str, str, str]],
) -> None:
    plan = build_plan([
        {"scenario": f"s{i}", "gpu": gpu, "workload": name, "role": role, **w}
        for i, (w, gpu, name, role) in enumerate(rows)
    ])
    r = plan.results
    counted = r[r["counted"] == 1]
    assert (counted["role"] == "plan").all() and (counted["in_plan_total"] == 1).all()
    assert counted["workload_key"].is_unique
    competing = r[(r["role"] == "plan") & (r["in_plan_total"] == 1)]
    for key, group in competing.groupby("workload_key"):
        mine = counted[counted["workload_key"] == key]
        assert len(mine) == 1
        assert round(float(mine["monthly_cost"].iloc[0]), 2) == group["monthly_cost"].round(2).min()
