"""What the engine says about the traffic that actually ran, per workload.

Three engine evaluations, never a second model:

* GPU-seconds per request at the plan's operating point with the *measured* prompt and output
  lengths, on the plan's stack (the tokens-per-request effect) and on the stack that actually ran
  (model, GPU, TP, engine, when the actuals name another);
* the time per output token the engine predicts at the batch the fleet actually ran
  (``batch`` pinned to the measured sequences per replica), against the measured TPOT: their
  ratio is the achieved efficiency (1 = as fast as the engine says; 0.8 = each token took 25 %
  longer), so GPU time per request at the achieved speed is the engine's ÷ that ratio;
* the calibration factor: the one multiplier on the row's MFU (prefill, decode) and MBU with
  which the engine's TPOT at that batch equals the measured one (found on a grid of 257
  factors evaluated in one vectorised pass, then interpolated), for the re-forecast.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from reportgen.catalog import Catalogs
from reportgen.errors import InputError
from reportgen.plan import Plan
from reportgen.readers import RawTable
from reportgen.review.actuals.combine import WorkloadActuals
from reportgen.review.workloads import PlanWorkload, estimate_concrete
from reportgen.stamp import input_rows_json
from reportgen.validate import validate

EFFICIENCY_COLUMNS = ("mfu_prefill", "mfu_decode", "mbu")
FACTORS = np.geomspace(0.05, 4.0, 257)  # calibration factors tried at once


@dataclass(frozen=True)
class Speed:
    """Engine figures for the traffic that ran."""

    gpu_s_per_request_plan: float  # recorded, at the plan's lengths and stack
    gpu_s_per_request_tokens: float  # engine, measured lengths, plan's stack
    gpu_s_per_request_stack: float  # engine, measured lengths, stack that ran
    batch_observed: float  # sequences per replica (NaN when not measured)
    tpot_engine_ms: float  # engine at that batch, stack that ran
    tpot_measured_ms: float
    efficiency: float  # tpot_engine / tpot_measured; 1.0 when not measured
    measured: bool
    calibration: float  # multiplier on MFU/MBU matching the measured TPOT; 1.0 if not measured
    calibration_capped: bool  # the measured TPOT is faster than any efficiency ≤ 1 gives
    notes: tuple[str, ...]

    @property
    def tokens_factor(self) -> float:
        """GPU time per request at the measured lengths ÷ the plan's (plan's stack)."""
        return _ratio(self.gpu_s_per_request_tokens, self.gpu_s_per_request_plan)

    @property
    def efficiency_factor(self) -> float:
        """GPU time per request at the achieved speed on the stack that ran ÷ the engine's on
        the plan's stack (both at the measured lengths)."""
        stack = _ratio(self.gpu_s_per_request_stack, self.gpu_s_per_request_tokens)
        return stack / self.efficiency


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 and math.isfinite(a) and a > 0 else 1.0


def base_rows(plan: Plan, workload: PlanWorkload) -> list[dict[str, object]]:
    """The workload's scenario rows as they were validated (non-blank cells)."""
    rows = input_rows_json(plan.scenarios.iloc[list(workload.rows)])
    return [json.loads(r) for r in rows]


def _lengths(row: dict[str, object], prompt: float, output: float) -> dict[str, object]:
    changed = dict(row)
    changed["avg_prompt_tokens"], changed["avg_output_tokens"] = prompt, output
    for name, value in (("max_prompt_tokens", prompt), ("max_output_tokens", output)):
        if name in changed and float(changed[name]) < value:  # type: ignore[arg-type]
            changed[name] = value
    return changed


def _stack(row: dict[str, object], stack: Mapping[str, str]) -> dict[str, object]:
    changed = dict(row)
    for name, value in stack.items():
        if value:
            changed[name] = value
    return changed


def evaluate(plan: Plan, rows: list[dict[str, object]],
             constants: Mapping[str, float | str], batch: np.ndarray | None = None
             ) -> pd.DataFrame:
    """Validate raw rows against the plan's own tables and estimate them (``batch`` pinned)."""
    rows = [{**row, "scenario": f"{row['scenario']}#{i}"} for i, row in enumerate(rows)]
    header = list(dict.fromkeys(k for row in rows for k in row))
    body = [(n, [row.get(k) for k in header]) for n, row in enumerate(rows, start=2)]
    checked = validate(RawTable("review", header, body, sha256=""),
                       catalogs=Catalogs(plan.tables.gpus, plan.tables.models))
    checked = replace(checked, tables=replace(checked.tables, efficiency=plan.tables.efficiency))
    if batch is None:
        return estimate_concrete(checked.scenarios, checked.tables, constants)
    from reportgen.engine import estimate

    return estimate(checked.scenarios, checked.tables, constants, overrides={"batch": batch})


def gpu_seconds_per_request(results: pd.DataFrame) -> np.ndarray:
    """GPUs per instance ÷ requests per second one instance carries, per row (NaN where the
    row does not fit)."""
    instances = results["instances"].to_numpy(dtype=float)
    per_instance = np.where(instances > 0,
                            results["gpus"].to_numpy(dtype=float) / np.maximum(instances, 1),
                            results["tp"].to_numpy(dtype=float))
    rps = results["instance_rps"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((rps > 0) & np.isfinite(rps), per_instance / rps, np.nan)


def speed(plan: Plan, workload: PlanWorkload, actual: WorkloadActuals,
          constants: Mapping[str, float | str]) -> Speed:
    """The engine's view of one workload's actual traffic (see the module docstring)."""
    notes: list[str] = []
    row = base_rows(plan, workload)[0]
    if len(workload.rows) > 1:
        notes.append(f"{len(workload.rows)} plan rows serve this workload; the engine figures "
                     f"use the first ({workload.scenarios[0]}).")
    prompt = actual.per_request("prompt_tokens")
    output = actual.per_request("output_tokens")
    stack = {k: v for k, v in actual.stack.items() if v}
    g_tokens = g_stack = workload.gpu_seconds_per_request
    ran = _stack(row, stack)
    if actual.values["requests"] > 0 and prompt >= 1 and output >= 1:
        try:
            results = evaluate(plan, [_lengths(row, prompt, output),
                                      _lengths(ran, prompt, output)], constants)
            g = gpu_seconds_per_request(results)
            g_tokens, g_stack = float(g[0]), float(g[1])
            if not math.isfinite(g_tokens):
                notes.append(f"At the measured lengths the plan's configuration does not fit "
                             f"({results['bottleneck'].iloc[0]}); the tokens effect is not "
                             "separated.")
        except InputError as err:
            notes.append(f"The stack that ran cannot be estimated ({err}); the plan's is used.")
            ran = row
    batch = actual.values["running_mean"]
    measured_tpot = actual.values["tpot_mean_ms"]
    if math.isnan(measured_tpot) and not math.isnan(actual.values["tpot_p50_ms"]):
        measured_tpot = actual.values["tpot_p50_ms"]
        notes.append("Efficiency uses the median TPOT (no mean was given).")
    if math.isnan(batch) or math.isnan(measured_tpot) or measured_tpot <= 0:
        notes.append("Efficiency not measured: it needs the mean TPOT and the sequences running "
                     "per replica (vllm:num_requests_running or the template's running_mean); "
                     "the achieved speed is then counted in idle capacity.")
        return Speed(workload.gpu_seconds_per_request, g_tokens, g_stack, float("nan"),
                     float("nan"), float("nan"), 1.0, False, 1.0, False, tuple(notes))
    if batch < 1:
        notes.append(f"Fewer than one sequence ran per replica on average ({batch:.2f}); the "
                     "engine is evaluated at batch 1.")
        batch = 1.0
    probe = _lengths(ran, prompt, output) if actual.values["requests"] > 0 else ran
    factor, capped, engine_tpot = _calibrate(plan, probe, constants, batch, measured_tpot)
    if capped:
        notes.append("The measured TPOT is faster than the engine gives at full efficiency; the "
                     "calibration is capped.")
    return Speed(workload.gpu_seconds_per_request, g_tokens, g_stack, batch, engine_tpot,
                 measured_tpot, engine_tpot / measured_tpot, True, factor, capped, tuple(notes))


def _calibrate(plan: Plan, row: dict[str, object], constants: Mapping[str, float | str],
               batch: float, measured_ms: float) -> tuple[float, bool, float]:
    """(factor, capped, engine TPOT at factor 1) for one row at ``batch``."""
    base = evaluate(plan, [dict(row)], constants, batch=np.array([batch]))
    resolved = {name: float(base[name].iloc[0]) for name in EFFICIENCY_COLUMNS}
    top = 1.0 / max(resolved.values())
    factors = FACTORS[top >= FACTORS]
    factors = np.append(factors, top)
    rows = []
    for k in factors:
        changed = dict(row)
        changed.update({name: min(1.0, value * k) for name, value in resolved.items()})
        rows.append(changed)
    tpot = evaluate(plan, rows, constants, batch=np.full(len(rows), batch))[
        "tpot_ms"].to_numpy(dtype=float)
    engine_ms = float(base["tpot_ms"].iloc[0])
    if measured_ms <= tpot[-1]:
        return float(factors[-1]), True, engine_ms
    if measured_ms >= tpot[0]:
        return float(factors[0]), False, engine_ms
    # tpot falls as the factor rises: interpolate log(factor) against log(tpot)
    order = np.argsort(tpot)
    k = np.exp(np.interp(np.log(measured_ms), np.log(tpot[order]), np.log(factors[order])))
    return float(k), False, engine_ms
