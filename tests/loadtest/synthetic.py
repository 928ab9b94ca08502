"""Load tests that never ran: what the engine predicts for a stack at known efficiencies, as the
figures a load-test tool would report (the round trip's ground truth)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from reportgen.calibration.loadtest_fit import stack_key
from reportgen.calibration.serving import _base_rows, _bench
from reportgen.calibration.stack import Stack
from reportgen.catalog import load_catalogs
from reportgen.efficiency import load_efficiency
from reportgen.engine import estimate
from reportgen.loadtest.run import Run

EPOCH = 1_748_937_600.0  # 2025-06-03 08:00 UTC


@dataclass(frozen=True)
class Figures:
    """One run as a tool measures it."""

    model: str
    prompt_tokens: float
    output_tokens: float
    concurrency: float  # requests in flight (the whole endpoint)
    ttft_ms: float
    tpot_ms: float  # per output token after the first
    ttft_p99_ms: float
    tpot_p99_ms: float
    completed: int = 400
    failed: int = 0
    start: float = EPOCH

    @property
    def e2e_ms(self) -> float:
        """Mean request latency: TTFT then (output − 1) tokens at TPOT."""
        return self.ttft_ms + (self.output_tokens - 1) * self.tpot_ms

    @property
    def rate(self) -> float:
        """Completed requests per second (Little's law)."""
        return self.concurrency / (self.e2e_ms / 1000)

    @property
    def output_rate(self) -> float:
        """Output tokens per second."""
        return self.rate * self.output_tokens

    @property
    def duration_s(self) -> float:
        return self.completed / self.rate


def truth(stack: Stack, shapes: Sequence[tuple[float, float, float]],
          efficiencies: Mapping[str, float]) -> list[Figures]:
    """The figures of runs (prompt tokens, output tokens, requests in flight) on ``stack`` if
    its efficiencies were ``efficiencies``."""
    catalogs = load_catalogs()
    key, family = stack_key(stack, catalogs)
    table = load_efficiency().copy()
    table.loc[key] = table.loc[family]
    for name, value in efficiencies.items():
        table.loc[key, name] = value
    placeholders = [Run("", "", "", "", "", "", "", 1, 0, 1, 1, 1, p, o, c, "", 1, 1, 1, 1, 1,
                        "") for p, o, c in shapes]
    batch = [c / stack.instances for *_, c in shapes]
    bench = _bench(_base_rows(placeholders, [stack] * len(shapes), batch), placeholders,
                   catalogs, table)
    results = estimate(bench.checked.scenarios, bench.tables, None,
                       {"batch": np.asarray(batch, dtype=float)})
    assert (results["efficiency_key"] == key).all()
    figures = []
    for (prompt, output, concurrency), (_, r) in zip(shapes, results.iterrows(), strict=True):
        ttft, tpot = float(r["ttft_ms"]), float(r["tpot_ms"])
        figures.append(Figures(stack.model, prompt, output, concurrency, ttft, tpot,
                               round(1.6 * ttft, 3), round(1.25 * tpot, 3)))
    return figures


def stack(**changes: object) -> Stack:
    """The round trip's stack: Llama-3.1-8B, fp8, on one H100 under vLLM."""
    fields: dict[str, object] = dict(
        model="Llama-3.1-8B", gpu="H100-SXM", tp=1, weight_dtype="fp8", kv_dtype="fp8",
        engine="vllm", engine_version="0.11.0", instances=1, max_batch=math.nan,
        date="2025-06-03", date_source="the result file")
    fields.update(changes)
    return Stack(**fields)  # type: ignore[arg-type]


KNOWN = {"mfu_prefill": 0.55, "mfu_decode": 0.33, "mbu": 0.62, "step_overhead_ms": 1.8}
# Runs from one request at a time to the compute-bound regime, and a long-prompt pair that
# weighs prefill: every efficiency is exercised.
SHAPES = ((512, 256, 1), (512, 256, 8), (512, 256, 32), (512, 256, 128), (512, 256, 512),
          (2048, 128, 4), (2048, 128, 64))
