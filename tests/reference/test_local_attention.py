"""Local attention (sliding windows, chunks) worked by hand on gpt-oss-120b and Llama 4 Scout.

Sources: gpt-oss-120b's config.json (36 layers, 8 KV heads × 64, ``sliding_window`` 128,
``layer_types`` alternating sliding and full attention: 18 local layers; models.csv); Llama 4
Scout's text config (48 layers, 8 KV heads × 128, ``attention_chunk_size`` 8,192 in the RoPE
layers, every fourth layer global: 36 local layers; models.csv); vLLM's hybrid KV-cache manager
keeps a sliding-window layer's last ``sliding_window`` tokens only (vLLM design docs, "Hybrid
KV Cache Manager"). TensorRT-LLM's published Llama 4 Scout run at 20,000 + 2,000 tokens on one
B200 (1,644 output tok/s; reportgen/data/measurements_public_2.csv) is what the chunks explain.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from reportgen import calibration as cal
from reportgen.catalog import load_catalogs
from tests.helpers import build_plan

GIB = 2**30


def test_gpt_oss_holds_and_reads_the_window_in_half_its_layers() -> None:
    """8,000 + 1,000 tokens reserved: the full layers (half) hold 9,000 tokens, the sliding ones
    128, so a sequence holds 9,000 × 0.5 + 128 × 0.5 = 4,564 tokens × 2·36·8·64·2 B = 73,728 B
    a token. A decode step reads (8,000 + 500) × 0.5 + 128 × 0.5 = 4,314 tokens of it; the
    prompt's attention computes 8,000²/2 × 0.5 + 128 × (8,000 − 64) × 0.5 = 16,507,904 token
    pairs (against 32,000,000 with full attention in every layer)."""
    plan = build_plan([dict(scenario="oss", model="gpt-oss-120b", gpu="H100", peak_qps=5,
                            avg_prompt_tokens=8000, avg_output_tokens=1000, tp=1)])
    row = plan.results.iloc[0]
    assert row["local_attention_share"] == 0.5
    assert row["kv_bytes_per_token"] == 2 * 36 * 8 * 64 * 2
    assert row["reserved_tokens_per_seq"] == 9000
    assert row["kv_held_tokens_per_seq"] == pytest.approx(4564)
    assert row["kv_gib_per_seq"] == pytest.approx(4564 * 73728 / GIB)
    assert row["decode_attended_tokens"] == pytest.approx(4314)
    assert row["prefill_attention_pairs"] == pytest.approx(16_507_904)
    assert row["prefill_flops"] == pytest.approx(
        2 * row["gemm_params_b"] * 1e9 * 8000 + 4 * 36 * 64 * 64 * 16_507_904)


def test_a_prompt_inside_the_window_attends_as_full_attention() -> None:
    """A 100-token prompt is shorter than gpt-oss's 128-token window: every layer sees all of
    it (100²/2 = 5,000 pairs) and holds all 100 + 20 tokens."""
    plan = build_plan([dict(scenario="short", model="gpt-oss-120b", gpu="H100", peak_qps=5,
                            avg_prompt_tokens=100, avg_output_tokens=20, tp=1)])
    row = plan.results.iloc[0]
    assert row["prefill_attention_pairs"] == pytest.approx(5000)
    assert row["kv_held_tokens_per_seq"] == row["reserved_tokens_per_seq"] == 120


def test_llama4_chunks_explain_the_published_long_prompt_run() -> None:
    """Llama 4 Scout, 20,000 + 2,000 tokens on one B200 (TensorRT-LLM 1.0, fp4): with its
    8,192-token chunks in 36 of 48 layers the shipped model predicts the published 1,644 tok/s
    within 5 %; planned as full attention in every layer it predicts 40 % too few."""
    measurements = cal.load_measurements()
    row = measurements[(measurements["model"] == "Llama-4-Scout-17B-16E")
                       & (measurements["gpu"] == "B200") & (measurements["input_tokens"] == 20000)]
    assert len(row) == 1 and float(row["measured"].iloc[0]) == pytest.approx(1644, abs=1)
    catalogs = load_catalogs()
    models = catalogs.models.copy()
    models["local_attention_window"] = 0.0
    models["local_attention_layers"] = 0.0
    full = dataclasses.replace(catalogs, models=models)
    measured = float(row["measured"].iloc[0])
    chunked = float(cal.predict(cal.build_bench(row, catalogs=catalogs))[0])
    everywhere = float(cal.predict(cal.build_bench(row, catalogs=full))[0])
    assert abs(np.log(measured / chunked)) < 0.05
    assert measured / everywhere > 1.4


def test_the_plan_says_what_it_assumes_about_the_window() -> None:
    """The row's notes say that the plan counts only the window's KV cache in the local layers
    (an engine without a hybrid allocator fits fewer sequences); a full-attention model's notes
    do not."""
    plan = build_plan([
        dict(scenario="oss", model="gpt-oss-120b", gpu="H100", peak_qps=5,
             avg_prompt_tokens=8000, avg_output_tokens=1000),
        dict(scenario="llama", model="Llama-3.1-8B", gpu="H100", peak_qps=5,
             avg_prompt_tokens=8000, avg_output_tokens=1000),
    ])
    oss, llama = plan.results["notes"]
    assert "attend only to a window of recent tokens" in oss
    assert "fits fewer sequences" in oss
    assert "window" not in llama
