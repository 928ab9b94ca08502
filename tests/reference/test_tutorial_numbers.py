"""The source tutorial's worked numbers (shared/seed/NOTES.md, "Worked numbers") and published
model facts, reproduced by the engine."""

from __future__ import annotations

import pytest

from reportgen.engine import estimate
from tests.scenarios import base_row, estimate_rows, validated


def test_compute_ceiling_of_70b_on_h100_is_2828_tokens_per_s() -> None:
    """Tutorial Q3: 990 TFLOPS × 0.40 / (2 × 70e9) = 2,828.6 tokens/s (tutorial method, MFU 0.4)."""
    result = estimate_rows([base_row(method="tutorial", params_b=70, gpu_tflops=990)])
    ceiling = result["compute_ceiling_tokens_per_s_per_gpu"].iloc[0]
    assert ceiling == pytest.approx(2828.571, abs=0.01)


def test_kv_cache_of_the_tutorials_64_kv_head_example_is_171_8_gb() -> None:
    """Tutorial KV example: 2·80·64·128·2048·32·2 bytes = 171,798,691,840 bytes (171.8 GB, 160 GiB).

    The engine's KV bytes per token with 64 KV heads, times 2048 tokens × 32 sequences."""
    result = estimate_rows([base_row(kv_heads=64)])
    total = result["kv_bytes_per_token"].iloc[0] * 2048 * 32
    assert total == 171_798_691_840
    assert total / 2**30 == pytest.approx(160.0)


def test_kv_bytes_per_token_of_llama_3_1_70b_bf16_is_327680() -> None:
    """Llama-3.1-70B config.json (80 layers, 8 KV heads, head_dim 128): 2·80·8·128·2 = 327,680 B."""
    result = estimate_rows([base_row(model="meta-llama/Llama-3.1-70B-Instruct")])
    assert result["kv_bytes_per_token"].iloc[0] == 327_680


def test_kv_bytes_per_token_of_llama_3_1_8b_bf16_is_131072() -> None:
    """Llama-3.1-8B config.json (32 layers, 8 KV heads, head_dim 128): 2·32·8·128·2 = 131,072 B."""
    result = estimate_rows([base_row(model="llama-3.1-8b")])
    assert result["kv_bytes_per_token"].iloc[0] == 131_072


def test_fp8_kv_cache_halves_kv_bytes_per_token() -> None:
    """An fp8 KV cache stores one byte per element instead of two."""
    result = estimate_rows([base_row(kv_dtype="fp8")])
    assert result["kv_bytes_per_token"].iloc[0] == 163_840


def test_mla_caches_the_compressed_latent() -> None:
    """DeepSeek-V3 MLA (config.json: kv_lora_rank 512 + qk_rope_head_dim 64, 61 layers):
    61·576·2 = 70,272 bytes per token in bf16, not 2·61·128·192·2."""
    result = estimate_rows([base_row(model="DeepSeek-V3", gpu="H200", weight_dtype="fp8")])
    assert result["kv_bytes_per_token"].iloc[0] == 61 * 576 * 2


def test_littles_law_50_qps_for_2_s_is_100_in_flight_and_6_gpus() -> None:
    """Tutorial Q10: 50 QPS × 2 s = 100 concurrent; × 1.5 safety ÷ 25 per GPU = 6 GPUs.

    The engine's Little's-Law chain with the response time pinned to 2 s and the batch to 25
    sequences on one GPU per instance."""
    checked = validated([base_row(model="llama-3.1-8b", tp=1, peak_qps=50, safety_factor=1.5)])
    result = estimate(checked.scenarios, checked.tables,
                      overrides={"response_time_s": 2.0, "batch": 25.0}).iloc[0]
    assert result["concurrency"] == 100
    assert result["instances"] == 6
    assert result["gpus"] == 6


def test_misconception_3_200_qps_for_2_s_is_400_not_200() -> None:
    """Tutorial misconception 3: 200 QPS × 2 s = 400 in flight, not 200 — the engine's
    concurrency is peak_qps × response_time_s for every row."""
    result = estimate_rows([base_row()])
    row = result.iloc[0]
    assert row["concurrency"] == pytest.approx(200 * row["response_time_s"])


def test_tutorial_demo_gives_77_instances_and_says_the_weights_do_not_fit() -> None:
    """Tutorial demo __main__ (QPS 100, 1024 in / 512 out, 70B, 64 KV heads, H100 80 GB, MFU
    0.4, safety 1.4) prints instances 77 and negative batches: reportgen gives 77 and says the
    weights do not fit one GPU instead of a negative batch."""
    result = estimate_rows([base_row(
        method="tutorial", peak_qps=100, avg_prompt_tokens=1024, avg_output_tokens=512,
        params_b=70, kv_heads=64, gpu_tflops=990, safety_factor=1.4,
    )])
    row = result.iloc[0]
    assert row["instances"] == 77
    assert row["tp"] == 1
    assert row["batch_max_kv"] == 0
    assert row["bottleneck"] == "weights_do_not_fit"
    assert "weights do not fit one GPU" in row["notes"]
    assert row["in_plan_total"] == 0


def test_tutorial_method_on_the_coding_assistant_gives_228_gpus() -> None:
    """NOTES.md item 6: the tutorial's own plan_capacity gives 228 for 200 QPS × (1,500 + 800)
    tokens on a 70B model at 40 % MFU with safety 1.4: ceil(200·1.4 / (2828.6 / 2300)) = 228."""
    result = estimate_rows([base_row(method="tutorial", params_b=70, gpu_tflops=990)])
    assert result["gpus"].iloc[0] == 228


def test_coding_assistant_needs_more_than_160_gpus_before_safety() -> None:
    """NOTES.md item 6: 200 QPS × 2,300 tokens × 2 × 70e9 ≈ 6.4e16 FLOP/s is over 160 H100s at
    40 % MFU before any safety factor; the tutorial's '32 GPUs' cannot be right. The roofline
    plan (safety 1.0) must need more than 160 GPUs too."""
    result = estimate_rows([base_row(safety_factor=1)])
    assert result["gpus"].iloc[0] > 160
