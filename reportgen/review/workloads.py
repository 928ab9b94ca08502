"""How the review sees a plan: the workloads it budgets, what each was planned to carry and cost,
and the one call that re-estimates a plan's inputs.

Everything the review needs to know about the *shape* of a plan lives here, so a change in what a
plan is (workload and role columns, a `counted` flag, a price book, node packing, percentile
targets) is adapted in this module alone:

* rows count when ``counted`` is 1 (the chosen row of its workload);
* a row's workload is its ``workload`` result (its scenario name when the cell is blank); actuals
  match it ignoring case and surrounding spaces, as rows are grouped;
* a workload's cost is the sum of its rows' ``monthly_cost`` (the full monthly cost in the plan's
  billing basis) and its GPUs the sum of ``gpus``;
* GPU-seconds per request at the plan's operating point are GPUs per instance ÷ ``instance_rps``
  (``gpus / instances``, so pipeline parallelism needs no change);
* latency targets are the mean TTFT and TPOT targets (``ttft_slo_ms``, ``tpot_slo_ms``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from reportgen.engine import Tables, estimate
from reportgen.plan import Plan, Provenance
from reportgen.units import CONSTANTS
from reportgen.validate import ValidatedInput

HOURS_PER_MONTH = float(CONSTANTS["HOURS_PER_MONTH"].value)
SECONDS_PER_HOUR = float(CONSTANTS["SECONDS_PER_HOUR"].value)


def replan(checked: ValidatedInput, provenance: Provenance) -> Plan:
    """Plan validated rows exactly as `reportgen build` does (search, choice, estimate), with the
    shipped constants, stamped with ``provenance``'s title, name and date."""
    from reportgen.pipeline import make_plan

    plan = make_plan(checked, provenance.input_name, provenance.title, provenance.generated)
    return replace(plan, provenance=provenance)


def estimate_concrete(scenarios: pd.DataFrame, tables: Tables,
                      constants: Mapping[str, float | str] | None = None) -> pd.DataFrame:
    """The engine's results for validated rows that search nothing (a plan's chosen
    configurations), with the plan's constants."""
    return estimate(scenarios, tables, constants)


def counted(results: pd.DataFrame) -> np.ndarray:
    """True for the rows a plan's totals count."""
    return np.asarray(results["counted"].astype(float).to_numpy() == 1)


def workload_names(plan: Plan) -> list[str]:
    """Each row's workload (the ``workload`` result: its scenario name when left blank)."""
    return [" ".join(str(w).split()) for w in plan.results["workload"]]


@dataclass(frozen=True)
class PlanWorkload:
    """What the plan of record budgeted for one workload (sums and request-weighted means over
    its counted rows)."""

    name: str
    rows: tuple[int, ...]  # positions in plan.results
    scenarios: tuple[str, ...]
    gpus: float
    monthly_cost: float  # USD/month, the plan's billing basis
    avg_qps: float
    peak_qps: float
    prompt_tokens: float  # per request
    output_tokens: float  # per request
    gpu_seconds_per_request: float  # at the plan's operating point, GPU-s
    ttft_ms: float  # predicted mean
    tpot_ms: float
    ttft_target_ms: float | None
    tpot_target_ms: float | None
    model: str
    gpu: str
    tp: float
    engine: str

    @property
    def price_per_gpu_hour(self) -> float:
        """The plan's effective price, USD per GPU-hour: monthly cost ÷ (GPUs × hours/month)."""
        hours = self.gpus * HOURS_PER_MONTH
        return self.monthly_cost / hours if hours > 0 else 0.0

    def cost(self, hours: float) -> float:
        """Planned cost over ``hours`` of calendar time (the monthly cost prorated by hours)."""
        return self.monthly_cost * hours / HOURS_PER_MONTH

    def gpu_hours(self, hours: float) -> float:
        """GPU-hours the plan provisions over ``hours``."""
        return self.gpus * hours

    def requests(self, hours: float) -> float:
        """Requests the plan expects over ``hours`` at its average rate."""
        return self.avg_qps * SECONDS_PER_HOUR * hours


def _target(value: object) -> float | None:
    number = float(value)  # type: ignore[arg-type]
    return None if np.isnan(number) else number


def plan_workloads(plan: Plan) -> dict[str, PlanWorkload]:
    """The counted workloads of a plan, in the plan's row order."""
    results = plan.results.reset_index(drop=True)
    scenarios = plan.scenarios.reset_index(drop=True)
    names = workload_names(plan)
    keep = counted(results)
    grouped: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        if keep[i]:
            grouped.setdefault(name, []).append(i)
    out = {}
    for name, rows in grouped.items():
        r = results.iloc[rows]
        s = scenarios.iloc[rows]
        qps = r["avg_qps"].to_numpy(dtype=float)
        weight = qps / qps.sum()
        per_instance = r["gpus"].to_numpy(dtype=float) / r["instances"].to_numpy(dtype=float)
        g = per_instance / r["instance_rps"].to_numpy(dtype=float)
        first = r.iloc[0]
        out[name] = PlanWorkload(
            name=name, rows=tuple(rows), scenarios=tuple(r["scenario"].astype(str)),
            gpus=float(r["gpus"].sum()), monthly_cost=float(r["monthly_cost"].sum()),
            avg_qps=float(qps.sum()), peak_qps=float(r["peak_qps"].sum()),
            prompt_tokens=float(weight @ r["avg_prompt_tokens"].to_numpy(dtype=float)),
            output_tokens=float(weight @ r["avg_output_tokens"].to_numpy(dtype=float)),
            gpu_seconds_per_request=float(weight @ g),
            ttft_ms=float(weight @ r["ttft_ms"].to_numpy(dtype=float)),
            tpot_ms=float(weight @ r["tpot_ms"].to_numpy(dtype=float)),
            ttft_target_ms=_target(s["ttft_slo_ms"].iloc[0]),
            tpot_target_ms=_target(s["tpot_slo_ms"].iloc[0]),
            model=str(first["model"]), gpu=str(first["gpu"]), tp=float(first["tp"]),
            engine=str(first["engine"]),
        )
    return out


def uncounted(plan: Plan) -> dict[str, str]:
    """Workloads and scenario names in the plan file that its totals do not count, with the
    reason in words (a comparison row, an option another row of its workload beat, no fit)."""
    names = workload_names(plan)
    keep = counted(plan.results)
    counted_names = {n for n, k in zip(names, keep, strict=True) if k}
    reasons = {}
    for i, name in enumerate(names):
        row = plan.results.iloc[i]
        status = str(row["status"]) if "status" in plan.results.columns else ""
        why = {"compare": "a comparison row", "option": f"an option of workload {name!r} "
               "that another row beat", "no fit": f"a row that nothing fits "
               f"({row['bottleneck']})", "no price": "a row whose GPU has no price"
               }.get(status, "not counted")
        scenario = str(row["scenario"])
        if not keep[i] and scenario != name and scenario not in counted_names:
            reasons[scenario] = why
        if not keep[i] and name not in counted_names:
            reasons[name] = why
    return reasons


def workload_key(name: str) -> str:
    """A workload name as rows are grouped by it: spaces trimmed and squeezed, case ignored."""
    return " ".join(name.split()).lower()
