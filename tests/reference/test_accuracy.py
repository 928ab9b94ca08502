"""Accuracy against published measurements, the shipped calibration, and one test per physical
effect the calibration relies on (benchmarks/accuracy.py prints the full figures)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen import calibration as cal
from reportgen.efficiency import load_efficiency
from reportgen.engine import estimate
from tests.scenarios import base_row, estimate_rows, validated


@pytest.fixture(scope="module")
def bench() -> cal.Bench:
    """The measurements of the fitted release (the later release's are scored in
    test_later_release.py)."""
    return cal.build_bench(cal.load_measurements(cal.MEASUREMENTS_FILE),
                           efficiency=load_efficiency())


@pytest.fixture(scope="module")
def rows(bench: cal.Bench) -> pd.DataFrame:
    return cal.scored_rows(bench, cal.predict(bench))


# --- the shipped calibration -------------------------------------------------------------------


def test_shipped_measurements_are_complete_and_unique() -> None:
    """measurements_public.csv holds the usable rows of the reference measured_public.csv (862
    TensorRT-LLM v0.13 offline, 29 static-batching, 20 first-token, 13 gpt-fast rows)."""
    m = cal.load_measurements(cal.MEASUREMENTS_FILE)
    assert m["row_id"].is_unique
    assert m["kind"].value_counts().to_dict() == {
        "offline_throughput": 862, "static_throughput": 29, "ttft_batch1": 20,
        "decode_batch1": 13,
    }  # fmt: skip
    assert (m["measured"] > 0).all()


def test_shipped_efficiencies_reproduce_their_fit_error(rows: pd.DataFrame) -> None:
    """Each calibrated row of efficiency.csv is what the fit shipped: predicting its fit rows
    with the shipped table gives its fit_mdape_pct (within 0.5 points) and its band."""
    table = load_efficiency()
    calibrated = table[table["calibrated"] == "yes"]
    assert set(calibrated.index) == {"hopper-bf16", "hopper-fp8", "ampere-bf16", "ada-fp8"}
    for key, row in calibrated.iterrows():
        mine = rows[rows["fitted"] & (rows["efficiency_key"] == key)]
        assert len(mine) == int(row["n_measurements"])
        assert np.median(mine["ape_pct"]) == pytest.approx(float(row["fit_mdape_pct"]), abs=0.5)
        ratio = mine.loc[mine["kind"].isin(cal.THROUGHPUT_KINDS), "ratio"]
        assert np.percentile(ratio, 10) == pytest.approx(row["throughput_ratio_p10"], abs=0.01)
        assert np.percentile(ratio, 90) == pytest.approx(row["throughput_ratio_p90"], abs=0.01)


def test_shipped_efficiencies_are_physical() -> None:
    """Fitted efficiencies stay within their bounds (MFU ≤ 0.8, MBU ≤ 0.9) and share one step
    overhead; uncalibrated rows carry a wider band than every calibrated one."""
    table = load_efficiency()
    assert (table[["mfu_prefill", "mfu_decode"]] <= 0.8).all().all()
    assert (table["mbu"] <= 0.9).all()
    assert table["step_overhead_ms"].nunique() == 1
    calibrated = table["calibrated"] == "yes"
    prior, fitted = table[~calibrated], table[calibrated]
    assert (prior["throughput_ratio_p10"] < fitted["throughput_ratio_p10"].min()).all()
    assert (prior["throughput_ratio_p90"] > fitted["throughput_ratio_p90"].max()).all()


def test_accuracy_meets_the_targets(rows: pd.DataFrame) -> None:
    """On the public rows: MdAPE ≤ 15 % offline, ≤ 20 % batch-1 first-token latency and decode
    speed, and no offline GPU × precision group worse than 30 %."""
    for kind, limit in cal.TARGETS_PCT.items():
        assert cal.kind_score(rows, kind).mdape_pct <= limit, kind
    groups = cal.group_scores(rows[rows["kind"] == "offline_throughput"], ["gpu", "precision"])
    assert groups["mdape_pct"].max() <= cal.GROUP_TARGET_PCT


def test_calibration_beats_the_plain_roofline(bench: cal.Bench, rows: pd.DataFrame) -> None:
    """Efficiencies 1.0 without overhead overestimate offline throughput by far more."""
    plain = bench.with_efficiency(cal.plain_roofline(bench.tables.efficiency))
    plain_rows = cal.scored_rows(plain, cal.predict(plain))
    plain_mdape = cal.kind_score(plain_rows, "offline_throughput").mdape_pct
    assert plain_mdape > 3 * cal.kind_score(rows, "offline_throughput").mdape_pct


def test_error_band_brackets_the_plan_and_uncalibrated_plans_say_so() -> None:
    """gpus_low ≤ gpus ≤ gpus_high with the shipped band; a Blackwell plan (no measurements)
    is marked uncalibrated."""
    result = estimate_rows([base_row(scenario="h100", tpot_slo_ms=50),
                            base_row(scenario="b200", gpu="B200", tpot_slo_ms=50)])
    assert (result["gpus_low"] <= result["gpus"]).all()
    assert (result["gpus"] <= result["gpus_high"]).all()
    assert result["gpus_high"].iloc[0] > result["gpus_low"].iloc[0]
    assert "uncalibrated" in result["notes"].iloc[1]
    assert "uncalibrated" not in result["notes"].iloc[0]


# --- physics, one effect each --------------------------------------------------------------------


def _trt_offline(**changes: object) -> dict[str, object]:
    row = base_row(avg_prompt_tokens=128, avg_output_tokens=2048, weight_dtype="fp8",
                   kv_dtype="fp8", engine="tensorrt-llm", max_batch=cal.TRTLLM_BENCH_MAX_BATCH)
    row.update(changes)
    return row


def test_tp8_gives_less_throughput_per_gpu_than_tp4_for_70b_on_h100() -> None:
    """TensorRT-LLM perf-overview v0.13, Llama-3.1-70B FP8 128/2048 on H100: TP4 9,377.87 tok/s
    (2,344 per GPU) vs TP8 15,168.97 tok/s (1,896 per GPU)."""
    result = estimate_rows([_trt_offline(scenario="tp4", tp=4), _trt_offline(scenario="tp8", tp=8)])
    per_gpu = result["output_tokens_per_s_per_gpu"].to_numpy()
    assert per_gpu[1] < per_gpu[0]
    assert per_gpu[1] / per_gpu[0] == pytest.approx(1896 / 2344, abs=0.1)


def test_l40s_pcie_all_reduce_is_slower_than_h100_nvlink() -> None:
    """L40S has no NVLink (PCIe Gen4 x16, 32 GB/s per direction) where H100 SXM has NVLink4
    (450 GB/s per direction) — L40S datasheet and H100 whitepaper, gpu_specs.csv."""
    result = estimate_rows([_trt_offline(scenario="l40s", gpu="L40S", tp=2),
                            _trt_offline(scenario="h100", gpu="H100", tp=2)])
    l40s, h100 = result["allreduce_s_per_token"].to_numpy()
    assert l40s > 10 * h100
    assert result["allreduce_fixed_s"].iloc[0] > 0


def test_kv_budget_of_70b_bf16_on_two_h100_depends_on_the_engine() -> None:
    """vLLM gpu_memory_utilization (0.9 of all memory), TensorRT-LLM free_gpu_memory_fraction
    (0.9 of what weights leave) and SGLang mem_fraction_static (0.88) define different budgets."""
    rows = [base_row(scenario=e, tp=2, engine=e) for e in ("vllm", "tensorrt-llm", "sglang")]
    budgets = estimate_rows(rows)["kv_budget_gib"].to_numpy()
    assert len(set(np.round(budgets, 3))) == 3
    assert (budgets > 0).all()


def test_attention_time_grows_with_context() -> None:
    """TensorRT-LLM v0.13, Llama-3.1-8B FP8 on H100: 19,221 output tok/s at 128/2048 but 8,851
    at 2048/2048 — each sequence's KV-cache read grows with its context."""
    short = estimate_rows([base_row(model="Llama-3.1-8B", avg_prompt_tokens=128)])
    long = estimate_rows([base_row(model="Llama-3.1-8B", avg_prompt_tokens=8000)])
    for column in ("decode_attention_s_per_seq", "prefill_flops"):
        assert long[column].iloc[0] > short[column].iloc[0]
    ratio = long["decode_attention_s_per_seq"].iloc[0] / short["decode_attention_s_per_seq"].iloc[0]
    expected = (8000 + 400) / (128 + 400)  # context = prompt + half the output (800 tokens)
    assert ratio == pytest.approx(expected)


def test_moe_decode_at_batch_1_reads_fewer_weights_than_at_batch_256() -> None:
    """Mixtral-8x7B config.json: 8 experts, 2 per token — one token touches 2 of 8 experts per
    layer, 256 tokens touch nearly all of them."""
    checked = validated([base_row(model="Mixtral-8x7B")])
    one = estimate(checked.scenarios, checked.tables, overrides={"batch": 1.0})
    many = estimate(checked.scenarios, checked.tables, overrides={"batch": 256.0})
    read_one = one["weights_read_gib_per_step"].iloc[0]
    read_many = many["weights_read_gib_per_step"].iloc[0]
    weights = one["weights_gib"].iloc[0]
    assert read_one < 0.4 * weights
    assert read_many == pytest.approx(weights, rel=1e-6)
