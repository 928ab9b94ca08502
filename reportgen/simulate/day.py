"""The 24 hourly request rates a plan row's day is simulated on: the same day the cost outlook
prices (:func:`reportgen.finance.demand.workload_rates`), so autoscaling and its dollars follow
one demand.

The profile named like the row's workload (``--profile FILE``) sets the shape when there is one;
otherwise the single-peak day whose busiest hour runs at ``peak_qps`` and whose mean is
``avg_qps`` (a flat day at peak when ``avg_qps`` is blank).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from reportgen.finance.demand import profile_for, workload_rates
from reportgen.xlfuncs import Array


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def hourly_rates_for(plan_row: Mapping[str, Any],
                     profiles: Mapping[str, np.ndarray] | None = None) -> Array:
    """The row's 24 hourly request rates [req/s], hour 0 first (see the module docstring)."""
    peak = _number(plan_row["peak_qps"])
    average = _number(plan_row.get("avg_qps"))
    if math.isnan(average) or average > peak:
        average = peak
    profile = profile_for(profiles or {}, str(plan_row.get("workload") or ""))
    return workload_rates(average, peak, profile)
