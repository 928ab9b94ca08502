"""The fit of one serving stack's efficiencies on its load-test runs, with the code that fits
the public table (:func:`reportgen.calibration.fit.fit_group`).

The stack's row is keyed ``<gpu>-<compute dtype>-<engine>`` (e.g. ``h100-sxm-fp8-vllm``): the
most specific key the ``efficiency_key`` quantity looks for. The fit starts from the row the
stack uses today (the shipped default) and moves all four efficiencies (MFU in prefill and in
decode, MBU, step overhead) to fit every run's throughput, mean TTFT and mean TPOT. A weak anchor
keeps an efficiency the runs do not exercise (e.g. compute-bound decode when no run reached it)
at the shipped value; :func:`determined` says which ones the runs set.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reportgen.calibration.fit import GROUP_PARAMETERS, SHARED_PARAMETER, fit_group
from reportgen.calibration.scenarios import Bench, predict
from reportgen.calibration.serving import (
    OperatingPoint,
    measured_figures,
    operating_points,
    serving_bench,
)
from reportgen.calibration.stack import Stack
from reportgen.catalog import Catalogs
from reportgen.engine import estimate
from reportgen.loadtest.run import Run
from reportgen.quantities.inputs import compute_precision

PARAMETERS = (*GROUP_PARAMETERS, SHARED_PARAMETER)
ANCHOR = 0.01  # pull toward the shipped row: far below the error of a determined parameter
SENSITIVITY_STEP = 0.05  # an efficiency moved 5 % ...
MIN_EFFECT = 0.001  # ... that moves no prediction by 0.1 % is not determined by the runs
MIN_RUNS_FOR_BAND = 5  # fewer runs: the band of the shipped row is kept


@dataclass(frozen=True)
class StackFit:
    """One stack's calibration: its row, the row it replaces, and every run's figures."""

    key: str
    replaces: str  # the row the stack used before (its shipped default)
    stack: Stack
    fitted: dict[str, float]
    shipped: dict[str, float]
    determined: dict[str, bool]
    band: tuple[float, float]  # p10, p90 of measured ÷ predicted throughput
    band_source: str
    mdape_pct: float  # median absolute error over every fitted figure, %
    shipped_mdape_pct: float  # the same with the shipped row
    n_runs: int
    n_measurements: int
    runs: pd.DataFrame  # one row per run: RUN_TABLE_COLUMNS


RUN_TABLE_COLUMNS = (
    "key", "file", "tool", "tool_version", "engine_version", "run", "model", "date",
    "date_source", "load", "completed",
    "failed", "mean_prompt_tokens", "mean_output_tokens", "requests_in_flight",
    "batch_per_replica", "queued", "measured_tokens_per_s_per_gpu",
    "predicted_tokens_per_s_per_gpu", "shipped_tokens_per_s_per_gpu", "measured_ttft_ms",
    "predicted_ttft_ms", "shipped_ttft_ms", "measured_ttft_p99_ms", "measured_tpot_ms",
    "predicted_tpot_ms", "shipped_tpot_ms", "measured_tpot_p99_ms", "tpot_source",
    "concurrency_source",
)  # fmt: skip


def at(frame: pd.DataFrame, row: str, column: str) -> float:
    """One number of a table."""
    value: Any = frame.at[row, column]
    return float(value)


def stack_key(stack: Stack, catalogs: Catalogs) -> tuple[str, str]:
    """The stack's own row key and the key it uses without one (engine-specific row if the
    table has one, else the family row)."""
    gpu = catalogs.gpus.loc[stack.gpu]
    peaks = [np.array([at(catalogs.gpus, stack.gpu, f)]) for f in ("fp8_tflops", "fp4_tflops")]
    weights = np.array([stack.weight_dtype], dtype=object)
    compute = str(compute_precision(weights, weights, *peaks)[0])
    own = f"{stack.gpu}-{compute}-{stack.engine}".lower()
    family = f"{gpu['family']}-{compute}".lower()
    return own, family


def _default_key(family_key: str, engine: str, table: pd.DataFrame) -> str:
    engine_key = f"{family_key}-{engine}"
    return engine_key if engine_key in table.index else family_key


def _with_row(table: pd.DataFrame, key: str, source: str, values: dict[str, float]
              ) -> pd.DataFrame:
    out = table.copy()
    out.loc[key] = out.loc[source]
    for name, value in values.items():
        out.loc[key, name] = value
    return out


def _predict_with(bench: Bench, key: str, values: dict[str, float]) -> np.ndarray:
    table = bench.tables.efficiency.copy()
    for name, value in values.items():
        table.loc[key, name] = value
    return predict(bench.with_efficiency(table))


def determined(bench: Bench, key: str, values: dict[str, float]) -> dict[str, bool]:
    """Whether moving each efficiency by SENSITIVITY_STEP moves any prediction by MIN_EFFECT."""
    base = _predict_with(bench, key, values)
    out = {}
    for name in PARAMETERS:
        moved = _predict_with(bench, key, {**values, name: values[name] * (1 + SENSITIVITY_STEP)})
        out[name] = bool(np.nanmax(np.abs(np.log(moved / base))) >= MIN_EFFECT)
    return out


def _mdape(predicted: np.ndarray, measured: np.ndarray) -> float:
    return float(np.median(np.abs(predicted / measured - 1)) * 100)


def _figures_by_run(bench: Bench, predicted: np.ndarray, n_runs: int) -> dict[str, np.ndarray]:
    out = {kind: np.full(n_runs, math.nan) for kind in
           ("serving_throughput", "serving_ttft", "serving_tpot")}
    m = bench.measurements
    for kind, run, value in zip(m["kind"], m["note"].astype(int), predicted, strict=True):
        out[str(kind)][run] = value
    return out


def _queued_ttft(bench: Bench, points: Sequence[OperatingPoint], key: str,
                 values: dict[str, float]) -> np.ndarray:
    """The engine's TTFT at every run's batch, including runs whose TTFT is not fitted."""
    first = bench.measurements.drop_duplicates("note")
    rows = first.index.to_numpy()
    table = bench.tables.efficiency.copy()
    for name, value in values.items():
        table.loc[key, name] = value
    results = estimate(bench.checked.scenarios.iloc[rows], bench.with_efficiency(table).tables,
                       None, {"batch": np.asarray([p.batch for p in points], dtype=float)})
    return results["ttft_ms"].to_numpy(dtype=float)


def _run_table(key: str, runs: Sequence[Run], stacks: Sequence[Stack],
               points: Sequence[OperatingPoint], fitted: dict[str, np.ndarray],
               shipped: dict[str, np.ndarray]) -> pd.DataFrame:
    records = []
    for i, (run, stack, point) in enumerate(zip(runs, stacks, points, strict=True)):
        measured = measured_figures(run, stack)
        records.append({
            "key": key, "file": run.source, "tool": run.tool, "tool_version": run.tool_version,
            "engine_version": stack.engine_version, "run": run.label, "model": stack.model,
            "date": stack.date, "date_source": stack.date_source, "load": run.load,
            "completed": run.completed, "failed": run.failed,
            "mean_prompt_tokens": run.mean_input_tokens,
            "mean_output_tokens": run.mean_output_tokens,
            "requests_in_flight": run.concurrency, "batch_per_replica": point.batch,
            "queued": point.queued,
            "measured_tokens_per_s_per_gpu": measured["serving_throughput"],
            "predicted_tokens_per_s_per_gpu": fitted["serving_throughput"][i],
            "shipped_tokens_per_s_per_gpu": shipped["serving_throughput"][i],
            "measured_ttft_ms": run.ttft_mean_ms, "predicted_ttft_ms": fitted["serving_ttft"][i],
            "shipped_ttft_ms": shipped["serving_ttft"][i], "measured_ttft_p99_ms": run.ttft_p99_ms,
            "measured_tpot_ms": run.tpot_mean_ms, "predicted_tpot_ms": fitted["serving_tpot"][i],
            "shipped_tpot_ms": shipped["serving_tpot"][i], "measured_tpot_p99_ms": run.tpot_p99_ms,
            "tpot_source": run.tpot_source, "concurrency_source": run.concurrency_source,
        })
    return pd.DataFrame(records, columns=list(RUN_TABLE_COLUMNS))


def fit_stack(runs: Sequence[Run], stacks: Sequence[Stack], catalogs: Catalogs,
              efficiency: pd.DataFrame) -> StackFit:
    """Calibrate one stack (every run of ``runs`` has the same key) on ``efficiency``."""
    key, family_key = stack_key(stacks[0], catalogs)
    replaces = _default_key(family_key, stacks[0].engine, efficiency)
    shipped = {n: at(efficiency, replaces, n) for n in PARAMETERS}
    table = _with_row(efficiency, key, replaces, shipped)
    points = operating_points(runs, stacks, catalogs, table)
    bench = serving_bench(runs, stacks, points, catalogs, table)
    group = fit_group(bench, key, names=PARAMETERS, anchor=ANCHOR)
    found = determined(bench, key, group.params)
    fitted = {n: group.params[n] if found[n] else shipped[n] for n in PARAMETERS}
    measured = bench.measurements["measured"].to_numpy(dtype=float)
    predicted = _predict_with(bench, key, fitted)
    before = _predict_with(bench, key, shipped)
    by_run = _figures_by_run(bench, predicted, len(runs))
    by_run_shipped = _figures_by_run(bench, before, len(runs))
    by_run["serving_ttft"] = _queued_ttft(bench, points, key, fitted)
    by_run_shipped["serving_ttft"] = _queued_ttft(bench, points, key, shipped)
    frame = _run_table(key, runs, stacks, points, by_run, by_run_shipped)
    ratio = (frame["measured_tokens_per_s_per_gpu"] / frame["predicted_tokens_per_s_per_gpu"]
             ).to_numpy(dtype=float)
    if len(runs) >= MIN_RUNS_FOR_BAND:
        band = (round(float(np.percentile(ratio, 10)), 2),
                round(float(np.percentile(ratio, 90)), 2))
        band_source = (f"10th–90th percentile of measured ÷ predicted throughput over the "
                       f"{len(runs)} runs fitted")
    else:
        band = (at(efficiency, replaces, "throughput_ratio_p10"),
                at(efficiency, replaces, "throughput_ratio_p90"))
        band_source = (f"kept from {replaces}: {len(runs)} run{'s' if len(runs) != 1 else ''} "
                       f"(at least {MIN_RUNS_FOR_BAND} give a band of their own)")
    return StackFit(
        key=key, replaces=replaces, stack=stacks[0], fitted=fitted, shipped=shipped,
        determined=found, band=band, band_source=band_source,
        mdape_pct=_mdape(predicted, measured), shipped_mdape_pct=_mdape(before, measured),
        n_runs=len(runs), n_measurements=len(measured), runs=frame,
    )


def fit_stacks(runs: Sequence[Run], stacks: Sequence[Stack], catalogs: Catalogs,
               efficiency: pd.DataFrame) -> list[StackFit]:
    """One calibration per stack key among the runs, in order of first appearance."""
    keys = [stack_key(s, catalogs)[0] for s in stacks]
    fits = []
    for key in dict.fromkeys(keys):
        chosen = [i for i, k in enumerate(keys) if k == key]
        fits.append(fit_stack([runs[i] for i in chosen], [stacks[i] for i in chosen], catalogs,
                              efficiency))
    return fits
