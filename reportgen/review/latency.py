"""Latency against target: the plan's targets are means (``ttft_slo_ms``, ``tpot_slo_ms``), so
the measured mean decides (the median when no mean was measured, said so); p50 and p99 are
shown beside it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from reportgen.review.actuals.combine import WorkloadActuals
from reportgen.review.workloads import PlanWorkload

METRICS = (("TTFT", "ttft"), ("TPOT", "tpot"))


@dataclass(frozen=True)
class LatencyRow:
    """One workload's TTFT or TPOT: target, prediction and what was measured (ms; NaN when not
    known)."""

    workload: str
    metric: str  # "TTFT" or "TPOT"
    target_ms: float
    predicted_ms: float
    mean_ms: float
    p50_ms: float
    p99_ms: float
    status: str  # "met", "missed", "no target", "not measured"
    basis: str  # which measured figure decided ("mean", "median")


def latency_rows(plan: PlanWorkload, actual: WorkloadActuals) -> list[LatencyRow]:
    """TTFT and TPOT of one workload."""
    rows = []
    for label, key in METRICS:
        target = getattr(plan, f"{key}_target_ms")
        mean, p50, p99 = (actual.values[f"{key}_{s}_ms"] for s in ("mean", "p50", "p99"))
        basis, decisive = ("mean", mean) if not math.isnan(mean) else ("median", p50)
        if target is None:
            status = "no target"
        elif math.isnan(decisive):
            status = "not measured"
        else:
            status = "met" if decisive <= target else "missed"
        rows.append(LatencyRow(plan.name, label, float("nan") if target is None else target,
                               getattr(plan, f"{key}_ms"), mean, p50, p99, status, basis))
    return rows
