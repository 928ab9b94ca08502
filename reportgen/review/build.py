"""Assemble a review: plan read back, actuals combined, the engine's view of the actual traffic,
variance, latency, autoscaling advice and the re-forecast. Pure: reads its input files, writes
nothing (the pipeline writes the outputs)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from reportgen import __version__
from reportgen.errors import ActualsError, InputError
from reportgen.review.actuals.combine import Actuals, WorkloadActuals, read_actuals
from reportgen.review.autoscale import Advice, advise
from reportgen.review.latency import LatencyRow, latency_rows
from reportgen.review.readback import PlanRecord, read_plan
from reportgen.review.reforecast import Reforecast, reforecast
from reportgen.review.speed import Speed, speed
from reportgen.review.variance import Drivers, Variance, WorkloadVariance, variance
from reportgen.review.workloads import PlanWorkload, plan_workloads, uncounted


@dataclass(frozen=True)
class WorkloadReview:
    """Everything the review says about one workload."""

    name: str
    plan: PlanWorkload
    actual: WorkloadActuals
    speed: Speed
    drivers: Drivers
    variance: WorkloadVariance
    latency: tuple[LatencyRow, ...]
    advice: Advice | None  # None when the workload is not carried into the re-forecast

    @property
    def price_paid(self) -> float:
        """USD per GPU-hour actually paid (billed cost ÷ GPU-hours)."""
        hours = self.actual.values["gpu_hours"]
        return self.actual.values["billed_cost"] / hours if hours > 0 else 0.0


@dataclass(frozen=True)
class Review:
    """A quarter in review."""

    title: str
    generated: dt.date
    version: str
    record: PlanRecord
    actuals: Actuals
    workloads: dict[str, WorkloadReview]
    variance: Variance
    reforecast: Reforecast


def build_review(plan_path: Path, actual_paths: Sequence[Path], title: str = "",
                 generated: dt.date | None = None) -> Review:
    """Read the plan and the actuals and compute the review (raises InputError subclasses)."""
    record = read_plan(plan_path)
    plan = record.plan
    workloads = plan_workloads(plan)
    if not workloads:
        raise ActualsError([f"{plan_path}: the plan counts no workload (every row is a "
                            "comparison or does not fit); there is nothing to review."])
    actuals = read_actuals(actual_paths, workloads, uncounted(plan))
    if plan.provenance.generated > actuals.window[0]:
        record = replace(record, check=replace(record.check, findings=(
            *record.check.findings,
            f"The plan file is dated {plan.provenance.generated}, after the review window "
            f"began ({actuals.window[0]}): check that it is the plan of record, not a later "
            "rebuild.")))
    hours = actuals.hours
    speeds = {n: speed(plan, w, actuals.workloads[n], record.constants)
              for n, w in workloads.items()}
    drivers = {}
    for name, w in workloads.items():
        actual, s = actuals.workloads[name], speeds[name]
        served = actual.values["requests"] > 0
        drivers[name] = Drivers(
            plan_cost=w.cost(hours), plan_gpu_hours=w.gpu_hours(hours),
            plan_requests=w.requests(hours), actual_requests=actual.values["requests"],
            tokens_factor=s.tokens_factor if served else 1.0,
            efficiency_factor=s.efficiency_factor if served else 1.0,
            actual_gpu_hours=actual.values["gpu_hours"], actual_cost=actual.values["billed_cost"],
        )
    v = variance(drivers)
    by_name = {wv.name: wv for wv in v.workloads}
    try:
        forecast = reforecast(plan, workloads, actuals, speeds, record.constants)
    except InputError as err:
        raise ActualsError([f"the re-forecast built from the actuals does not validate: {err}"]
                           ) from None
    reviews = {}
    for name, w in workloads.items():
        actual = actuals.workloads[name]
        paid = (actual.values["billed_cost"] / actual.values["gpu_hours"]
                if actual.values["gpu_hours"] > 0 else w.price_per_gpu_hour)
        row = forecast.first_row(name)
        advice = None
        if row is not None:
            per_replica = float(row["gpus"]) / max(float(row["instances"]), 1.0)
            replicas = actual.values["gpu_hours"] / (hours * per_replica)
            advice = advise(actual, w.tpot_target_ms, row, replicas, per_replica, paid)
        reviews[name] = WorkloadReview(
            name, w, actual, speeds[name], drivers[name], by_name[name],
            tuple(latency_rows(w, actual)), advice)
    title = title or f"{plan.provenance.title}: quarter in review"
    return Review(title, generated or dt.date.today(), __version__, record, actuals, reviews, v,
                  forecast)
