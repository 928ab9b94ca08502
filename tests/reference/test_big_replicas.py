"""Models that do not fit one 8-GPU H100 node get plans across two, with the arithmetic checked
by hand.

Sources: DeepSeek-V3 ships FP8 (config.json ``quantization_config`` quant_method fp8, e4m3,
128×128 blocks; https://huggingface.co/deepseek-ai/DeepSeek-V3), 671.0 B parameters counted from
its config (models.csv), MLA KV cache of 61 layers × 576 elements; Llama-3.1-405B ships bf16,
405.85 B parameters, 126 layers, 8 KV heads × 128 (its config.json, models.csv); H100-SXM 80 GiB,
3.35 TB/s, 8 per node, 400 Gb/s ConnectX-7 per GPU = 50 GB/s (gpus.csv, DGX H100); vLLM keeps
gpu_memory_utilization 0.9 and reportgen a 4 GiB activation reserve per GPU (units.py).
"""

from __future__ import annotations

import math

import pytest

from reportgen.engine import estimate
from tests.helpers import build_plan
from tests.scenarios import validated

GIB = 2**30
H100_MEMORY, H100_BANDWIDTH, NODE = 80.0, 3.35e12, 8


def _vllm_budget(gpus: int, weights_gib: float) -> float:
    return gpus * H100_MEMORY * 0.9 - weights_gib - gpus * 4


def test_deepseek_v3_as_shipped_is_planned_on_several_h100_nodes() -> None:
    """671.0264 B fp8 weights = 624.94 GiB: one node's vLLM budget is 8·80·0.9 − 624.94 − 8·4 =
    −80.9 GiB (nothing fits), two nodes' 16·80·0.9 − 624.94 − 16·4 = 463.06 GiB, four nodes'
    32·80·0.9 − 624.94 − 32·4 = 1,551.06 GiB. Each of the 8 GPUs of a tensor-parallel group
    keeps the whole MLA latent (8 copies), so a sequence of 16,000 tokens takes 8 × 61 × 576 ×
    2 B × 16,000 = 8.38 GiB: two nodes hold 55 sequences, four hold 185, and the four-node
    replica needs fewer GPUs for the same traffic."""
    plan = build_plan([dict(scenario="r1", model="DeepSeek-V3", gpu="H100", peak_qps=6,
                            avg_prompt_tokens=1500, avg_output_tokens=1500,
                            max_prompt_tokens=8000, max_output_tokens=8000,
                            ttft_slo_ms=3000, tpot_slo_ms=60)])
    row = plan.results.iloc[0]
    weights = 671.0264e9 / GIB
    assert row["weight_dtype"] == row["expert_weight_dtype"] == "fp8"  # as shipped
    assert row["kv_dtype"] == "bf16" and row["compute_dtype"] == "fp8"
    assert row["weights_gib"] == pytest.approx(weights)
    assert _vllm_budget(8, weights) < 0
    assert (row["tp"], row["pp"], row["gpus_per_instance"]) == (8, 4, 32)
    assert row["kv_budget_gib"] == pytest.approx(_vllm_budget(32, weights))
    assert row["kv_bytes_per_token"] == 61 * 576 * 2 and row["kv_copies"] == 8
    per_seq = 8 * 61 * 576 * 2 * 16000 / GIB
    assert row["batch_max_kv"] == math.floor(_vllm_budget(32, weights) / per_seq) == 185
    assert math.floor(_vllm_budget(16, weights) / per_seq) == 55
    assert row["status"] == "chosen" and row["gpus"] % 32 == 0
    assert row["nodes"] == row["gpus"] / NODE
    assert row["searched"] == "tp, pp"  # more stages planned because one node cannot hold it
    assert "Weights as the checkpoint ships them: fp8" in row["notes"]


def test_attention_data_parallel_keeps_one_latent_and_a_copy_of_attention_per_gpu() -> None:
    """DeepSeek-V3 fp8 on TP 8 × PP 2 H100 with attention data-parallel (attention_dp = 1):
    its 671.0264 − 653.9088 = 17.1176 B non-expert parameters (15.94 GiB) are kept on each of
    a stage's 8 GPUs, so the replica holds 624.94 + 7 × 15.94 = 736.54 GiB of weights, 46.03
    GiB per GPU; vLLM's budget 16·80·0.9 − 736.54 − 16·4 = 351.46 GiB; each sequence's latent
    is cached once, 61 × 576 × 2 B × 16,000 = 1.047 GiB, so 335 sequences fit where tensor
    parallelism (8 copies) fits 55 in 463.06 GiB. Every decode step reads each GPU's copy."""
    row = dict(scenario="dep", model="DeepSeek-V3", gpu="H100", peak_qps=2,
               avg_prompt_tokens=1500, avg_output_tokens=1500, max_prompt_tokens=8000,
               max_output_tokens=8000, tp=8, pp=2, max_batch=4096)
    plan = build_plan([row, dict(row, scenario="dep-on", attention_dp=1)])
    split, dep = plan.results.iloc[0], plan.results.iloc[1]
    weights, shared = 671.0264e9 / GIB, (671.0264 - 653.9088) * 1e9 / GIB
    assert (split["attention_replicas"], dep["attention_replicas"]) == (1, 8)
    assert dep["resident_weights_gib"] == pytest.approx(weights + 7 * shared)
    assert split["resident_weights_gib"] == pytest.approx(weights)
    assert dep["weights_gib_per_gpu"] == pytest.approx((weights + 7 * shared) / 16)
    assert dep["kv_budget_gib"] == pytest.approx(16 * 80 * 0.9 - (weights + 7 * shared) - 64)
    per_seq = 61 * 576 * 2 * 16000 / GIB
    assert (split["kv_copies"], dep["kv_copies"]) == (8, 1)
    assert split["batch_max_kv"] == math.floor(_vllm_budget(16, weights) / (8 * per_seq)) == 55
    assert dep["batch_max_kv"] == math.floor(dep["kv_budget_gib"] / per_seq) == 335
    assert dep["weights_read_s"] / split["weights_read_s"] == pytest.approx(
        (weights + 7 * shared) / weights)


def test_llama_405b_bf16_is_planned_on_two_h100_nodes_with_its_step_by_hand() -> None:
    """405.8534 B bf16 weights = 755.96 GiB > one node's 576 − 32 GiB; two nodes leave
    1152 − 755.96 − 64 = 332.04 GiB for KV, 76 sequences of 516,096 B/token × 9,000 tokens.

    The decode step of the TP 8 × PP 2 replica at B sequences, by hand: each of the 2
    micro-batches reads every stage's weights, W / (8 GPUs × 3.35 TB/s × MBU); KV reads and
    compute as on one 16-GPU replica; all-reduces of B/2 tokens, 2·126·2·(7/8)·16384·2 bytes
    each over 225 GB/s; one 30 µs stage-to-stage send plus B/2 tokens × 16384 × 2 bytes over
    50 GB/s; the norms' 4 unsharded passes of 126 layers × 16384 × 2 bytes per token, read by
    every GPU of a stage (one GPU's bandwidth per stage, 2 stages)."""
    plan = build_plan([dict(scenario="405b", model="Llama-3.1-405B", gpu="H100", peak_qps=4,
                            avg_prompt_tokens=2000, avg_output_tokens=400,
                            max_prompt_tokens=8000, max_output_tokens=1000,
                            ttft_slo_ms=3000, tpot_slo_ms=80)])
    row = plan.results.iloc[0]
    weights = 405.8534e9 * 2 / GIB
    assert row["weights_gib"] == pytest.approx(weights)
    assert (row["tp"], row["pp"]) == (8, 2) and row["status"] == "chosen"
    assert row["kv_budget_gib"] == pytest.approx(_vllm_budget(16, weights))
    assert row["kv_bytes_per_token"] == 2 * 126 * 8 * 128 * 2
    per_seq = row["kv_bytes_per_token"] * 9000 / GIB
    assert row["batch_max_kv"] == math.floor(_vllm_budget(16, weights) / per_seq) == 76

    batch, mbu, mfu = float(row["batch"]), float(row["mbu"]), float(row["mfu_decode"])
    read = 405.8534e9 * 2 / (8 * H100_BANDWIDTH * mbu)
    context = 2000 + 400 / 2
    kv = context * row["kv_bytes_per_token"] / (16 * H100_BANDWIDTH * mbu)
    attention = max(4 * 126 * 128 * 128 * context / (16 * 989.4e12 * mfu), kv)
    compute = 2 * 405.8534e9 / (16 * 989.4e12 * mfu) + attention
    allreduce = 2 * 126 * 2 * (7 / 8) * 16384 * 2 / 225e9 / 2
    send = (2 - 1) / 2 * 16384 * 2 / 50e9
    fixed = 2 * 126 * 25e-6 + 30e-6 + float(row["step_overhead_ms"]) / 1000
    unsharded = 4 * 126 * 16384 * 2 / (2 * H100_BANDWIDTH * mbu)
    step = max(compute * batch, read + attention * batch) + fixed + (
        allreduce + send + unsharded) * batch
    assert row["weights_read_s"] == pytest.approx(read)
    assert row["decode_step_ms"] == pytest.approx(1000 * step)
    tpot = 1000 * step + batch * row["prefill_in_batch_ms"] / 400
    assert row["tpot_ms"] == pytest.approx(tpot) and tpot <= 80


def test_a_long_prompt_waits_on_the_pipeline_bubble() -> None:
    """9,000 prompt tokens are 2 chunks of 8,192: through 2 stages they take 2 + 2 − 1 = 3 slots
    for 2 slots of work, a bubble of 1/3, so the lone prefill's compute and link time take
    3/2 of the busy time; at pp 1 there is no bubble."""
    rows = [dict(scenario=f"pp{p}", model="Llama-3.1-405B", gpu="H100", tp=8, pp=p,
                 weight_dtype="fp8", peak_qps=1, avg_prompt_tokens=9000, avg_output_tokens=300)
            for p in (1, 2)]
    checked = validated(rows)
    one, two = (r for _, r in estimate(checked.scenarios, checked.tables).iterrows())
    assert two["prefill_chunks"] == 2 and two["prefill_bubble_fraction"] == pytest.approx(1 / 3)
    assert one["prefill_bubble_fraction"] == 0
    busy = two["prefill_flops"] / two["instance_flops_prefill"] + (
        two["comm_s_per_token"] * two["prefill_tokens"])
    expected = 1000 * (busy * 3 / 2 + two["weights_read_s"] + two["step_fixed_s"])
    assert two["prefill_ms"] == pytest.approx(expected)
    # the stages add memory, not decode bandwidth: the weight read of a step is the same
    assert two["weights_read_s"] == pytest.approx(one["weights_read_s"])
    assert two["kv_budget_gib"] > 2 * one["kv_budget_gib"]
