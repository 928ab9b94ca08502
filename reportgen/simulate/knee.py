"""The knee: the highest request rate one instance serves within percentile latency targets.

Past the knee queues grow without bound and the tail collapses (over-subscription, the latency
avalanche); below it the targets hold. The rate is found by bisection (on its logarithm) over
simulations of the same traffic pattern scaled to each rate, so the answer is deterministic and
moves smoothly with the inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from reportgen.simulate.metrics import Summary, summarize
from reportgen.simulate.workload import Workload

KNEE_PERCENTILE = 99
KNEE_BISECTIONS = 7  # brackets the rate to within 2.2 % (16^(1/128)) of its 16× range
_FIRST_GUESS_SPAN = 4.0


@dataclass(frozen=True)
class Knee:
    """The knee rate [req/s per instance] (0: the targets fail even at a trickle) and the run
    at that rate."""

    rate_rps: float
    at_knee: Summary | None
    probes: int


@dataclass(frozen=True)
class Targets:
    """Latency targets [ms] (NaN: none) and the statistic they bound: ``p99`` or ``mean``."""

    ttft_ms: float
    tpot_ms: float
    statistic: str = "p99"

    @property
    def any(self) -> bool:
        """Whether there is a target at all."""
        return not (math.isnan(self.ttft_ms) and math.isnan(self.tpot_ms))


def meets(summary: Summary, targets: Targets) -> bool:
    """Whether a run's TTFT and TPOT (P99 or mean, as the targets say) are within the targets,
    with every request served."""
    if targets.statistic == "mean":
        ttft, tpot = summary.ttft_mean_ms, summary.tpot_mean_ms
    else:
        ttft = summary.p("ttft_ms", KNEE_PERCENTILE)
        tpot = summary.p("tpot_ms", KNEE_PERCENTILE)
    ttft_target_ms, tpot_target_ms = targets.ttft_ms, targets.tpot_ms
    ok_ttft = math.isnan(ttft_target_ms) or ttft <= ttft_target_ms
    ok_tpot = math.isnan(tpot_target_ms) or math.isnan(tpot) or tpot <= tpot_target_ms
    return ok_ttft and ok_tpot and summary.rejected == 0 and not summary.truncated


def find_knee(workload: Workload, guess_rps: float, targets: Targets) -> Knee:
    """The highest rate meeting the targets, starting from ``guess_rps`` (the closed form's
    capacity of an instance)."""
    ttft_target_ms, tpot_target_ms = targets.ttft_ms, targets.tpot_ms
    if not targets.any:
        raise ValueError("a knee needs at least one latency target")
    guess = max(guess_rps, 1e-6)
    probes = 0

    def run(rate: float) -> Summary:
        nonlocal probes
        probes += 1
        return summarize(workload.at_rate(rate), ttft_target_ms, tpot_target_ms)

    low, high = guess / _FIRST_GUESS_SPAN, guess * _FIRST_GUESS_SPAN
    at_low = run(low)
    while not meets(at_low, targets):
        if low < guess * 1e-4:
            return Knee(0.0, None, probes)
        high, low = low, low / _FIRST_GUESS_SPAN**2
        at_low = run(low)
    at_high = run(high)
    while meets(at_high, targets):
        if high > guess * 1e4:
            return Knee(high, at_high, probes)
        low, at_low, high = high, at_high, high * _FIRST_GUESS_SPAN**2
        at_high = run(high)
    for _ in range(KNEE_BISECTIONS):
        middle = math.sqrt(low * high)
        at_middle = run(middle)
        if meets(at_middle, targets):
            low, at_low = middle, at_middle
        else:
            high = middle
    return Knee(low, at_low, probes)
