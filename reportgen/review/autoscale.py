"""KV-cache occupancy autoscaling thresholds that would have held the latency target.

The source tutorial scales out above 70 % KV-cache occupancy and in below 30 % (sustained 30
minutes). Occupancy here is vLLM's ``kv_cache_usage_perc``: the share of KV blocks holding
tokens. The thresholds come from two places:

* the engine, calibrated on the quarter (re-forecast row: measured lengths, achieved
  efficiency, the stack that ran): at its operating batch B* (the most sequences per replica
  that meet the TPOT and TTFT targets and fit the KV cache) the cache holds
  B* × (prompt + output ÷ 2) tokens (a running sequence holds its prompt and, on average, half
  its output), a share of the engine's KV budget;
* the samples, when a Prometheus export gives them: the lowest fleet occupancy of an interval
  whose mean TPOT missed the target, if any interval did.

Scale out at 85 % of the lower of the two (head-room for the 30 minutes a new replica takes to
matter), rounded down to a whole percent; scale in where removing one of the typical *n*
replicas still lands 15 % below the scale-out threshold: out × (n − 1) / n × 0.85.

With samples, the quarter is replayed: each interval needed the fewest replicas that keep the
occupancy at or under the scale-out threshold (sequences spread evenly, so occupancy ×
replicas stays constant; never fewer than one). The GPU-hours above that, at the price paid, are
what the policy would have saved, if the released GPUs stop billing (GPUs of a node that stays
up do not). The same replay with the tutorial's 70 % is shown beside it. This replays observed
occupancy; it does not model queueing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen.review.actuals.combine import WorkloadActuals

HEADROOM = 0.85
TUTORIAL_OUT, TUTORIAL_IN = 0.70, 0.30
BYTES_PER_GIB = 2**30


@dataclass(frozen=True)
class Advice:
    """One workload's thresholds and what they would have saved."""

    workload: str
    scale_out: float  # fraction of KV blocks in use
    scale_in: float | None  # None with a single replica
    engine_occupancy: float  # at the calibrated engine's operating batch
    observed_miss: float | None  # lowest occupancy of an interval that missed TPOT
    observed_max: float | None  # highest fleet occupancy sampled
    replicas_typical: float
    gpu_hours_saved: float | None  # over the window; None without samples
    cost_saved: float | None
    tutorial_gpu_hours_saved: float | None  # the tutorial's 70 %, same replay
    evidence: str


def occupancy_at_operating_batch(row: pd.Series) -> float:
    """KV occupancy (vLLM's definition) of one replica running the row's operating batch: each
    sequence holds its KV at the mean decode context (local-attention layers their window)."""
    held = float(row["batch"]) * float(row["decode_attended_tokens"])
    budget = float(row["kv_budget_gib"]) * BYTES_PER_GIB
    per_token = float(row["kv_bytes_per_token"]) * float(row.get("kv_copies", 1.0))
    return min(1.0, held * per_token / budget) if budget > 0 else 1.0


def _percent(x: float) -> float:
    """Rounded down to a whole percent."""
    return math.floor(round(x * 100, 9)) / 100


def replay(series: pd.DataFrame, threshold: float, gpus_per_replica: float) -> float:
    """GPU-hours above the fewest replicas that keep occupancy ≤ ``threshold``."""
    kv = series["kv_usage"].to_numpy(dtype=float)
    replicas = series["replicas"].to_numpy(dtype=float)
    times = series.index.to_numpy(dtype=float)
    step = np.diff(times, append=times[-1] + (np.median(np.diff(times)) if len(times) > 1
                                              else 0.0))
    needed = np.maximum(1.0, np.ceil(np.round(replicas * kv / threshold, 9)))
    return float(np.nansum(np.maximum(0.0, replicas - needed) * step / 3600 * gpus_per_replica))


def advise(actual: WorkloadActuals, tpot_target_ms: float | None, engine_row: pd.Series,
           replicas: float, gpus_per_replica: float, price_per_gpu_hour: float) -> Advice:
    """Thresholds for one workload (see the module docstring)."""
    engine = occupancy_at_operating_batch(engine_row)
    series = actual.series
    miss = top = None
    if series is not None and not series.empty:
        kv = series["kv_usage"].to_numpy(dtype=float)
        top = float(np.nanmax(kv))
        replicas = float(np.median(series["replicas"]))
        if tpot_target_ms is not None and "tpot_ms" in series:
            missed = series["tpot_ms"].to_numpy(dtype=float) > tpot_target_ms
            if missed.any():
                miss = float(kv[missed].min())
    limit = engine if miss is None else min(engine, miss)
    out = max(0.01, _percent(limit * HEADROOM))
    scale_in = _percent(out * (replicas - 1) / replicas * HEADROOM) if replicas >= 2 else None
    if scale_in is not None and scale_in <= 0:
        scale_in = None
    parts = [f"the calibrated engine runs {float(engine_row['batch']):,.0f} sequences per "
             f"replica at its limit, {engine:.0%} KV occupancy"]
    if miss is not None:
        parts.append(f"an interval missed the TPOT target at {miss:.0%}")
    elif top is not None:
        parts.append(f"the samples reach {top:.0%} with no interval over the TPOT target")
    saved = tutorial = cost = None
    if series is not None and not series.empty:
        times = series.index.to_numpy(dtype=float)
        spacing = float(np.median(np.diff(times))) / 3600 if len(times) > 1 else 0.0
        parts.append(f"replayed over {len(times):,} samples {spacing:,.0f} h apart (peaks "
                     "between samples are not seen, so the saving is an upper bound)"
                     if spacing > 0.25 else f"replayed over {len(times):,} samples")
        saved = replay(series, out, gpus_per_replica)
        tutorial = replay(series, TUTORIAL_OUT, gpus_per_replica)
        cost = saved * price_per_gpu_hour
    else:
        parts.append("no samples to replay (summary figures only)")
    return Advice(actual.name, out, scale_in, engine, miss, top, replicas, saved, cost, tutorial,
                  "; ".join(parts))
