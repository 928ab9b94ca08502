"""Plans for the report tests: realistic, hostile and CJK scenario sets, validated and
estimated the way `reportgen build` does."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from reportgen.plan import Plan
from tests.helpers import build_plan

# A realistic plan: the tutorial's coding assistant and its demo, a latency-bound chat, an
# fp8 405B RAG service, a capped MoE, an MLA model on AMD, and one that cannot fit.
SAMPLE: tuple[dict[str, Any], ...] = (
    dict(scenario="Coding assistant", model="Llama-3.1-70B", gpu="H100-SXM", peak_qps=200,
         avg_prompt_tokens=1500, avg_output_tokens=800, avg_qps=80),
    dict(scenario="Support chat", model="Llama-3.1-8B", gpu="L40S", peak_qps=50,
         avg_prompt_tokens=800, avg_output_tokens=300, tpot_slo_ms=30, ttft_slo_ms=800),
    dict(scenario="Contract RAG (405B, fp8)", model="Llama-3.1-405B", gpu="H200-SXM", peak_qps=5,
         avg_prompt_tokens=6000, avg_output_tokens=400, weight_dtype="fp8", kv_dtype="fp8",
         tpot_slo_ms=60),
    dict(scenario="Batch tagging (MoE)", model="Mixtral-8x7B", gpu="H100-SXM", peak_qps=20,
         avg_prompt_tokens=1000, avg_output_tokens=300, max_batch=64),
    dict(scenario="Tutorial demo", model="Llama-3.1-70B", gpu="H100-SXM", peak_qps=100,
         avg_prompt_tokens=1024, avg_output_tokens=512, method="tutorial", params_b=70,
         kv_heads=64),
    dict(scenario="Tutorial demo, planned", model="Llama-3.1-70B", gpu="H100-SXM", peak_qps=100,
         avg_prompt_tokens=1024, avg_output_tokens=512),
    dict(scenario="Research agent (DeepSeek-V3)", model="DeepSeek-V3", gpu="MI300X",
         peak_qps=10, avg_prompt_tokens=2000, avg_output_tokens=500, weight_dtype="fp8",
         tpot_slo_ms=50),
    dict(scenario="405B on L4", model="Llama-3.1-405B", gpu="L4", peak_qps=1,
         avg_prompt_tokens=1000, avg_output_tokens=200),
)

HOSTILE_NAMES = (
    "<script>alert(1)</script>",
    "<img src=http://example.invalid/x.png>",
    "{{ 7*7 }}",
)
CJK_NAME = "编码助手（试点）"  # no glyphs in DejaVu: must fall back to WenQuanYi, warning-free


def make_plan(rows: Sequence[Mapping[str, Any]], title: str = "Inference capacity plan") -> Plan:
    """Validate and estimate the rows as if read from scenarios.csv; fixed provenance date."""
    return build_plan(rows, title)


@pytest.fixture(scope="session")
def sample_plan() -> Plan:
    return make_plan(SAMPLE, title="Inference capacity plan 2027")


@pytest.fixture(scope="session")
def hostile_plan() -> Plan:
    rows = [dict(SAMPLE[0], scenario=name) for name in (*HOSTILE_NAMES, CJK_NAME)]
    return make_plan(rows, title="<b>Plan</b> {{ 7*7 }}")


@pytest.fixture(scope="session")
def plan_factory() -> Callable[..., Plan]:
    return make_plan
