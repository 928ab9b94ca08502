"""Latency under load for the rows a plan budgets: percentiles at the planned load, the knee,
the instances the knee implies and a day of autoscaling.

Only budgeted rows (``counted`` = 1) are simulated, each with ROW_REQUESTS requests per run, so
a build's simulation time grows with the rows it budgets, not with the rows it searched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from reportgen.simulate.autoscale import Day, Fleet, simulate_day
from reportgen.simulate.day import hourly_rates_for
from reportgen.simulate.knee import KNEE_PERCENTILE, Targets, find_knee
from reportgen.simulate.metrics import Summary, summarize
from reportgen.simulate.workload import Workload, workload_for
from reportgen.units import CONSTANTS
from reportgen.xlfuncs import ceil_snapped

if TYPE_CHECKING:
    from reportgen.plan import Plan

# Budgeted rows a workbook or PDF simulates (about half a second each), largest fleets first;
# the others are listed as not simulated.
MAX_LATENCY_ROWS = 40
# Per-instance rates, as multiples of the capacity, at which the KV occupancy curve the
# occupancy policy reads is simulated (past 1 the queue fills the cache).
OCCUPANCY_CURVE_MULTIPLES = (0.25, 0.5, 1.0, 1.5)

SIZED_BY_KNEE = "knee of the P99 targets"
SIZED_BY_CLOSED_FORM = "closed form"
SIZED_BY_NO_TARGET = "closed form"

LATENCY_COLUMNS: dict[str, tuple[str, str]] = {
    "scenario": ("text", "The budgeted row."),
    "sized_by": ("text", "What set the instances: the knee of the P99 targets, or the closed "
                 "form (mean targets or none), as on the Plan sheet."),
    "target_statistic": ("text", "The statistic the targets bound: P99 or mean."),
    "sim_rate_rps_per_instance": ("req/s", "Peak request rate one instance carries in the "
                                  "plan (peak_qps ÷ instances)."),
    "sim_ttft_p50_ms": ("ms", "Simulated median time to first token at that rate."),
    "sim_ttft_p90_ms": ("ms", "Simulated 90th percentile TTFT."),
    "sim_ttft_p95_ms": ("ms", "Simulated 95th percentile TTFT."),
    "sim_ttft_p99_ms": ("ms", "Simulated 99th percentile TTFT."),
    "sim_tpot_p50_ms": ("ms", "Simulated median time per output token (inter-token latency)."),
    "sim_tpot_p99_ms": ("ms", "Simulated 99th percentile TPOT."),
    "sim_e2e_p99_s": ("s", "Simulated 99th percentile end-to-end latency."),
    "sim_queue_p99_ms": ("ms", "Simulated 99th percentile wait before a request is scheduled."),
    "sim_ttft_mean_ms": ("ms", "Simulated mean TTFT (the closed form's ttft_ms has no queue)."),
    "sim_tpot_mean_ms": ("ms", "Simulated mean TPOT."),
    "sim_kv_occupancy_mean": ("fraction", "Time-weighted mean share of KV blocks in use, from "
                              "the real length mix (paged blocks)."),
    "sim_kv_occupancy_p99": ("fraction", "99th percentile of that occupancy over time."),
    "sim_preemptions_per_1k": ("per 1k requests", "Sequences preempted (recomputed) because "
                               "the KV cache ran out of blocks."),
    "sim_goodput_rps_per_instance": ("req/s", "Requests per second per instance meeting every "
                                     "target."),
    "closed_form_ttft_ms": ("ms", "The closed form's TTFT at the operating batch (no queue)."),
    "closed_form_tpot_ms": ("ms", "The closed form's TPOT at the operating batch."),
    "closed_form_kv_occupancy": ("fraction", "The closed form's KV occupancy at peak: every "
                                 "sequence reserving max_prompt + max_output tokens (the "
                                 "conservative fallback)."),
    "knee_rps_per_instance": ("req/s", "Highest rate per instance meeting the targets (P99 or "
                              "mean as given; blank: no target)."),
    "knee_instances": ("instances", "Instances the knee needs: ⌈peak_qps × safety ÷ knee⌉."),
    "planned_instances": ("instances", "Instances in the plan."),
}
DAY_TABLE_COLUMNS: dict[str, tuple[str, str]] = {
    "scenario": ("text", "The budgeted row."),
    "policy": ("text", "How the fleet scales over the day."),
    "instance_hours": ("instance-hours", "Instance-hours billed in the day (starting ones "
                       "included)."),
    "cost_usd_per_day": ("USD/day", "Instance-hours × the plan's billed cost per instance-hour "
                         "(monthly_cost ÷ instances ÷ hours a month)."),
    "slo_violation_minutes": ("minutes", "Minutes whose demand exceeds what the ready "
                              "instances serve within the targets (the knee)."),
    "peak_instances": ("instances", "Most instances at once."),
    "min_instances": ("instances", "Fewest instances at once."),
}


def _number(row: Mapping[str, Any], name: str) -> float:
    value = row.get(name)
    try:
        number = float(value) if value is not None and value != "" else math.nan
    except (TypeError, ValueError):
        return math.nan
    return number


def targets_of(row: Mapping[str, Any]) -> Targets:
    """The row's percentile targets when it has any, else its mean targets."""
    p99 = Targets(_number(row, "ttft_p99_ms"), _number(row, "tpot_p99_ms"), "p99")
    if p99.any:
        return p99
    return Targets(_number(row, "ttft_slo_ms"), _number(row, "tpot_slo_ms"), "mean")


def sized_by(row: Mapping[str, Any]) -> str:
    """Which method sets the row's instances."""
    targets = targets_of(row)
    if targets.statistic == "p99":
        return SIZED_BY_KNEE
    return SIZED_BY_CLOSED_FORM if targets.any else SIZED_BY_NO_TARGET


def knee_instances(peak_qps: float, safety_factor: float, knee_rps: float) -> float:
    """⌈peak_qps × safety ÷ knee⌉ (0 when the knee is 0: the targets cannot be met)."""
    if not knee_rps > 0:
        return 0.0
    return float(ceil_snapped(np.asarray(peak_qps * safety_factor / knee_rps)))


def _stats(summary: Summary, instances_rate: float) -> dict[str, float]:
    p = summary.p
    return {
        "sim_ttft_p50_ms": p("ttft_ms", 50), "sim_ttft_p90_ms": p("ttft_ms", 90),
        "sim_ttft_p95_ms": p("ttft_ms", 95), "sim_ttft_p99_ms": p("ttft_ms", KNEE_PERCENTILE),
        "sim_tpot_p50_ms": p("tpot_ms", 50), "sim_tpot_p99_ms": p("tpot_ms", KNEE_PERCENTILE),
        "sim_e2e_p99_s": p("e2e_s", KNEE_PERCENTILE),
        "sim_queue_p99_ms": p("queue_ms", KNEE_PERCENTILE),
        "sim_ttft_mean_ms": summary.ttft_mean_ms, "sim_tpot_mean_ms": summary.tpot_mean_ms,
        "sim_kv_occupancy_mean": summary.kv_occupancy_mean,
        "sim_kv_occupancy_p99": float(summary.kv_occupancy[-1]),
        "sim_preemptions_per_1k": 1000 * summary.preemptions_per_request,
        "sim_goodput_rps_per_instance": summary.goodput_rps,
        "sim_rate_rps_per_instance": instances_rate,
    }


def row_values(plan_scenarios: pd.DataFrame, results: pd.DataFrame, i: int) -> dict[str, Any]:
    """A row's scenario inputs and results in one mapping (results win on shared names)."""
    merged = {**plan_scenarios.iloc[i].to_dict(), **results.iloc[i].to_dict()}
    return {str(name): value for name, value in merged.items()}


def budgeted_rows(results: pd.DataFrame) -> list[int]:
    """Positions of the rows the plan budgets."""
    counted = results["counted"].to_numpy() if "counted" in results else np.zeros(len(results))
    return [i for i in range(len(results)) if counted[i] == 1]


def knee_of(values: Mapping[str, Any], model: Mapping[str, Any]) -> tuple[float, Workload]:
    """The row's knee [req/s per instance] (NaN without targets) and its workload."""
    workload = workload_for(values, model)
    targets = targets_of(values)
    if not targets.any:
        return math.nan, workload
    return find_knee(workload, float(values["instance_rps"]), targets).rate_rps, workload


def latency_row(values: Mapping[str, Any], model: Mapping[str, Any],
                knee: float | None = None) -> tuple[dict[str, Any], Workload]:
    """The latency table's row for one budgeted results row."""
    if knee is None:
        knee, workload = knee_of(values, model)
    else:
        workload = workload_for(values, model)
    instances = float(values["instances"])
    rate = float(values["peak_qps"]) / instances
    targets = targets_of(values)
    summary = summarize(workload.at_rate(rate), targets.ttft_ms if targets.statistic == "p99"
                        else math.inf, targets.tpot_ms if targets.statistic == "p99"
                        else math.inf)
    row: dict[str, Any] = {
        "scenario": values["scenario"], "sized_by": values.get("sized_by") or sized_by(values),
        "target_statistic": targets.statistic.upper() if targets.any else "",
        **_stats(summary, rate),
        "closed_form_ttft_ms": float(values["ttft_ms"]),
        "closed_form_tpot_ms": float(values["tpot_ms"]),
        "closed_form_kv_occupancy": float(values["kv_occupancy_at_peak"]),
        "knee_rps_per_instance": knee,
        "knee_instances": knee_instances(float(values["peak_qps"]),
                                         float(values["safety_factor"]), knee)
        if not math.isnan(knee) else math.nan,
        "planned_instances": instances,
    }
    return row, workload


@dataclass(frozen=True)
class LatencyUnderLoad:
    """What the reports show of the simulation: ``table`` (LATENCY_COLUMNS, one row per
    budgeted row), ``day`` (DAY_TABLE_COLUMNS, per budgeted row and policy), ``curve``
    (CURVE_COLUMNS: P99 TTFT and KV occupancy at multiples of each row's capacity) and the
    minute-by-minute day of the budgeted row with the most instances (``busiest``)."""

    table: pd.DataFrame
    day: pd.DataFrame
    curve: pd.DataFrame
    busiest: str
    busiest_day: Day | None
    not_simulated: tuple[str, ...] = ()  # budgeted rows past MAX_LATENCY_ROWS


CURVE_COLUMNS = ("scenario", "load_of_capacity", "rate_rps_per_instance", "ttft_p99_ms",
                 "kv_occupancy_mean")


def day_rows(values: Mapping[str, Any], raw: Mapping[str, Any], workload: Workload,
             knee: float, profiles: Mapping[str, np.ndarray] | None = None
             ) -> tuple[Day, pd.DataFrame]:
    """A day of the row's fleet under each policy, and the load curve it was planned on."""
    capacity = knee if knee > 0 else float(values["instance_rps"])
    rates = np.asarray(OCCUPANCY_CURVE_MULTIPLES) * capacity
    runs = [summarize(workload.at_rate(r)) for r in rates]
    occupancy = np.array([run.kv_occupancy_mean for run in runs])
    curve = pd.DataFrame({
        "scenario": values["scenario"], "load_of_capacity": OCCUPANCY_CURVE_MULTIPLES,
        "rate_rps_per_instance": rates,
        "ttft_p99_ms": [run.p("ttft_ms", KNEE_PERCENTILE) for run in runs],
        "kv_occupancy_mean": occupancy,
    }, columns=list(CURVE_COLUMNS))
    fleet = Fleet(capacity_rps=capacity, planned_instances=int(values["instances"]),
                  # the plan's billed cost per instance-hour, so the fixed fleet's day is the
                  # plan's monthly cost ÷ hours a month × 24 (whole instances billed included)
                  instance_hour_usd=float(values["monthly_cost"])
                  / (float(values["instances"]) * float(CONSTANTS["HOURS_PER_MONTH"].value)),
                  safety_factor=float(values["safety_factor"]),
                  occupancy_rates_rps=np.concatenate([[0.0], rates]),
                  occupancy=np.concatenate([[0.0], np.maximum.accumulate(occupancy)]))
    day = simulate_day(hourly_rates_for({"peak_qps": values["peak_qps"],
                                         "avg_qps": raw.get("avg_qps"),
                                         "workload": values.get("workload")}, profiles), fleet)
    day.table.insert(0, "scenario", values["scenario"])
    return day, curve


def with_latency(plan: Plan) -> Plan:
    """The plan with its latency under load (LatencyUnderLoad) for the reports."""
    rows: list[dict[str, Any]] = []
    days: list[pd.DataFrame] = []
    curves: list[pd.DataFrame] = []
    busiest, busiest_day, most = "", None, -1.0
    instances = plan.results["instances"].to_numpy(dtype=float)
    methods = plan.results["method"].to_numpy()
    candidates = [i for i in budgeted_rows(plan.results)
                  if methods[i] == "roofline" and instances[i] > 0]
    by_size = sorted(candidates, key=lambda i: -instances[i])
    chosen = set(by_size[:MAX_LATENCY_ROWS])
    skipped = tuple(str(plan.results["scenario"].iat[i]) for i in candidates if i not in chosen)
    for i in candidates:
        if i not in chosen:
            continue
        values = row_values(plan.scenarios, plan.results, i)
        model = plan.tables.models.loc[values["model"]].to_dict()
        typed_knee = _number(values, "knee_rps")
        row, workload = latency_row(values, model,
                                    typed_knee if not math.isnan(typed_knee) else None)
        rows.append(row)
        raw = plan.scenarios.iloc[i].to_dict()
        knee = float(row["knee_rps_per_instance"])
        day, curve = day_rows(values, {str(k): v for k, v in raw.items()}, workload,
                              knee if not math.isnan(knee) else 0.0, plan.profiles)
        days.append(day.table)
        curves.append(curve)
        if float(values["instances"]) > most:
            busiest, busiest_day, most = str(values["scenario"]), day, float(values["instances"])
    latency = LatencyUnderLoad(
        table=pd.DataFrame(rows, columns=list(LATENCY_COLUMNS)),
        day=pd.concat(days, ignore_index=True) if days
        else pd.DataFrame(columns=list(DAY_TABLE_COLUMNS)),
        curve=pd.concat(curves, ignore_index=True) if curves
        else pd.DataFrame(columns=list(CURVE_COLUMNS)),
        busiest=busiest, busiest_day=busiest_day, not_simulated=skipped,
    )
    return replace(plan, latency=latency)
