"""The search plans every configuration a row allows and keeps the cheapest that meets its
targets; the choice budgets one row per workload and never a comparison row."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reportgen.choose import configuration
from reportgen.engine import estimate
from reportgen.search import search
from tests.helpers import GENERATED, build_plan
from tests.scenarios import base_row, validated

DEFAULT_INPUTS = Path(__file__).resolve().parents[2] / "inputs" / "scenarios.csv"
RAG = dict(scenario="rag", model="Llama-3.3-70B", gpu="H200", peak_qps=8, avg_qps=3,
           avg_prompt_tokens=12000, avg_output_tokens=400, max_prompt_tokens=16000,
           max_output_tokens=1000, weight_dtype="fp8", kv_dtype="fp8", ttft_slo_ms=3000,
           tpot_slo_ms=50, engine="tensorrt-llm")


def test_blank_tp_is_the_cheapest_not_the_smallest_that_fits() -> None:
    """The default long-prompt RAG row: the quick rule (smallest tp that leaves half the memory
    free) gives tp 1 and 41 H200; tp 2 needs 36, which is what the plan budgets."""
    plan = build_plan([RAG])
    row = plan.results.iloc[0]
    assert (row["tp"], row["gpus"], row["status"]) == (2, 36, "chosen")
    assert row["typed_configuration"].startswith("H200-SXM, TP 1")
    assert row["typed_monthly_cost"] == pytest.approx(41 * 4.54 * 730)
    assert row["saving_monthly_cost"] == pytest.approx(5 * 4.54 * 730)
    assert row["candidates_evaluated"] == 4 and row["searched"] == "tp"
    assert "runner-up" in row["decision"]


def test_every_candidate_is_what_the_engine_says_of_it_alone() -> None:
    """Each kept candidate's cost equals an estimate of that configuration typed explicitly."""
    checked = validated([base_row(gpu="H100|H200|L40S", weight_dtype="bf16|fp8",
                                  tpot_slo_ms=60)])
    found = search(checked.scenarios, checked.specs, checked.tables)
    assert found.evaluated[0] == 3 * 4 * 2  # 64 heads: every tp splits them
    for _, kept in found.kept.iterrows():
        one = validated([base_row(gpu=kept["gpu"], tp=int(kept["tp"]),
                                  weight_dtype=kept["weight_dtype"], tpot_slo_ms=60)])
        alone = estimate(one.scenarios, one.tables).iloc[0]
        assert alone["monthly_cost"] == pytest.approx(kept["monthly_cost"])


def test_small_chunks_find_the_same_plan() -> None:
    checked = validated([base_row(scenario=f"s{i}", gpu="auto", peak_qps=10 * (i + 1))
                         for i in range(3)])
    big = search(checked.scenarios, checked.specs, checked.tables)
    small = search(checked.scenarios, checked.specs, checked.tables, chunk=7)
    cols = ["row", "gpu", "tp", "monthly_cost", "rank"]
    assert big.best()[cols].equals(small.best()[cols])
    assert (big.evaluated == small.evaluated).all()


def test_a_results_only_plan_is_the_plan() -> None:
    """`reportgen estimate` keeps each row's best two candidates, not the alternatives the
    report draws, and estimates again only the rows whose knee was simulated: its results
    equal a full plan's, and each row equals the engine's estimate of its final inputs."""
    from reportgen.pipeline import load, make_plan

    checked = load(DEFAULT_INPUTS)
    full = make_plan(checked, "scenarios.csv", generated=GENERATED)
    lean = make_plan(checked, "scenarios.csv", generated=GENERATED, results_only=True)
    pd.testing.assert_frame_equal(lean.results, full.results)
    assert lean.search.kept["rank"].max() == 2 < full.search.kept["rank"].max()
    assert lean.scenarios["knee_rps"].notna().any()  # the default inputs have P99 targets
    again = estimate(lean.scenarios, lean.tables)
    pd.testing.assert_frame_equal(lean.results[again.columns], again)


def test_one_row_per_workload_is_budgeted_the_others_say_why_not() -> None:
    plan = build_plan([
        base_row(scenario="on-h100", workload="coding", tpot_slo_ms=50),
        base_row(scenario="on-h200", workload="Coding ", gpu="H200", tpot_slo_ms=50),
        base_row(scenario="on-l40s", workload="coding", gpu="L40S", tp=8, tpot_slo_ms=5),
        base_row(scenario="reference", role="compare"),
        base_row(scenario="tutorial", method="tutorial"),
    ])
    r = plan.results.set_index("scenario")
    costs = r.loc[["on-h100", "on-h200"], "monthly_cost"]
    cheaper, dearer = costs.idxmin(), costs.idxmax()
    assert r.loc[cheaper, "status"] == "chosen" and r.loc[cheaper, "counted"] == 1
    assert r.loc[dearer, "status"] == "option" and r.loc[dearer, "counted"] == 0
    assert f'more than "{cheaper}"' in r.loc[dearer, "decision"]
    assert r.loc["on-l40s", "status"] == "no fit"
    assert r.loc["reference", "status"] == "compare" and r.loc["reference", "counted"] == 0
    assert r.loc["tutorial", "role"] == "compare"
    assert r.loc["tutorial", "searched"] == ""  # the tutorial's configuration, as given
    assert r["counted"].sum() == 1


def test_tied_options_go_to_fewer_gpus_then_lower_tpot_then_the_first_row() -> None:
    plan = build_plan([base_row(scenario="a", workload="w"), base_row(scenario="b", workload="w")])
    assert list(plan.results["status"]) == ["chosen", "option"]


def test_blank_dtype_rows_and_explicit_ones_are_one_candidate() -> None:
    """auto precision adds only what the GPU's tensor cores run: fp8 on Hopper, nothing on
    Ampere (bf16 only)."""
    checked = validated([base_row(scenario="h", weight_dtype="auto"),
                         base_row(scenario="a", gpu="A100-SXM-80GB", weight_dtype="auto")])
    found = search(checked.scenarios, checked.specs, checked.tables)
    kept = found.kept
    assert set(kept[kept["row"] == 0]["weight_dtype"]) <= {"bf16", "fp8"}
    assert set(kept[kept["row"] == 1]["weight_dtype"]) == {"bf16"}
    assert found.evaluated[1] == 4


def test_a_row_that_nothing_fits_keeps_its_reason() -> None:
    """756 GiB of bf16 weights exceed even 32 × 24 GiB × 0.9 (TP 8 × PP 4 of 24 GB cards)."""
    plan = build_plan([base_row(model="Llama-3.1-405B", gpu="L4|A10", weight_dtype="bf16")])
    row = plan.results.iloc[0]
    assert row["status"] == "no fit" and row["bottleneck"] == "weights_do_not_fit"
    assert np.isnan(row["saving_monthly_cost"])
    assert row["searched"] == "gpu, tp, pp"  # every pipeline depth was tried
    assert row["candidates_evaluated"] == 2 * 4 * 3


def test_attention_data_parallel_is_searched_when_asked() -> None:
    """DeepSeek-V3 on H100 with attention_dp = auto: both ways are planned at every tp and pp
    searched; data-parallel attention (one latent per sequence instead of one on every GPU of
    the tensor-parallel group) is cheaper and budgeted, and its words say DEP."""
    row = dict(scenario="r1", model="DeepSeek-V3", gpu="H100", peak_qps=6, avg_qps=2,
               avg_prompt_tokens=1500, avg_output_tokens=1500, max_prompt_tokens=8000,
               max_output_tokens=8000, ttft_slo_ms=3000, tpot_slo_ms=60, attention_dp="auto")
    searched = build_plan([row]).results.iloc[0]
    alone = {dp: build_plan([dict(row, attention_dp=dp, tp=8, pp=2)]).results.iloc[0]
             for dp in (0, 1)}
    assert "attention_dp" in searched["searched"]
    assert searched["attention_replicas"] == searched["tp"] == 8 and searched["pp"] == 2
    assert searched["monthly_cost"] == alone[1]["monthly_cost"] < alone[0]["monthly_cost"]
    assert configuration(searched).startswith("H100-SXM, DEP 8 × PP 2 (16 GPUs per replica")
    assert searched["typed_configuration"].startswith("H100-SXM, TP 8,")  # auto as typed: 0
