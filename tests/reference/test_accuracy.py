"""Accuracy against published measurements, the shipped calibration, and one test per physical
effect the calibration relies on (benchmarks/accuracy.py prints the full figures)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen import calibration as cal
from reportgen.efficiency import load_efficiency
from reportgen.engine import estimate
from reportgen.units import CONSTANTS
from tests.scenarios import base_row, estimate_rows, validated


@pytest.fixture(scope="module")
def bench() -> cal.Bench:
    """The measurements of both fitted TensorRT-LLM releases (v0.13 through the release factor)
    and the batch-1 rows."""
    return cal.build_bench(cal.load_measurements(), efficiency=load_efficiency())


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
    with the shipped table gives its fit_mdape_pct (within 0.5 points), its dense band and its
    mixture-of-experts band; every calibrated row names the engine its rows ran on."""
    table = load_efficiency()
    calibrated = table[table["calibrated"] == "yes"]
    assert set(calibrated.index) == {"hopper-bf16", "hopper-fp8", "ampere-bf16", "ada-fp8",
                                     "blackwell-fp4", "blackwell-rtx-fp4"}
    assert set(calibrated["engine"]) == {"tensorrt-llm"}
    for key, row in calibrated.iterrows():
        mine = rows[rows["fitted"] & (rows["efficiency_key"] == key)]
        assert len(mine) == int(row["n_measurements"])
        assert np.median(mine["ape_pct"]) == pytest.approx(float(row["fit_mdape_pct"]), abs=0.5)
        throughput = mine[mine["kind"].isin(cal.THROUGHPUT_KINDS)]
        for moe, low, high in (("dense", "throughput_ratio_p10", "throughput_ratio_p90"),
                               ("MoE", "moe_ratio_p10", "moe_ratio_p90")):
            ratio = throughput.loc[throughput["moe"] == moe, "ratio"]
            assert len(ratio) >= 5, (key, moe)
            assert np.percentile(ratio, 10) == pytest.approx(row[low], abs=0.01)
            assert np.percentile(ratio, 90) == pytest.approx(row[high], abs=0.01)
        assert int(row["n_moe_measurements"]) == (throughput["moe"] == "MoE").sum()


def test_shipped_efficiencies_are_physical() -> None:
    """Fitted efficiencies stay within their bounds (MFU ≤ 0.8, MBU ≤ 0.9) and share one step
    overhead; uncalibrated rows carry a wider band than every calibrated one, of either model
    class, and name no engine."""
    table = load_efficiency()
    assert (table[["mfu_prefill", "mfu_decode"]] <= 0.8).all().all()
    assert (table["mbu"] <= 0.9).all()
    assert table["step_overhead_ms"].nunique() == 1
    calibrated = table["calibrated"] == "yes"
    prior, fitted = table[~calibrated], table[calibrated]
    lowest = fitted[["throughput_ratio_p10", "moe_ratio_p10"]].min().min()
    highest = fitted[["throughput_ratio_p90", "moe_ratio_p90"]].max().max()
    for column in ("throughput_ratio_p10", "moe_ratio_p10"):
        assert (prior[column] < lowest).all()
    for column in ("throughput_ratio_p90", "moe_ratio_p90"):
        assert (prior[column] > highest).all()
    assert (prior["engine"] == "").all()


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
    """gpus_low ≤ gpus ≤ gpus_high with the shipped band; a bf16 plan on B200 (no bf16
    Blackwell measurements) is marked uncalibrated; a TensorRT-LLM plan on H100 is not."""
    result = estimate_rows([
        base_row(scenario="h100", tpot_slo_ms=50, engine="tensorrt-llm"),
        base_row(scenario="b200", gpu="B200", tpot_slo_ms=50, engine="tensorrt-llm")])
    assert (result["gpus_low"] <= result["gpus"]).all()
    assert (result["gpus"] <= result["gpus_high"]).all()
    assert result["gpus_high"].iloc[0] > result["gpus_low"].iloc[0]
    assert "uncalibrated" in result["notes"].iloc[1]
    assert "uncalibrated" not in result["notes"].iloc[0]


def test_band_follows_the_model_class_and_widens_on_an_uncalibrated_engine() -> None:
    """A MoE plan takes the row's mixture-of-experts band, a dense plan its dense band; a vLLM
    or SGLang plan (no measurements of theirs calibrate the shipped rows) widens either by
    UNCALIBRATED_ENGINE_WIDENING each side and says it is uncalibrated for that engine."""
    table = load_efficiency()
    row = table.loc["hopper-fp8"]
    w = float(CONSTANTS["UNCALIBRATED_ENGINE_WIDENING"].value)
    common = dict(gpu="H100", weight_dtype="fp8", kv_dtype="fp8", tpot_slo_ms=60, tp=8)
    result = estimate_rows([
        base_row(scenario="dense-trt", engine="tensorrt-llm", **common),
        base_row(scenario="moe-trt", model="Mixtral-8x7B", engine="tensorrt-llm", **common),
        base_row(scenario="dense-vllm", engine="vllm", **common),
        base_row(scenario="moe-sglang", model="Mixtral-8x7B", engine="sglang", **common),
    ]).set_index("scenario")
    low, high = result["band_ratio_p10"], result["band_ratio_p90"]
    assert (low["dense-trt"], high["dense-trt"]) == pytest.approx(
        (row["throughput_ratio_p10"], row["throughput_ratio_p90"]))
    assert (low["moe-trt"], high["moe-trt"]) == pytest.approx(
        (row["moe_ratio_p10"], row["moe_ratio_p90"]))
    assert (low["dense-vllm"], high["dense-vllm"]) == pytest.approx(
        (row["throughput_ratio_p10"] * (1 - w), row["throughput_ratio_p90"] * (1 + w)))
    assert (low["moe-sglang"], high["moe-sglang"]) == pytest.approx(
        (row["moe_ratio_p10"] * (1 - w), row["moe_ratio_p90"] * (1 + w)))
    assert "uncalibrated for vllm" in result.at["dense-vllm", "notes"]
    assert "uncalibrated for sglang" in result.at["moe-sglang", "notes"]
    assert "uncalibrated for" not in result.at["dense-trt", "notes"]
    wide = result.loc["dense-vllm"]
    assert wide["gpus_high"] - wide["gpus_low"] > result.at["dense-trt", "gpus_high"] - \
        result.at["dense-trt", "gpus_low"]


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


def test_kv_heads_fewer_than_gpus_are_stored_on_several() -> None:
    """TensorRT-LLM's trtllm-bench sizes the KV cache with max(tp, kv_heads) heads ("each GPU in
    the TP group has at least 1 kv head", tensorrt_llm/bench/build/tuning.py): Qwen3-235B-A22B
    has 4 KV heads, so at TP 8 each is kept twice and half the sequences fit; Llama-3.1-70B's 8
    KV heads need no copy at TP 8; an MLA latent (DeepSeek-R1) is kept whole on every GPU."""
    rows = [base_row(scenario="qwen", model="Qwen3-235B-A22B", tp=8, weight_dtype="fp8"),
            base_row(scenario="llama", tp=8),
            base_row(scenario="deepseek", model="DeepSeek-R1", gpu="H200", tp=8)]
    result = estimate_rows(rows).set_index("scenario")
    assert list(result["kv_copies"]) == [2.0, 1.0, 8.0]
    one = estimate_rows(rows[:1], constants=None)
    checked = validated(rows[:1])
    single = estimate(checked.scenarios, checked.tables, overrides={"kv_copies": 1.0})
    assert one["batch_max_kv"].iloc[0] == pytest.approx(
        np.floor(single["batch_max_kv"].iloc[0] / 2), abs=1)
    assert result.at["qwen", "kv_stored_gib_per_seq"] == pytest.approx(
        2 * result.at["qwen", "kv_gib_per_seq"])


def test_v1_moe_rows_can_be_read_as_attention_data_parallel(bench: cal.Bench) -> None:
    """TensorRT-LLM v1.0 perf-overview.md, "Running the Benchmark": the command for MoE models
    adds --ep and enable_attention_dp. The ablation reads exactly the v1.0 MoE rows at tp > 1
    that way: each GPU then keeps one copy of its own sequences' KV cache (Qwen3-235B-A22B's
    4 KV heads are no longer stored twice at TP 8) and the whole attention weights."""
    (ablation,) = [a for a in cal.ABLATIONS if a.name == "v1.0 MoE runs attention data-parallel"]
    m = bench.measurements
    changed = ablation.bench(bench).checked.scenarios["attention_dp"].eq(1).to_numpy()
    experts = bench.tables.models["experts"].reindex(m["model"]).to_numpy()
    v1 = m["framework_version"].eq("1.0").to_numpy()
    assert (changed == (v1 & (experts > 1) & (m["tp"] > 1).to_numpy())).all()
    assert set(m.loc[changed, "model"]) == {"Llama-4-Maverick-17B-128E", "Llama-4-Scout-17B-16E",
                                            "Qwen3-235B-A22B", "Qwen3-30B-A3B"}
    one = np.zeros(len(m), dtype=bool)
    qwen_tp8 = changed & (m["model"] == "Qwen3-235B-A22B").to_numpy() & (m["tp"] == 8).to_numpy()
    one[np.flatnonzero(qwen_tp8)[0]] = True
    before = estimate(bench.subset(one).checked.scenarios, bench.tables)
    after = estimate(ablation.bench(bench).subset(one).checked.scenarios, bench.tables)
    assert before["kv_copies"].iloc[0] == 2.0 and after["kv_copies"].iloc[0] == 1.0
    assert after["attention_replicas"].iloc[0] == 8.0


def test_routed_experts_count_at_their_grouped_gemm_speed() -> None:
    """Mixtral-8x7B: 12.9 B active parameters of which 2 of 8 experts × 32 layers are routed;
    their matrix multiplies count 1 ÷ the row's moe_gemm_efficiency each; a dense model's count
    once. The fitted efficiency is lower for Blackwell FP4 than for Hopper FP8 (TensorRT-LLM
    v1.0 Llama-4 and Qwen3 MoE rows run far below the dense rows' MFU there)."""
    result = estimate_rows([base_row(scenario="moe", model="Mixtral-8x7B"),
                            base_row(scenario="dense")]).set_index("scenario")
    table = load_efficiency()
    eff = float(table.at[str(result.at["moe", "efficiency_key"]), "moe_gemm_efficiency"])
    assert 0.2 <= eff <= 1.0
    assert table.at["blackwell-fp4", "moe_gemm_efficiency"] < table.at["hopper-fp8",
                                                                        "moe_gemm_efficiency"]
    moe = result.loc["moe"]
    routed = moe["active_params_b"] - (moe["params_b"] - moe["expert_params_b"])
    assert moe["routed_active_params_b"] == pytest.approx(routed)
    assert routed == pytest.approx(2 / 8 * moe["expert_params_b"], rel=1e-3)
    assert moe["gemm_params_b"] == pytest.approx(moe["active_params_b"] + routed * (1 / eff - 1))
    dense = result.loc["dense"]
    assert dense["routed_active_params_b"] == 0
    assert dense["gemm_params_b"] == dense["active_params_b"]


def test_mla_decodes_with_absorbed_projections() -> None:
    """DeepSeek-V3/R1 config: 128 heads, kv_lora_rank 512, qk_rope_head_dim 64 (latent 576 per
    layer), 61 layers. Absorbed decode: 2·128·(512 + 64) FLOPs for QKᵀ and 2·128·512 for PV per
    layer and cached token; prefill keeps 4·H·d with d = 192. A GQA model decodes as it
    prefills."""
    result = estimate_rows([base_row(scenario="mla", model="DeepSeek-R1", gpu="H200", tp=8),
                            base_row(scenario="gqa")]).set_index("scenario")
    mla = result.loc["mla"]
    assert mla["decode_attention_flops_per_token_pair"] == 61 * (2 * 128 * 576 + 2 * 128 * 512)
    assert mla["attention_flops_per_token_pair"] == 4 * 61 * 128 * 192
    gqa = result.loc["gqa"]
    assert gqa["decode_attention_flops_per_token_pair"] == gqa["attention_flops_per_token_pair"]
