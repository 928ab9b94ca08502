"""The parity scenario set: small (20 rows) but reaching every bottleneck, both methods, the
three serving engines, auto and explicit TP, pipeline stages across nodes and inside one,
MoE, MLA, local attention, fp8/fp4 (native and weight-only), precisions as shipped (mixed
MXFP4 and bf16), every status of the choice (chosen, option, compare, no fit) with searched
GPUs and precisions, and scenario names that look like formulas."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.levers import with_levers
from reportgen.plan import Plan
from reportgen.render.workbook import write_workbook
from tests.helpers import build_plan

PARITY_ROWS: tuple[dict[str, object], ...] = (
    # kv_memory, auto TP (→ 4), vLLM, avg_qps below peak; first row = the Batch curve's pick;
    # one of two options of workload "chat" (the other: chat-70b-h200)
    dict(scenario="chat-70b", model="Llama-3.1-70B", gpu="H100-SXM", peak_qps=20,
         avg_prompt_tokens=2000, avg_output_tokens=500, avg_qps=12, workload="chat"),
    # tpot_slo, explicit tp = 1, SGLang
    dict(scenario="tpot-8b-tp1", model="Llama-3.1-8B", gpu="H100-SXM", peak_qps=50,
         avg_prompt_tokens=1000, avg_output_tokens=300, tp=1, tpot_slo_ms=12, engine="sglang"),
    # ttft_slo, explicit tp = 4, TensorRT-LLM, long prompts
    dict(scenario="ttft-70b-tp4", model="Llama-3.1-70B", gpu="H200-SXM", peak_qps=10,
         avg_prompt_tokens=8000, avg_output_tokens=200, tp=4, ttft_slo_ms=600,
         engine="tensorrt-llm"),
    # batch_cap (max_batch given), price override
    dict(scenario="cap-8b", model="Llama-3.1-8B", gpu="H200-SXM", peak_qps=30,
         avg_prompt_tokens=200, avg_output_tokens=100, max_batch=16, gpu_hour_price=4.1),
    # weights_do_not_fit even at tp = 8
    dict(scenario="405b-on-L4", model="Llama-3.1-405B", gpu="L4", peak_qps=1,
         avg_prompt_tokens=1000, avg_output_tokens=200),
    # slo_unreachable (PCIe GPU, tp = 8 auto); the name looks like a formula
    dict(scenario="+1+1", model="Llama-3.1-70B", gpu="L40S", peak_qps=5,
         avg_prompt_tokens=1000, avg_output_tokens=200, tpot_slo_ms=2),
    # MoE, TensorRT-LLM, prefix cache
    dict(scenario="mixtral-trt", model="Mixtral-8x7B", gpu="H100-SXM", peak_qps=15,
         avg_prompt_tokens=1500, avg_output_tokens=400, engine="tensorrt-llm", tpot_slo_ms=40,
         prefix_cache_hit_rate=0.3),
    # MoE with fp8 weights and KV on Hopper (native fp8), KV reserved for longer sequences
    dict(scenario="qwen3-moe-fp8", model="Qwen3-30B-A3B", gpu="H100-SXM", peak_qps=40,
         avg_prompt_tokens=3000, avg_output_tokens=600, weight_dtype="fp8", kv_dtype="fp8",
         max_prompt_tokens=8000, max_output_tokens=1000),
    # MLA + MoE, fp8, tp = 8, SGLang, TTFT target
    dict(scenario="deepseek-v3-mla", model="DeepSeek-V3", gpu="H200-SXM", peak_qps=8,
         avg_prompt_tokens=2000, avg_output_tokens=800, weight_dtype="fp8", tp=8,
         ttft_slo_ms=3000, engine="sglang"),
    # the tutorial's method (not in totals), own safety factor
    dict(scenario="tutorial-70b", model="Llama-3.1-70B", gpu="H200-SXM", peak_qps=100,
         avg_prompt_tokens=1024, avg_output_tokens=512, method="tutorial", safety_factor=1.3),
    # fp4 weights on Hopper: weight-only, fp8 compute
    dict(scenario="-2", model="Llama-3.1-70B", gpu="H100-SXM", peak_qps=12,
         avg_prompt_tokens=1500, avg_output_tokens=800, weight_dtype="fp4", tpot_slo_ms=50),
    # native fp4 on Blackwell, efficiency overrides
    dict(scenario="@SUM(1)", model="Llama-3.1-70B", gpu="B200", peak_qps=25,
         avg_prompt_tokens=1500, avg_output_tokens=800, weight_dtype="fp4", kv_dtype="fp8",
         mfu_decode=0.35, mbu=0.8),
    # model and GPU overrides, explicit tp = 2 over PCIe
    dict(scenario='=HYPERLINK("http://x","y")', model="Qwen3-8B", gpu="L40S", peak_qps=6,
         avg_prompt_tokens=500, avg_output_tokens=250, tp=2, params_b=8.2, gpu_tflops=350),
    # fp8 weights on Ampere (no fp8 tensor cores): weight-only, bf16 compute; tpot_slo
    dict(scenario="fp8-on-a100", model="Qwen2.5-32B", gpu="A100-SXM-80GB", peak_qps=10,
         avg_prompt_tokens=1200, avg_output_tokens=400, weight_dtype="fp8", tpot_slo_ms=35),
    # the other option of workload "chat": searched GPU list and precisions (chosen: cheaper)
    dict(scenario="chat-70b-h200", model="Llama-3.1-70B", gpu="H200|L40S", peak_qps=20,
         avg_prompt_tokens=2000, avg_output_tokens=500, avg_qps=12, workload=" CHAT ",
         weight_dtype="auto"),
    # a plan row kept for comparison only
    dict(scenario="compare-8b", model="Llama-3.1-8B", gpu="A100-SXM-80GB", peak_qps=30,
         avg_prompt_tokens=800, avg_output_tokens=300, tp=1, role="compare"),
    # 405B bf16 does not fit one 8-GPU H100 node: pipeline stages across nodes (a blank pp
    # searched only then); a prompt of two prefill chunks, so the bubble is (pp-1)/(2+pp-1)
    dict(scenario="405b-across-nodes", model="Llama-3.1-405B", gpu="H100-SXM", peak_qps=2,
         avg_prompt_tokens=9000, avg_output_tokens=300, weight_dtype="bf16", tpot_slo_ms=150),
    # precisions as shipped: MXFP4 experts beside bf16 attention, searched with fp8 (blank
    # option on Options and Plan); local attention (a 128-token window in half the layers)
    dict(scenario="gpt-oss-as-shipped", model="gpt-oss-120b", gpu="H100-SXM", peak_qps=10,
         avg_prompt_tokens=1000, avg_output_tokens=400, weight_dtype="auto", tpot_slo_ms=40),
    # explicit pipeline stages inside one PCIe node (the stage link is the GPU link)
    dict(scenario="pp-inside-a-node", model="Llama-3.1-70B", gpu="L40S", peak_qps=3,
         avg_prompt_tokens=800, avg_output_tokens=200, weight_dtype="fp8", tp=2, pp=2),
    # P99 targets: sized by the simulated knee, written on Scenarios as knee_rps (an input)
    dict(scenario="p99-8b", model="Llama-3.1-8B", gpu="H100-SXM", peak_qps=25,
         avg_prompt_tokens=600, avg_output_tokens=200, max_prompt_tokens=2000,
         max_output_tokens=800, tp=1, ttft_p99_ms=400, tpot_p99_ms=30),
    # deepseek-v3-mla, attention data-parallel searched: one latent per sequence or tp copies
    dict(scenario="deepseek-v3-dep", model="DeepSeek-V3", gpu="H200-SXM", peak_qps=8,
         avg_prompt_tokens=2000, avg_output_tokens=800, weight_dtype="fp8", tp=8,
         attention_dp="0|1", ttft_slo_ms=3000, engine="sglang"),
)


@pytest.fixture(scope="session")
def parity_plan() -> Plan:
    """The parity scenarios, validated and estimated as `reportgen build` would."""
    return with_levers(build_plan(PARITY_ROWS, title="Parity plan"))


@pytest.fixture(scope="session")
def parity_workbook(parity_plan: Plan, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workbook of the parity plan, written once per session."""
    path = tmp_path_factory.mktemp("parity") / "parity.xlsx"
    write_workbook(parity_plan, path)
    return path
