"""Demand over a day: a workload's 24 hourly request rates, from a measured profile or from its
peak and average rates alone.

Call :func:`workload_rates` for the rates (req/s, hour 0 to 23, mean = the average rate) and
:func:`read_profiles` for a profile file (``--profile FILE``: CSV or XLSX, columns ``profile``,
``hour`` 0–23 and ``weight``; a profile named like a workload applies to it). Pure functions of
numbers in, numbers out, so a capacity model, an autoscaling simulation or a report can call them
alike.

Without a profile the day is a smooth single-peak shape whose busiest hour runs at ``peak_qps``
and whose mean is ``avg_qps``: ``avg × (1 + a·cos(2π(h − peak_hour)/24))`` with ``a = peak/avg −
1`` up to a peak-to-average ratio of 2, and ``peak × ((1 + cos(...))/2)^n`` above it, ``n`` chosen
so the mean is still ``avg`` (both meet at ratio 2: a cosine that touches zero at night).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from reportgen.errors import InputError

HOURS = 24
DEFAULT_PEAK_HOUR = 14  # the busiest hour of the synthetic day (local time)
MAX_PEAK_TO_AVERAGE = float(HOURS)  # all traffic in one hour


class ProfileError(InputError):
    """A profile file or a rate cannot be used: every problem, one per line."""

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        lines = [f"{source}: {len(self.problems)} problem(s); nothing was written.",
                 *("  " + p for p in self.problems),
                 "A profile file has the columns profile, hour (0-23) and weight (≥ 0, any "
                 "scale): 24 rows per profile."]
        super().__init__("\n".join(lines))


def _angle(peak_hour: float) -> np.ndarray:
    return 2 * np.pi * (np.arange(HOURS) - peak_hour) / HOURS


def _power_cosine_mean(n: float, angle: np.ndarray) -> float:
    return float(np.mean(((1 + np.cos(angle)) / 2) ** n))


def peak_shape(peak_to_average: float, peak_hour: float = DEFAULT_PEAK_HOUR) -> np.ndarray:
    """24 hourly weights with mean 1 and maximum ``peak_to_average`` (1 ≤ ratio ≤ 24)."""
    if not (1 <= peak_to_average <= MAX_PEAK_TO_AVERAGE) or math.isnan(peak_to_average):
        raise ValueError(f"peak-to-average ratio {peak_to_average!r}: expected 1 to {HOURS}")
    angle = _angle(peak_hour)
    if peak_to_average <= 2:
        return np.asarray(1 + (peak_to_average - 1) * np.cos(angle))
    target = 1 / peak_to_average  # mean of the normalised shape whose maximum is 1
    low, high = 1.0, 1.0
    while _power_cosine_mean(high, angle) > target:
        high *= 2
        if high > 1e6:  # the shape cannot get narrower than its peak hour
            break
    for _ in range(200):
        mid = (low + high) / 2
        if _power_cosine_mean(mid, angle) > target:
            low = mid
        else:
            high = mid
    shape = ((1 + np.cos(angle)) / 2) ** ((low + high) / 2)
    return np.asarray(shape / shape.mean())


def workload_rates(avg_qps: float, peak_qps: float | None = None,
                   profile: Sequence[float] | np.ndarray | None = None,
                   peak_hour: float = DEFAULT_PEAK_HOUR) -> np.ndarray:
    """A workload's request rate in each hour of the day, req/s (hour 0 to 23).

    ``avg_qps`` is the day's mean rate. With ``profile`` (24 weights ≥ 0, any scale) the rates
    follow it: ``avg × weight / mean(weight)``, and ``peak_qps`` is ignored. Without one, the
    synthetic single-peak day of the module docstring with its maximum at ``peak_qps`` (default
    ``avg_qps``: a flat day) in hour ``peak_hour``. Raises :class:`ValueError` for rates < 0, a
    peak below the average, or a profile that is not 24 weights with a positive sum.
    """
    if not math.isfinite(avg_qps) or avg_qps < 0:
        raise ValueError(f"avg_qps {avg_qps!r}: expected a number ≥ 0")
    if profile is not None:
        weights = np.asarray(profile, dtype=float)
        if weights.shape != (HOURS,) or not np.isfinite(weights).all() or (weights < 0).any():
            raise ValueError(f"profile: expected {HOURS} weights ≥ 0, one per hour")
        if weights.sum() <= 0:
            raise ValueError("profile: the weights sum to 0; expected some traffic")
        return np.asarray(avg_qps * weights / weights.mean())
    peak = avg_qps if peak_qps is None else peak_qps
    if avg_qps == 0:
        return np.zeros(HOURS)
    if peak < avg_qps * (1 - 1e-12):
        raise ValueError(f"peak_qps {peak!r} is below avg_qps {avg_qps!r}; expected peak ≥ avg")
    ratio = min(peak / avg_qps, MAX_PEAK_TO_AVERAGE)
    return np.asarray(avg_qps * peak_shape(max(ratio, 1.0), peak_hour))


def replicas_by_hour(rates: Sequence[float], peak_qps: float, peak_replicas: float,
                     min_replicas: float) -> np.ndarray:
    """Replicas an autoscaler keeps each hour: the peak fleet's traffic replicas scaled by the
    hour's share of the peak rate, rounded up, never below ``min_replicas``."""
    share = np.asarray(rates, dtype=float) / peak_qps if peak_qps > 0 else np.zeros(HOURS)
    return np.maximum(np.ceil(np.round(share * peak_replicas, 9)), min_replicas)


def read_profiles(path: Path) -> dict[str, np.ndarray]:
    """The 24-hour weight profiles of a file (CSV, or XLSX with a Profiles sheet), by name
    (compared ignoring case and surrounding spaces)."""
    from reportgen.readers import read_table

    if not path.is_file():
        raise ProfileError(str(path), ["no such file; give a profile file (CSV or XLSX)"])
    table = read_table(path)
    header = [h.strip().lower() for h in table.header]
    missing = [c for c in ("profile", "hour", "weight") if c not in header]
    if missing:
        raise ProfileError(table.source, [f"missing column(s) {', '.join(missing)}"])
    at = {name: header.index(name) for name in ("profile", "hour", "weight")}
    problems: list[str] = []
    found: dict[str, dict[int, float]] = {}
    for row, cells in table.rows:
        def cell(name: str, cells: Sequence[object] = cells) -> str:
            i = at[name]
            value = cells[i] if i < len(cells) else None
            return "" if value is None else str(value).strip()

        name, hour_text, weight_text = cell("profile"), cell("hour"), cell("weight")
        if not (name or hour_text or weight_text):
            continue
        try:
            hour = float(hour_text)
            weight = float(weight_text)
        except ValueError:
            problems.append(f"row {row}: hour {hour_text!r} and weight {weight_text!r}; "
                            "expected numbers")
            continue
        if not name:
            problems.append(f"row {row}, column profile: blank; expected a profile name")
        elif not hour.is_integer() or not 0 <= hour < HOURS:
            problems.append(f"row {row}, column hour: {hour_text!r}; expected 0 to 23")
        elif not math.isfinite(weight) or weight < 0:
            problems.append(f"row {row}, column weight: {weight_text!r}; expected a number ≥ 0")
        elif int(hour) in found.setdefault(" ".join(name.split()).lower(), {}):
            problems.append(f"row {row}: hour {int(hour)} of profile {name!r} given twice")
        else:
            found[" ".join(name.split()).lower()][int(hour)] = weight
    for name, hours in found.items():
        if hours and len(hours) != HOURS:
            missing_hours = sorted(set(range(HOURS)) - set(hours))
            problems.append(f"profile {name!r}: no weight for hour(s) "
                            f"{', '.join(map(str, missing_hours))}; expected all 24")
        elif hours and sum(hours.values()) <= 0:
            problems.append(f"profile {name!r}: the weights sum to 0; expected some traffic")
    if problems:
        raise ProfileError(table.source, problems)
    return {name: np.array([hours[h] for h in range(HOURS)]) for name, hours in found.items()}


def profile_for(profiles: Mapping[str, np.ndarray], workload: str) -> np.ndarray | None:
    """The profile named like ``workload`` (ignoring case and spaces), if any."""
    return profiles.get(" ".join(workload.split()).lower())
