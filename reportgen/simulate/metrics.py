"""Percentiles and rates from a simulated run: what a load tester would report."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reportgen.simulate.server import Served
from reportgen.xlfuncs import Array

PERCENTILES = (50, 90, 95, 99)
# Requests arriving in the first tenth of a run meet an empty server: left out of the latency
# statistics so they describe the steady state (the load tester's warm-up).
WARMUP_FRACTION = 0.1


@dataclass(frozen=True)
class Summary:
    """Latency percentiles (PERCENTILES) and means of one run, in ms (E2E in s)."""

    ttft_ms: Array
    tpot_ms: Array
    e2e_s: Array
    queue_ms: Array
    ttft_mean_ms: float
    tpot_mean_ms: float
    e2e_mean_s: float
    queue_mean_ms: float
    kv_occupancy: Array  # time-weighted percentiles of used ÷ capacity
    kv_occupancy_mean: float
    preemptions_per_request: float
    throughput_rps: float
    goodput_rps: float  # requests/s meeting both targets given to summarize
    served: int
    rejected: int
    truncated: bool = False  # the run hit its iteration bound (see server.py)

    def p(self, metric: str, percentile: int) -> float:
        """One percentile of a metric: ``p("ttft_ms", 99)``."""
        return float(getattr(self, metric)[PERCENTILES.index(percentile)])


def _weighted_percentiles(values: Array, weights: Array) -> Array:
    if not len(values) or weights.sum() <= 0:
        return np.full(len(PERCENTILES), np.nan)
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order]) / weights.sum()
    at = np.searchsorted(cumulative, np.asarray(PERCENTILES) / 100)
    return values[order][np.minimum(at, len(values) - 1)]


def tpot_ms_of(served: Served) -> Array:
    """Each request's time per output token after the first, ms (NaN for one-token outputs)."""
    gaps = served.finished_s - served.first_token_s
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(served.output_tokens > 1, 1000 * gaps / (served.output_tokens - 1),
                        np.nan)


def summarize(served: Served, ttft_target_ms: float = np.inf,
              tpot_target_ms: float = np.inf) -> Summary:
    """The run's statistics; goodput counts requests whose TTFT and TPOT meet the targets."""
    n = len(served.arrival_s)
    steady = np.arange(n) >= int(n * WARMUP_FRACTION)
    ok = steady & ~np.isnan(served.finished_s)
    ttft = 1000 * (served.first_token_s - served.arrival_s)[ok]
    tpot_all = tpot_ms_of(served)[ok]
    tpot = tpot_all[~np.isnan(tpot_all)]
    e2e = (served.finished_s - served.arrival_s)[ok]
    queue = 1000 * (served.admitted_s - served.arrival_s)[ok]
    span = float(np.nanmax(served.finished_s) - served.arrival_s[0]) if ok.any() else np.nan
    good = (ttft <= ttft_target_ms) & (np.nan_to_num(tpot_all, nan=0.0) <= tpot_target_ms)

    def pct(values: Array) -> Array:
        if not len(values):
            return np.full(len(PERCENTILES), np.nan)
        return np.percentile(values, PERCENTILES)

    served_count = int((~np.isnan(served.finished_s)).sum())
    weights = served.kv_duration_s
    return Summary(
        ttft_ms=pct(ttft), tpot_ms=pct(tpot), e2e_s=pct(e2e), queue_ms=pct(queue),
        ttft_mean_ms=float(ttft.mean()) if len(ttft) else np.nan,
        tpot_mean_ms=float(tpot.mean()) if len(tpot) else np.nan,
        e2e_mean_s=float(e2e.mean()) if len(e2e) else np.nan,
        queue_mean_ms=float(queue.mean()) if len(queue) else np.nan,
        kv_occupancy=_weighted_percentiles(served.kv_occupancy, weights),
        kv_occupancy_mean=float(np.average(served.kv_occupancy, weights=weights))
        if weights.sum() > 0 else np.nan,
        preemptions_per_request=served.preemptions / max(n, 1),
        throughput_rps=served_count / span if span > 0 else np.nan,
        goodput_rps=float(good.sum()) / span * (n / max(int(steady.sum()), 1))
        if span > 0 else np.nan,
        served=served_count, rejected=served.rejected, truncated=served.truncated,
    )
