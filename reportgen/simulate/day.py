"""The 24 hourly request rates a plan row's day is simulated on.

Until the scenario file carries a demand profile, a row's day follows the default shape in
``reportgen/data/diurnal_default.csv``: 24 factors of the peak hour, an assumed business-hours
service (trough 30 % of peak at 03:00–04:00, peak at 14:00), not a measurement. The peak hour
carries ``peak_qps``; when the row gives ``avg_qps`` the factors are raised to the power that
makes the day's mean rate equal it (the peak hour stays at peak_qps, the order of hours is
kept).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from reportgen.xlfuncs import Array

HOURS_PER_DAY = 24
DIURNAL_FILE = "diurnal_default.csv"


@functools.cache
def default_shape() -> tuple[float, ...]:
    """The 24 default hourly factors of the peak hour (hour 0 first)."""
    with resources.files("reportgen.data").joinpath(DIURNAL_FILE).open(encoding="utf-8") as f:
        table = pd.read_csv(f)
    factors = table.sort_values("hour")["factor_of_peak"].to_numpy(dtype=float)
    if len(factors) != HOURS_PER_DAY or factors.max() != 1.0 or factors.min() <= 0:
        raise ValueError(f"{DIURNAL_FILE}: expected 24 factors in (0, 1] with a peak of 1")
    return tuple(float(f) for f in factors)


def shaped_to_mean(factors: Array, mean_of_peak: float) -> Array:
    """``factors`` (peak 1) raised to the power γ whose mean is ``mean_of_peak`` (0 < m ≤ 1)."""
    if mean_of_peak >= 1:
        return np.ones_like(factors)
    low, high = 1e-6, 1e3  # the mean of f^γ falls as γ grows
    for _ in range(80):
        gamma = math.sqrt(low * high)
        if np.mean(factors**gamma) > mean_of_peak:
            low = gamma
        else:
            high = gamma
    return np.asarray(factors**gamma)


def hourly_rates_for(plan_row: Mapping[str, Any]) -> Array:
    """The row's 24 hourly request rates [req/s], hour 0 first: the default shape at the row's
    peak_qps, shaped to its avg_qps when it has one."""
    peak = float(plan_row["peak_qps"])
    factors = np.asarray(default_shape())
    average = plan_row.get("avg_qps")
    try:
        mean = float(average) if average is not None else math.nan
    except (TypeError, ValueError):
        mean = math.nan
    if not math.isnan(mean) and 0 < mean < peak:
        factors = shaped_to_mean(factors, mean / peak)
    return peak * factors
