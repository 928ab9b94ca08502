"""Load-test runs as measurements the shared fit code understands (calibration/fit.py), and the
engine's prediction of each run.

Each run gives up to three measurements at its operating point, all at the same pinned batch:
output tokens/s per GPU, mean TTFT and mean TPOT (kinds ``serving_throughput``,
``serving_ttft``, ``serving_tpot``). The batch is the run's mean number of requests in flight
per replica (what the plan divides its concurrency by), capped by the scheduler's batch cap
(``max_batch``, when given) and by the KV cache (the engine's ``batch_max_kv``). A run above the
cap was queueing: its TTFT includes waiting that the plan's TTFT does not model, so it is
reported but not fitted. A run with less than one request in flight on average (one request at
a time, with pauses between them) keeps that fraction: the server idled part of the time, and
Little's law still holds for its throughput.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen.calibration.measurements import MEASUREMENT_COLUMNS, SERVING_KINDS, UNITS
from reportgen.calibration.scenarios import Bench, build_bench
from reportgen.calibration.stack import Stack
from reportgen.catalog import Catalogs
from reportgen.engine import estimate
from reportgen.errors import ScenarioValidationError
from reportgen.loadtest.files import ResultFileError
from reportgen.loadtest.run import Run


@dataclass(frozen=True)
class OperatingPoint:
    """Where the engine evaluates a run: the batch per replica and why."""

    batch: float
    queued: str  # "" when the run fitted in one batch; else why its TTFT is not fitted


def _base_rows(runs: Sequence[Run], stacks: Sequence[Stack], batch: Sequence[float]
               ) -> pd.DataFrame:
    """One throughput measurement per run (its configuration; measured later)."""
    records = []
    for i, (run, stack, b) in enumerate(zip(runs, stacks, batch, strict=True)):
        records.append({
            "row_id": i, "kind": "serving_throughput", "source": run.source,
            "framework": stack.engine, "framework_version": stack.engine_version,
            "model": stack.model, "gpu": stack.gpu, "tp": float(stack.tp), "pp": 1.0,
            "weight_dtype": stack.weight_dtype, "kv_dtype": stack.kv_dtype,
            "input_tokens": round(run.mean_input_tokens, 6),
            "output_tokens": round(run.mean_output_tokens, 6),
            "batch": b, "max_batch": stack.max_batch, "measured": math.nan,
            "unit": UNITS["serving_throughput"], "note": run.label,
        })
    return pd.DataFrame(records, columns=list(MEASUREMENT_COLUMNS))


def _bench(rows: pd.DataFrame, runs: Sequence[Run], catalogs: Catalogs,
           efficiency: pd.DataFrame) -> Bench:
    try:
        return build_bench(rows, catalogs, efficiency)
    except ScenarioValidationError as err:
        problems = []
        for issue in err.issues:
            run = runs[issue.row - 2] if issue.row is not None and issue.row >= 2 else None
            where = f"{run.source} ({run.label})" if run else "the load test"
            problems.append(f"{where}: {issue.found}; expected {issue.expected}. Check the stack "
                            "(model, tp, precisions) given for it.")
        raise ResultFileError(problems) from None


def operating_points(runs: Sequence[Run], stacks: Sequence[Stack], catalogs: Catalogs,
                     efficiency: pd.DataFrame) -> list[OperatingPoint]:
    """The batch each run is evaluated at."""
    in_flight = [run.concurrency / stack.instances for run, stack in zip(runs, stacks,
                                                                          strict=True)]
    bench = _bench(_base_rows(runs, stacks, in_flight), runs, catalogs, efficiency)
    results = estimate(bench.checked.scenarios, bench.tables, None,
                       {"batch": np.asarray(in_flight, dtype=float)})
    kv_limit = results["batch_max_kv"].to_numpy(dtype=float)
    points = []
    problems = []
    for run, stack, flight, kv in zip(runs, stacks, in_flight, kv_limit, strict=True):
        if kv < 1:
            problems.append(f"{run.source} ({run.label}): {stack.model} does not fit "
                            f"{stack.tp}×{stack.gpu} at {stack.weight_dtype} weights with "
                            "room for one sequence's KV cache, yet it was served; expected the "
                            "stack the load test ran on. Check --tp, --gpu and --weight-dtype.")
            continue
        cap, why = kv, f"the KV cache holds {math.floor(kv):,} sequences"
        if math.isfinite(stack.max_batch) and stack.max_batch < kv:
            cap, why = stack.max_batch, f"max_batch is {stack.max_batch:,.0f}"
        if round(flight, 6) > cap:  # 32.00000000000012 in flight (Little's law) is at a cap of 32
            points.append(OperatingPoint(cap, f"{flight:,.1f} requests in flight per replica "
                                         f"but {why}: requests queued, TTFT not fitted"))
        else:
            points.append(OperatingPoint(flight, ""))
    if problems:
        raise ResultFileError(problems)
    return points


def measured_figures(run: Run, stack: Stack) -> dict[str, float]:
    """A run's figures in the measurement kinds' units."""
    return {
        "serving_throughput": run.output_tokens_per_s / (stack.instances * stack.tp),
        "serving_ttft": run.ttft_mean_ms,
        "serving_tpot": run.tpot_mean_ms,
    }


def serving_bench(runs: Sequence[Run], stacks: Sequence[Stack], points: Sequence[OperatingPoint],
                  catalogs: Catalogs, efficiency: pd.DataFrame) -> Bench:
    """The measurements of the runs (three per run, two for a queued run) and their scenarios;
    ``note`` holds the run's index in ``runs``."""
    base = _base_rows(runs, stacks, [p.batch for p in points])
    records: list[dict[Hashable, object]] = []
    for i, (run, stack, point) in enumerate(zip(runs, stacks, points, strict=True)):
        figures = measured_figures(run, stack)
        for kind in SERVING_KINDS:
            if kind == "serving_ttft" and point.queued:
                continue
            row = base.iloc[i].to_dict()
            row.update(kind=kind, measured=figures[kind], unit=UNITS[kind], note=str(i),
                       row_id=len(records))
            records.append(row)
    rows = pd.DataFrame(records, columns=list(MEASUREMENT_COLUMNS))
    return _bench(rows, [runs[int(n)] for n in rows["note"]], catalogs, efficiency)
