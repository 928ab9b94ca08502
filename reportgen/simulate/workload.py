"""What one plan row asks the simulator: its step times, its scheduler limits and its traffic.

The KV cache holds ``kv_budget_gib`` (the serving engine's own budget, memory.py) in blocks of
VLLM_BLOCK_TOKENS tokens of ``kv_bytes_per_token`` × ``kv_copies``; sequences take blocks as they
grow, so how many fit follows the real length mix, not the closed form's reservation of max_prompt +
max_output tokens for every sequence. The scheduler runs at most ``max_batch`` sequences and
computes PREFILL_CHUNK_TOKENS tokens a step. Lengths are drawn to the row's averages and maxima
(lengths.py); arrivals have the row's ``arrival_cv`` (1: Poisson). Draws come from a generator
seeded with SIMULATION_SEED, so a plan is simulated the same way every time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from reportgen.simulate.lengths import draw_lengths
from reportgen.simulate.server import VLLM_BLOCK_TOKENS, Served, ServerConfig, serve
from reportgen.simulate.step import StepModel
from reportgen.simulate.traffic import poisson_or_bursty, unit_gaps
from reportgen.units import CONSTANTS
from reportgen.xlfuncs import Array

SIMULATION_SEED = 20_240_601
DEFAULT_ARRIVAL_CV = 1.0  # Poisson arrivals
# Requests one simulation of a plan row serves: P99 is then the 9th-largest of the 900
# after the warm-up; enough for a stable tail, few enough to keep a build fast.
ROW_REQUESTS = 1_000


def _number(values: Mapping[str, Any], name: str, default: float) -> float:
    value = values.get(name, default)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return default if math.isnan(number) else number


@dataclass(frozen=True)
class Workload:
    """One instance of a plan row and the traffic it meets (at unit rate: scale with a rate)."""

    step: StepModel
    config: ServerConfig
    gaps: Array  # unit-mean gaps between arrivals
    prompt_tokens: Array
    output_tokens: Array

    def at_rate(self, rate_rps: float) -> Served:
        """Serve the traffic arriving at ``rate_rps`` requests per second on one instance."""
        return serve(poisson_or_bursty(rate_rps, self.gaps, self.prompt_tokens,
                                       self.output_tokens), self.config, self.step)


def kv_blocks(values: Mapping[str, Any], block_tokens: int = VLLM_BLOCK_TOKENS) -> int:
    """KV blocks of one instance: its KV budget ÷ (KV bytes per token × copies × tokens per
    block). A model whose local-attention layers keep only their window holds, per token of a
    sequence at its reserved length, kv_held_tokens_per_seq ÷ reserved_tokens_per_seq of the
    bytes; the blocks count tokens at that rate (exact at the reserved length, a little
    generous to shorter sequences)."""
    budget = _number(values, "kv_budget_gib", 0.0) * float(CONSTANTS["BYTES_PER_GIB"].value)
    reserved = _number(values, "reserved_tokens_per_seq", 1.0)
    held = _number(values, "kv_held_tokens_per_seq", reserved) / reserved if reserved > 0 else 1.0
    per_block = (_number(values, "kv_bytes_per_token", 1.0) * _number(values, "kv_copies", 1.0)
                 * held * block_tokens)
    return max(0, int(budget // per_block))


def workload_for(values: Mapping[str, Any], model: Mapping[str, Any],
                 requests: int = ROW_REQUESTS, seed: int = SIMULATION_SEED) -> Workload:
    """The simulator's view of a results row (``values``: scenario inputs and quantities)."""
    rng = np.random.default_rng(seed)
    blocks = kv_blocks(values)
    cap = int(_number(values, "max_batch", float(CONSTANTS["MAX_BATCH"].value)))
    max_seqs = max(1, min(cap, blocks))
    avg_prompt = _number(values, "avg_prompt_tokens", 1.0)
    avg_output = _number(values, "avg_output_tokens", 1.0)
    prompts = draw_lengths(requests, avg_prompt,
                           _number(values, "max_prompt_tokens", avg_prompt), rng)
    outputs = draw_lengths(requests, avg_output,
                           _number(values, "max_output_tokens", avg_output), rng)
    gaps = unit_gaps(requests, _number(values, "arrival_cv", DEFAULT_ARRIVAL_CV), rng)
    config = ServerConfig(
        max_seqs=max_seqs, token_budget=int(CONSTANTS["PREFILL_CHUNK_TOKENS"].value),
        kv_blocks=max(blocks, 1),
        prefix_cache_hit_rate=_number(values, "prefix_cache_hit_rate", 0.0),
    )
    return Workload(StepModel.from_row(values, model, max_seqs), config, gaps, prompts, outputs)
