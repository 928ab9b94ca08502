"""A day of a fleet under four scaling policies, minute by minute.

Each instance serves up to ``capacity_rps`` within the latency targets (the knee when the row
has targets, else the closed form's capacity); a minute in which the demand exceeds what the
ready instances serve that way counts as a minute of SLO violation. The demand of each minute
is interpolated linearly between the hourly rates (taken at each hour's middle, around the
clock). New instances bill from the moment they are asked for and serve after
``cold_start_min`` (weights loaded, CUDA graphs captured); instances scaled in stop billing at
once. Policies:

* ``fixed peak fleet``: the planned instances all day;
* ``KV occupancy``: scale out when the instances' KV-cache occupancy (from the simulated
  occupancy at their rate) exceeds ``kv_out`` (70 %), to the fewest instances that bring it
  back under; scale in when it falls below ``kv_in`` (30 %), to the fewest that keep it under
  the middle of the two — the tutorial's autoscaling case;
* ``QPS``: hold ⌈demand × safety ÷ capacity⌉ instances, reacting to the current minute;
* ``scheduled``: hold each hour's ⌈highest demand in the hour × safety ÷ capacity⌉, started
  ``cold_start_min`` ahead so they are ready on the hour.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen.xlfuncs import Array

MINUTES_PER_DAY = 1440
# Minutes from asking for an instance to its first request: load the weights and capture CUDA
# graphs (an assumption of the order vLLM start-up logs show for a 70B model; set your own).
COLD_START_MIN = 10.0
KV_SCALE_OUT = 0.70
KV_SCALE_IN = 0.30
POLICIES = ("fixed peak fleet", "KV occupancy", "QPS", "scheduled")
DAY_COLUMNS = ("policy", "instance_hours", "cost_usd_per_day", "slo_violation_minutes",
               "peak_instances", "min_instances")


@dataclass(frozen=True)
class Fleet:
    """What the policies know about one instance and the planned fleet."""

    capacity_rps: float  # per instance, within the targets
    planned_instances: int
    instance_hour_usd: float  # the plan's billed cost of one instance for one hour
    safety_factor: float
    occupancy_rates_rps: Array  # per-instance rates the KV occupancy was simulated at
    occupancy: Array  # mean KV occupancy at those rates (used ÷ capacity)


def minute_rates(hourly_rps: Sequence[float] | Array) -> Array:
    """Demand of each minute of the day [req/s], linear between hour middles (cyclic)."""
    hourly = np.asarray(hourly_rps, dtype=float)
    if hourly.shape != (24,) or np.any(hourly < 0) or not np.all(np.isfinite(hourly)):
        raise ValueError("expected 24 hourly request rates ≥ 0")
    minutes = np.arange(MINUTES_PER_DAY) + 0.5
    middles = np.arange(24) * 60 + 30.0
    return np.asarray(np.interp(minutes, np.concatenate([middles - 1440, middles,
                                                         middles + 1440]), np.tile(hourly, 3)))


def _occupancy(fleet: Fleet, rate_per_instance: float) -> float:
    return float(np.interp(rate_per_instance, fleet.occupancy_rates_rps, fleet.occupancy))


def _fewest(fleet: Fleet, demand: float, bound: float) -> int:
    """The fewest instances whose KV occupancy at ``demand`` stays at or under ``bound``."""
    low, high = 1, max(1, fleet.planned_instances)
    while _occupancy(fleet, demand / high) > bound and high < 1_000_000:
        high *= 2
    while low < high:
        middle = (low + high) // 2
        if _occupancy(fleet, demand / middle) <= bound:
            high = middle
        else:
            low = middle + 1
    return low


def _needed(fleet: Fleet, demand: float) -> int:
    return max(1, math.ceil(round(demand * fleet.safety_factor / fleet.capacity_rps, 9)))


def _run(fleet: Fleet, demand: Array, desired: Callable[[int, int, float], int],
         cold_start_min: float, start: int) -> tuple[float, int, int, int, Array]:
    """Minute loop: ``desired(minute, ready + starting, occupancy)`` → instances wanted.
    Returns instance-hours, violation minutes, most and fewest instances, and the instances
    billed each minute."""
    billed = np.zeros(len(demand))
    ready = start
    starting: list[int] = []  # minutes at which each starting instance becomes ready
    billed_minutes = 0
    violations = 0
    peak = low = start
    for minute, rate in enumerate(demand):
        while starting and starting[0] <= minute:
            starting.pop(0)
            ready += 1
        total = ready + len(starting)
        occupancy = _occupancy(fleet, rate / max(ready, 1))
        want = desired(minute, total, occupancy)
        if want > total:
            starting.extend([minute + math.ceil(cold_start_min)] * (want - total))
        elif want < total:
            drop = total - want
            cancel = min(drop, len(starting))
            del starting[len(starting) - cancel:]
            ready -= drop - cancel
        total = ready + len(starting)
        billed[minute] = total
        billed_minutes += total
        peak, low = max(peak, total), min(low, total)
        if rate > ready * fleet.capacity_rps * (1 + 1e-12):
            violations += 1
    return billed_minutes / 60, violations, peak, low, billed


@dataclass(frozen=True)
class Day:
    """One day of a fleet: the table (DAY_COLUMNS, one row per POLICIES entry), the demand of
    each minute [req/s] and the instances each policy billed each minute."""

    table: pd.DataFrame
    demand_rps: Array
    instances: dict[str, Array]


def simulate_day(hourly_rps: Sequence[float] | Array, fleet: Fleet,
                 cold_start_min: float = COLD_START_MIN, kv_out: float = KV_SCALE_OUT,
                 kv_in: float = KV_SCALE_IN) -> Day:
    """Instance-hours, dollars and SLO-violation minutes of each policy over one day."""
    if not 0 < kv_in < kv_out <= 1:
        raise ValueError("expected 0 < kv_in < kv_out ≤ 1")
    demand = minute_rates(hourly_rps)
    first = _needed(fleet, float(demand[0]))
    lead = math.ceil(cold_start_min)
    hour_need = [_needed(fleet, float(demand[h * 60:(h + 1) * 60].max())) for h in range(24)]

    def kv(minute: int, total: int, occupancy: float) -> int:
        rate = float(demand[minute])
        if occupancy > kv_out:
            return max(total, _fewest(fleet, rate, kv_out))
        if occupancy < kv_in:
            return min(total, _fewest(fleet, rate, (kv_in + kv_out) / 2))
        return total

    def scheduled(minute: int, total: int, occupancy: float) -> int:
        del total, occupancy
        ahead = (minute + lead) % MINUTES_PER_DAY // 60
        return max(hour_need[minute // 60], hour_need[ahead])

    policies: dict[str, tuple[Callable[[int, int, float], int], int]] = {
        "fixed peak fleet": (lambda m, n, o: fleet.planned_instances, fleet.planned_instances),
        "KV occupancy": (kv, first),
        "QPS": (lambda m, n, o: _needed(fleet, float(demand[m])), first),
        "scheduled": (scheduled, hour_need[0]),
    }
    rows = []
    series: dict[str, Array] = {}
    for name in POLICIES:
        rule, start = policies[name]
        hours, violations, peak, low, series[name] = _run(fleet, demand, rule, cold_start_min,
                                                          start)
        rows.append({"policy": name, "instance_hours": hours,
                     "cost_usd_per_day": hours * fleet.instance_hour_usd,
                     "slo_violation_minutes": violations, "peak_instances": peak,
                     "min_instances": low})
    return Day(pd.DataFrame(rows, columns=list(DAY_COLUMNS)), demand, series)
