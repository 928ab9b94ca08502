"""Calibration of the default efficiencies against published measurements.

The shipped measurements (``data/measurements_public.csv``) are the usable rows of the project's
public reference table, normalised: one row per published figure with the configuration the
engine needs (model, GPU, tensor parallelism, weight and KV precision, input and output length,
batch) and the figure in one unit per kind:

* ``offline_throughput``  TensorRT-LLM v0.13 ``trtllm-bench throughput`` (in-flight batching,
  every request queued at once, no latency target): output tokens/s per GPU.
* ``static_throughput``   TensorRT-LLM performance.md (v0.5/v0.6.1), static batching at a stated
  batch size: output tokens/s per GPU. Never fitted: a check on another engine version.
* ``ttft_batch1``         the same document's first-token latency at batch 1 with one output
  token: ms, compared with the engine's ``prefill_ms``.
* ``decode_batch1``       gpt-fast single-stream decode: tokens/s, compared with
  ``1000 / decode_step_ms`` at batch 1.

This module turns each row into a scenario, predicts the same figure with
:func:`reportgen.engine.estimate`, scores the predictions, fits the efficiency table per GPU
family and compute precision, cross-validates the fit, derives the error band and runs the physics
ablations. It prints nothing: ``benchmarks/accuracy.py`` is the printing front end.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from reportgen.catalog import (
    CatalogLookupError,
    Catalogs,
    load_catalogs,
    resolve_gpu,
    resolve_model,
)
from reportgen.efficiency import EFFICIENCY_FILE
from reportgen.engine import Tables, estimate
from reportgen.readers import RawTable
from reportgen.validate import ValidatedInput, validate

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Constants = Mapping[str, float | str]
Pin = Callable[[pd.DataFrame], Mapping[str, Any]]

MEASUREMENTS_FILE = Path(__file__).parent / "data" / "measurements_public.csv"

KINDS = ("offline_throughput", "static_throughput", "ttft_batch1", "decode_batch1")
THROUGHPUT_KINDS = ("offline_throughput", "static_throughput")
UNITS = {
    "offline_throughput": "output tokens/s/GPU",
    "static_throughput": "output tokens/s/GPU",
    "ttft_batch1": "ms",
    "decode_batch1": "tokens/s",
}
MEASUREMENT_COLUMNS = (
    "row_id", "kind", "source", "framework", "framework_version", "model", "gpu", "tp",
    "weight_dtype", "kv_dtype", "input_tokens", "output_tokens", "batch", "max_batch",
    "measured", "unit", "note",
)  # fmt: skip

# TensorRT-LLM v0.13 trtllm-bench (perf-overview.md, the throughput run's printout): "Max Runtime
# Batch Size: 4096", "Max Runtime Tokens: 8192", scheduler "Guaranteed No Evict" (each sequence's
# KV cache reserved for input + output, as memory.py reserves it), free-memory fraction 0.90
# (trtllm-bench default, = TRTLLM_FREE_GPU_MEMORY_FRACTION).
TRTLLM_BENCH_MAX_BATCH = 4096
# Non-KV memory per GPU of those runs: engine activations for 8,192 tokens per step, the logits
# buffer of up to 4,096 sequences (4,096 × vocabulary × 4 bytes: 0.5-2.1 GB) and the CUDA
# context; the reportgen default (2 GiB) assumes vLLM's 256-sequence cap. Chosen from the sweep
# 2, 3, 4, 5, 6 GiB printed by the benchmark (4 fits best).
BENCH_CONSTANTS: dict[str, float | str] = {"ACTIVATION_RESERVE_GIB": 4.0}
# gpt-fast generate.py default --max_new_tokens (the README's batch-1 figures).
GPT_FAST_OUTPUT_TOKENS = 200

# What the fit may move, and within which bounds.
GROUP_PARAMETERS = ("mfu_prefill", "mfu_decode", "mbu")  # per GPU family × compute precision
SHARED_PARAMETER = "step_overhead_ms"  # one value for every row: scheduler and launch overhead
BOUNDS: dict[str, tuple[float, float]] = {
    "mfu_prefill": (0.05, 0.8),
    "mfu_decode": (0.05, 0.8),
    "mbu": (0.2, 0.9),
    "step_overhead_ms": (0.1, 10.0),
}
START = {"mfu_prefill": 0.5, "mfu_decode": 0.4, "mbu": 0.7}  # where every fit starts
FIT_KINDS = ("offline_throughput", "ttft_batch1", "decode_batch1")
BATCH1_KINDS = ("ttft_batch1", "decode_batch1")
# gpt-fast's weight-only int8/int4 rows are scored but not fitted: the engine has no model of
# the dequantization cost (it treats them as bf16 compute with fewer weight bytes).
WEIGHT_ONLY = ("int8", "int4")
BATCH1_WEIGHT = 0.25  # total weight of each batch-1 kind relative to the throughput rows
WITHIN_PCT = 25.0  # "within ±25 %"
TARGETS_PCT = {"offline_throughput": 15.0, "ttft_batch1": 20.0, "decode_batch1": 20.0}
GROUP_TARGET_PCT = 30.0  # no GPU × precision group of offline rows worse than this
UNCALIBRATED_BAND_WIDENING = 0.15  # prior band: widest calibrated band, 15 % wider each side


# --- the measurements ---------------------------------------------------------------------------


def _dtype(label: object) -> str:
    text = str(label).lower()
    for dtype in ("int4", "int8", "fp8", "bf16"):
        if dtype in text:
            return dtype
    return "fp16"


def _number(value: object) -> float:
    text = str(value).split("|")[0].replace(",", "").strip()
    try:
        return float(text.split()[0]) if text else math.nan
    except ValueError:
        return math.nan


_VERBOSE_SOURCE = re.compile(
    r', version stating "All data in the table below was generated using version ([0-9.]+)" '
    r"\(index file id [0-9]+; commit not resolved by index\)"
)


def _normalise_row(ref: Mapping[Hashable, Any], catalogs: Catalogs) -> dict[str, object] | str:
    family = str(ref["source_family"])
    scenario = str(ref["scenario"])
    try:
        gpu = resolve_gpu(catalogs, str(ref["gpu"]))
    except CatalogLookupError:
        return f"GPU {ref['gpu']!r} is not in the catalog"
    try:
        model = resolve_model(catalogs, str(ref["model"]))
    except CatalogLookupError:
        return f"model {ref['model']!r} is not in the catalog"
    weight = _dtype(ref["weight_precision"])
    kv_label = "" if pd.isna(ref["kv_cache_precision"]) else str(ref["kv_cache_precision"])
    if weight in WEIGHT_ONLY:
        kv = "bf16"  # gpt-fast quantizes the weights only
    elif "fp8" in kv_label.lower():
        kv = "fp8"
    else:
        kv = "fp16"
    record: dict[str, object] = {
        "row_id": int(ref["row_id"]),
        "source": _VERBOSE_SOURCE.sub(r" (tables of version \1)", str(ref["source"])),
        "framework": str(ref["framework"]),
        "framework_version": "" if pd.isna(ref["framework_version"])
        else str(ref["framework_version"]),
        "model": model, "gpu": gpu, "tp": _number(ref["tensor_parallel"]),
        "weight_dtype": weight, "kv_dtype": kv,
        "input_tokens": _number(ref["input_len_tokens"]),
        "output_tokens": _number(ref["output_len_tokens"]),
        "batch": math.nan, "max_batch": math.nan, "note": "",
    }  # fmt: skip
    if family.startswith("TensorRT-LLM perf-overview") and scenario.startswith("offline"):
        record.update(
            kind="offline_throughput", measured=_number(ref["derived_output_tok_s_per_gpu"]),
            max_batch=float(TRTLLM_BENCH_MAX_BATCH),
            note="fp8 KV cache per the doc" if kv == "fp8" else "KV precision not stated: fp16",
        )
    elif family.startswith("TensorRT-LLM performance.md") and "first-token" in scenario:
        record.update(kind="ttft_batch1", measured=_number(ref["ttft_mean_ms"]), batch=1.0,
                      output_tokens=1.0, note="TTFT measured with a single output token")
    elif family.startswith("TensorRT-LLM performance.md"):
        per_gpu = _number(ref["output_tok_s_per_gpu"])
        if math.isnan(per_gpu):
            return "static batching at TP > 1: per-GPU vs total throughput ambiguous in the source"
        record.update(kind="static_throughput", measured=per_gpu,
                      batch=_number(ref["batch_size_or_concurrency"]))
    elif family.startswith("gpt-fast"):
        record.update(
            kind="decode_batch1", measured=_number(ref["value_as_published"]), batch=1.0,
            output_tokens=float(GPT_FAST_OUTPUT_TOKENS),
            note=f"A100 power-limited to 330 W; output length = gpt-fast default "
            f"{GPT_FAST_OUTPUT_TOKENS}",
        )
    else:
        return f"source family {family!r} is not modelled"
    record["unit"] = UNITS[str(record["kind"])]
    return record


def normalise_reference(reference: pd.DataFrame, catalogs: Catalogs | None = None
                        ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The usable rows of the reference table ``measured_public.csv``, normalised to
    :data:`MEASUREMENT_COLUMNS`, and the rows left out with the reason."""
    catalogs = catalogs or load_catalogs()
    kept: list[dict[str, object]] = []
    left_out: list[dict[str, object]] = []
    for ref in reference.to_dict(orient="records"):
        record = _normalise_row(ref, catalogs)
        if isinstance(record, str):
            left_out.append({"row_id": int(ref["row_id"]), "reason": record})
        else:
            kept.append(record)
    return (pd.DataFrame(kept, columns=list(MEASUREMENT_COLUMNS)),
            pd.DataFrame(left_out, columns=["row_id", "reason"]))


def load_measurements(path: Path = MEASUREMENTS_FILE) -> pd.DataFrame:
    """Normalised measurements: the shipped file by default; a file in the reference table's
    format (``measured_public.csv``) is normalised on the fly."""
    frame = pd.read_csv(path, dtype={"framework_version": str})
    if "source_family" in frame.columns:
        return normalise_reference(frame)[0]
    missing = [c for c in MEASUREMENT_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{path.name}: missing columns {missing}")
    for column in ("note", "framework_version"):
        frame[column] = frame[column].fillna("")
    return frame[list(MEASUREMENT_COLUMNS)].reset_index(drop=True)


def write_measurements(measurements: pd.DataFrame, path: Path = MEASUREMENTS_FILE) -> None:
    """Write normalised measurements as the shipped CSV."""
    measurements[list(MEASUREMENT_COLUMNS)].to_csv(
        path, index=False, float_format="%.10g", lineterminator="\n"
    )


# --- scenarios and predictions ------------------------------------------------------------------


@dataclass(frozen=True)
class Bench:
    """Measurements and the validated scenarios that model them (row for row)."""

    measurements: pd.DataFrame
    checked: ValidatedInput

    @property
    def tables(self) -> Tables:
        """The catalogs and efficiency table the predictions use."""
        return self.checked.tables

    def _with(self, **changes: Any) -> Bench:
        tables = dataclasses.replace(self.checked.tables, **changes)
        return dataclasses.replace(self, checked=dataclasses.replace(self.checked, tables=tables))

    def with_efficiency(self, efficiency: pd.DataFrame) -> Bench:
        """The same bench predicted with another efficiency table."""
        return self._with(efficiency=efficiency)

    def with_gpus(self, gpus: pd.DataFrame) -> Bench:
        """The same bench predicted with another GPU catalog."""
        return self._with(gpus=gpus)

    def with_engine(self, engine: str) -> Bench:
        """The same bench with every scenario under another engine's KV-budget definition."""
        scenarios = self.checked.scenarios.assign(engine=engine)
        return dataclasses.replace(
            self, checked=dataclasses.replace(self.checked, scenarios=scenarios)
        )

    def subset(self, mask: BoolArray) -> Bench:
        """The rows where ``mask`` holds."""
        keep = np.flatnonzero(mask)
        scenarios = self.checked.scenarios.iloc[keep].reset_index(drop=True)
        checked = dataclasses.replace(self.checked, scenarios=scenarios)
        return Bench(self.measurements.iloc[keep].reset_index(drop=True), checked)


_SCENARIO_HEADER = [
    "scenario", "model", "gpu", "peak_qps", "avg_prompt_tokens", "avg_output_tokens", "tp",
    "weight_dtype", "kv_dtype", "max_batch", "engine",
]  # fmt: skip


def _cell(value: object) -> object:
    return "" if isinstance(value, float) and math.isnan(value) else value


def build_bench(measurements: pd.DataFrame, catalogs: Catalogs | None = None,
                efficiency: pd.DataFrame | None = None) -> Bench:
    """A validated scenario per measurement: the benchmark's model, GPU, TP, precisions, lengths
    and batch cap; TensorRT-LLM's KV budget for TensorRT-LLM rows; no latency target.

    Some runs went past the catalog's context window (GPT-J at 128 + 4096 tokens, Llama-2 at
    5000 + 500): the catalog's ``max_context`` is raised to what was run.
    """
    catalogs = catalogs or load_catalogs()
    lengths = measurements["input_tokens"] + measurements["output_tokens"]
    for model, needed in lengths.groupby(measurements["model"]).max().items():
        if needed > catalogs.models.at[str(model), "max_context"]:
            catalogs = catalogs.with_model(str(model), {"max_context": float(needed)})
    rows: list[tuple[int, list[object]]] = []
    for n, m in enumerate(measurements.to_dict(orient="records"), start=2):
        engine = "tensorrt-llm" if str(m["framework"]).startswith("TensorRT") else "vllm"
        cells = [
            f"r{m['row_id']}", m["model"], m["gpu"], 1, m["input_tokens"], m["output_tokens"],
            m["tp"], m["weight_dtype"], m["kv_dtype"], m["max_batch"], engine,
        ]  # fmt: skip
        rows.append((n, [_cell(c) for c in cells]))
    checked = validate(RawTable("measurements", list(_SCENARIO_HEADER), rows, ""), catalogs)
    bench = Bench(measurements.reset_index(drop=True), checked)
    return bench if efficiency is None else bench.with_efficiency(efficiency)


def _estimate(scenarios: pd.DataFrame, tables: Tables, constants: Constants | None,
              overrides: Mapping[str, Any], pin: Pin | None) -> pd.DataFrame:
    results = estimate(scenarios, tables, constants, overrides)
    if pin is None:
        return results
    return estimate(scenarios, tables, constants, {**overrides, **pin(results)})


def predict(bench: Bench, constants: Constants | None = None, pin: Pin | None = None
            ) -> FloatArray:
    """The engine's figure for each measurement, in the measurement's unit.

    Offline rows run at the engine's own operating batch (memory or the batch cap); rows with a
    stated batch (static batching, batch 1) pin ``batch``. ``pin`` (for ablations) maps a first
    pass's results to further quantities to pin in a second pass.
    """
    m = bench.measurements
    scenarios = bench.checked.scenarios
    out = np.full(len(m), np.nan)
    batch = m["batch"].to_numpy(dtype=float)
    free = np.isnan(batch)
    if free.any():
        rows = np.flatnonzero(free)
        results = _estimate(scenarios.iloc[rows], bench.tables, constants, {}, pin)
        out[rows] = results["output_tokens_per_s_per_gpu"].to_numpy(dtype=float)
    if (~free).any():
        rows = np.flatnonzero(~free)
        results = _estimate(scenarios.iloc[rows], bench.tables, constants,
                            {"batch": batch[rows]}, pin)
        kind = m["kind"].to_numpy()[rows]
        out[rows] = np.where(
            kind == "ttft_batch1",
            results["prefill_ms"].to_numpy(dtype=float),
            np.where(
                kind == "decode_batch1",
                1000 / results["decode_step_ms"].to_numpy(dtype=float),
                results["output_tokens_per_s_per_gpu"].to_numpy(dtype=float),
            ),
        )
    return out


def efficiency_keys(bench: Bench) -> npt.NDArray[np.object_]:
    """The efficiency-table row each measurement's scenario uses (family-compute precision)."""
    gpus = bench.tables.gpus
    m = bench.measurements
    family = gpus.loc[m["gpu"], "family"].to_numpy(dtype=object)
    fp8 = gpus.loc[m["gpu"], "fp8_tflops"].to_numpy(dtype=float) > 0
    fp4 = gpus.loc[m["gpu"], "fp4_tflops"].to_numpy(dtype=float) > 0
    weight = m["weight_dtype"].to_numpy(dtype=object)
    compute = np.where(
        (weight == "fp4") & fp4, "fp4",
        np.where(((weight == "fp8") | (weight == "fp4")) & fp8, "fp8", "bf16"),
    )  # fmt: skip
    return np.asarray(family + "-" + compute, dtype=object)


def fit_rows(measurements: pd.DataFrame) -> BoolArray:
    """The rows the fit uses: offline throughput and the batch-1 rows, without weight-only
    quantized ones."""
    kind = measurements["kind"].isin(FIT_KINDS)
    weight_only = measurements["weight_dtype"].isin(WEIGHT_ONLY)
    return np.asarray((kind & ~weight_only).to_numpy(), dtype=bool)


# --- scores -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    """Accuracy of predictions on a set of measurements."""

    n: int
    mdape_pct: float  # median absolute percentage error of predicted vs measured
    within_pct: float  # share of rows whose prediction is within ±25 % of the measurement
    median_ratio: float  # median of measured ÷ predicted
    p10_ratio: float
    p90_ratio: float


def ape_pct(predicted: FloatArray, measured: FloatArray) -> FloatArray:
    """Absolute percentage error of each prediction, relative to the measurement."""
    return np.asarray(np.abs(predicted / measured - 1) * 100, dtype=np.float64)


def score(predicted: FloatArray, measured: FloatArray) -> Score:
    """MdAPE, share within ±25 %, and the spread of measured ÷ predicted."""
    ok = np.isfinite(predicted) & np.isfinite(measured) & (predicted > 0)
    if not ok.any():
        return Score(0, math.nan, math.nan, math.nan, math.nan, math.nan)
    p, m = predicted[ok], measured[ok]
    errors = ape_pct(p, m)
    ratio = m / p
    return Score(
        n=int(ok.sum()),
        mdape_pct=float(np.median(errors)),
        within_pct=float(np.mean(errors <= WITHIN_PCT) * 100),
        median_ratio=float(np.median(ratio)),
        p10_ratio=float(np.percentile(ratio, 10)),
        p90_ratio=float(np.percentile(ratio, 90)),
    )


def size_class(params_b: float) -> str:
    """Model size bucket used to group the scores."""
    if params_b < 10:
        return "<10B"
    return "10-100B" if params_b < 100 else ">100B"


def scored_rows(bench: Bench, predicted: FloatArray) -> pd.DataFrame:
    """The measurements with prediction, ratio, APE and grouping columns."""
    frame = bench.measurements.copy()
    measured = frame["measured"].to_numpy(dtype=float)
    frame["predicted"] = predicted
    frame["ratio"] = measured / predicted
    frame["ape_pct"] = ape_pct(predicted, measured)
    frame["efficiency_key"] = efficiency_keys(bench)
    frame["precision"] = frame["weight_dtype"]
    params = bench.tables.models["params_b"]
    frame["size"] = [size_class(float(params[m])) for m in frame["model"]]
    frame["shape"] = [f"{i:.0f}/{o:.0f}" for i, o in
                      zip(frame["input_tokens"], frame["output_tokens"], strict=True)]
    frame["fitted"] = fit_rows(frame)
    return frame


def kind_score(rows: pd.DataFrame, kind: str) -> Score:
    """The Score of one kind of measurement in ``rows`` (from :func:`scored_rows`)."""
    part = rows[rows["kind"] == kind]
    return score(part["predicted"].to_numpy(dtype=float), part["measured"].to_numpy(dtype=float))


def group_scores(rows: pd.DataFrame, by: str | Sequence[str]) -> pd.DataFrame:
    """One Score per group of ``rows`` (from :func:`scored_rows`)."""
    keys = [by] if isinstance(by, str) else list(by)
    records = []
    for key, group in rows.groupby(keys, sort=True):
        s = score(group["predicted"].to_numpy(dtype=float), group["measured"].to_numpy(dtype=float))
        label = " ".join(str(k) for k in (key if isinstance(key, tuple) else (key,)))
        records.append({"group": label, **dataclasses.asdict(s)})
    return pd.DataFrame(records)


# --- the fit ------------------------------------------------------------------------------------


def _at(frame: pd.DataFrame, row: str, column: str) -> float:
    value: Any = frame.at[row, column]
    return float(value)


def _bounds(names: Sequence[str]) -> tuple[FloatArray, FloatArray]:
    return (np.array([BOUNDS[n][0] for n in names], dtype=np.float64),
            np.array([BOUNDS[n][1] for n in names], dtype=np.float64))


def _to_params(x: FloatArray, names: Sequence[str]) -> FloatArray:
    lo, hi = _bounds(names)
    return np.asarray(lo + (hi - lo) / (1 + np.exp(-x)), dtype=np.float64)


def _to_unbounded(params: FloatArray, names: Sequence[str]) -> FloatArray:
    lo, hi = _bounds(names)
    share = np.clip((params - lo) / (hi - lo), 1e-6, 1 - 1e-6)
    return np.asarray(np.log(share / (1 - share)), dtype=np.float64)


def nelder_mead(f: Callable[[FloatArray], float], x0: FloatArray, step: float = 0.5,
                iterations: int = 300, tolerance: float = 1e-7) -> FloatArray:
    """Minimise ``f`` from ``x0`` with the Nelder–Mead simplex (no gradients: the loss is only
    piecewise smooth in the efficiencies)."""
    n = len(x0)
    simplex = np.vstack([x0] + [x0 + step * np.eye(n)[i] for i in range(n)])
    values = np.array([f(x) for x in simplex])
    for _ in range(iterations):
        order = np.argsort(values)
        simplex, values = simplex[order], values[order]
        if values[-1] - values[0] < tolerance:
            break
        centroid = simplex[:-1].mean(axis=0)
        reflected = centroid + (centroid - simplex[-1])
        fr = f(reflected)
        if fr < values[0]:
            expanded = centroid + 2 * (centroid - simplex[-1])
            fe = f(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
            continue
        if fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
            continue
        toward = reflected if fr < values[-1] else simplex[-1]
        contracted = centroid + 0.5 * (toward - centroid)
        fc = f(contracted)
        if fc < min(fr, values[-1]):
            simplex[-1], values[-1] = contracted, fc
        else:
            simplex[1:] = simplex[0] + 0.5 * (simplex[1:] - simplex[0])
            values[1:] = [f(x) for x in simplex[1:]]
    return np.asarray(simplex[int(np.argmin(values))], dtype=np.float64)


def kind_weights(measurements: pd.DataFrame) -> FloatArray:
    """Row weights of the fit: throughput rows weigh 1 each; each batch-1 kind together weighs
    BATCH1_WEIGHT of the throughput rows, so a handful of batch-1 rows anchor the low-batch end
    (step overhead, weight read) without drowning or dominating."""
    kind = measurements["kind"].to_numpy()
    weights = np.ones(len(kind))
    n_throughput = max(int(np.isin(kind, THROUGHPUT_KINDS).sum()), 1)
    for k in BATCH1_KINDS:
        rows = kind == k
        if rows.any():
            weights[rows] = BATCH1_WEIGHT * n_throughput / rows.sum()
    return weights


def log_loss(predicted: FloatArray, measured: FloatArray, weights: FloatArray) -> float:
    """The fit's robust loss: weighted mean absolute log ratio (an L1 loss, so a few anomalous
    rows do not pull the efficiencies)."""
    ratio = predicted / measured
    if not (np.isfinite(ratio) & (ratio > 0)).all():
        return 1e6
    return float(np.sum(weights * np.abs(np.log(ratio))) / np.sum(weights))


@dataclass(frozen=True)
class GroupFit:
    """The fitted efficiencies of one efficiency-table row and how well they fit."""

    key: str
    params: dict[str, float]
    n: int
    loss: float
    weight: float  # total row weight (for pooling losses across rows)
    batch1: dict[str, tuple[float, int]]  # batch-1 kind → (sum of |log ratio|, rows)


def fit_group(bench: Bench, key: str, constants: Constants | None = None,
              pin: Pin | None = None) -> GroupFit:
    """Fit the group parameters of efficiency row ``key`` to ``bench`` (all of whose rows use
    that row); the shared parameter stays as the table has it."""
    table = bench.tables.efficiency
    measured = bench.measurements["measured"].to_numpy(dtype=float)
    weights = kind_weights(bench.measurements)
    names = GROUP_PARAMETERS

    def with_params(params: FloatArray) -> Bench:
        new = table.copy()
        new.loc[key, list(names)] = params
        return bench.with_efficiency(new)

    def loss(x: FloatArray) -> float:
        predicted = predict(with_params(_to_params(x, names)), constants, pin)
        return log_loss(predicted, measured, weights)

    start = np.array([_at(table, key, n) for n in names])
    best = nelder_mead(loss, _to_unbounded(start, names))
    best = nelder_mead(loss, best, step=0.2)  # a restart: Nelder–Mead can stall
    params = _to_params(best, names)
    predicted = predict(with_params(params), constants, pin)
    kind = bench.measurements["kind"].to_numpy()
    errors = np.abs(np.log(predicted / measured))
    batch1 = {k: (float(errors[kind == k].sum()), int((kind == k).sum()))
              for k in BATCH1_KINDS if (kind == k).any()}
    return GroupFit(key, {n: float(v) for n, v in zip(names, params, strict=True)},
                    len(measured), log_loss(predicted, measured, weights), float(weights.sum()),
                    batch1)


@dataclass(frozen=True)
class Fit:
    """A fitted efficiency table: per-row fits and the shared step overhead."""

    table: pd.DataFrame
    groups: dict[str, GroupFit]
    step_overhead_ms: float
    loss: float  # pooled loss over every fit row
    batch1_loss: float  # mean over batch-1 sources of their mean |log ratio| (sets the overhead)


def fit_groups(bench: Bench, start: pd.DataFrame, mask: BoolArray, overhead_ms: float,
               constants: Constants | None = None, pin: Pin | None = None) -> Fit:
    """Fit the group parameters of every efficiency row with rows in ``mask``, with the shared
    step overhead held at ``overhead_ms``."""
    table = start.copy()
    table[SHARED_PARAMETER] = overhead_ms
    bench = bench.with_efficiency(table)
    keys = efficiency_keys(bench)
    groups: dict[str, GroupFit] = {}
    for key in sorted({str(k) for k in keys[mask]}):
        group = fit_group(bench.subset(mask & (keys == key)), key, constants, pin)
        table.loc[key, list(GROUP_PARAMETERS)] = [group.params[n] for n in GROUP_PARAMETERS]
        groups[key] = group
    total = sum(g.weight for g in groups.values())
    loss = sum(g.loss * g.weight for g in groups.values()) / total
    per_kind = []
    for k in BATCH1_KINDS:
        parts = [g.batch1[k] for g in groups.values() if k in g.batch1]
        if parts:
            per_kind.append(sum(p[0] for p in parts) / sum(p[1] for p in parts))
    loss1 = float(np.mean(per_kind)) if per_kind else 0.0
    return Fit(table, groups, overhead_ms, loss, loss1)


def start_table(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with every row's group parameters at :data:`START`, so that a refit does not
    depend on the table it replaces."""
    out = table.copy()
    for name, value in START.items():
        out[name] = value
    return out


def fit(bench: Bench, start: pd.DataFrame, mask: BoolArray, constants: Constants | None = None,
        evaluations: int = 10) -> Fit:
    """Fit the shared step overhead and the group parameters.

    The throughput rows hardly identify the overhead (their loss changes by under 1 % between
    0.3 and 6 ms: a longer step is traded for a higher MBU), while in the batch-1 rows it is a
    direct term. So the overhead minimises the loss of the batch-1 rows, each source (TensorRT-LLM
    first-token latency, gpt-fast decode) counting equally (golden-section search on a log
    scale); for each trial value the group parameters are fitted on every fit row."""
    lo, hi = (math.log(b) for b in BOUNDS[SHARED_PARAMETER])
    ratio = (math.sqrt(5) - 1) / 2
    cache: dict[float, Fit] = {}
    warm = start

    def trial(log_overhead: float) -> float:
        nonlocal warm
        result = fit_groups(bench, warm, mask, math.exp(log_overhead), constants)
        warm = result.table
        cache[log_overhead] = result
        return result.batch1_loss

    a, b = lo, hi
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = trial(c), trial(d)
    for _ in range(max(evaluations - 2, 0)):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = trial(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = trial(d)
    return min(cache.values(), key=lambda f: f.batch1_loss)


def cross_validate(bench: Bench, fitted: Fit, mask: BoolArray, folds: npt.NDArray[Any],
                   constants: Constants | None = None) -> FloatArray:
    """Out-of-fold predictions: for each fold label, refit the group parameters without that
    fold's rows (shared overhead kept) and predict its rows. An efficiency row with no training
    rows left in a fold keeps the fitted table's values (that fold is then not out of sample:
    the benchmark's folds avoid it); rows whose fold label is empty are not predicted (NaN)."""
    out = np.full(len(folds), np.nan)
    for label in sorted({f for f in folds if f != ""}):
        held = folds == label
        result = fit_groups(bench, fitted.table, mask & ~held, fitted.step_overhead_ms, constants)
        out[held] = predict(bench.with_efficiency(result.table).subset(held), constants)
    return out


def architecture_folds(bench: Bench) -> npt.NDArray[np.object_]:
    """Fold labels that keep models of one architecture together (same layers, width, KV heads
    and experts: Llama-3-8B, Llama-3.1-8B and Mistral-7B share one; the Llama 70Bs another)."""
    models = bench.tables.models
    labels = {}
    for name in bench.measurements["model"].unique():
        row = models.loc[name]
        labels[name] = (f"L{row['layers']:.0f}-h{row['hidden_size']:.0f}-kv{row['kv_heads']:.0f}"
                        f"-e{row['experts']:.0f}")
    names = {}
    for label in sorted(set(labels.values())):
        names[label] = "+".join(sorted(n for n, lab in labels.items() if lab == label))
    return np.array([names[labels[m]] for m in bench.measurements["model"]], dtype=object)


# --- the efficiency table -----------------------------------------------------------------------


def _round(table: pd.DataFrame) -> pd.DataFrame:
    out = table.copy()
    for name in (*GROUP_PARAMETERS, SHARED_PARAMETER):
        out[name] = out[name].astype(float).round(3)
    for name in ("throughput_ratio_p10", "throughput_ratio_p90"):
        out[name] = out[name].astype(float).round(2)
    return out


def _describe_rows(rows: pd.DataFrame) -> str:
    parts = []
    for (kind, gpu, precision), group in rows.groupby(["kind", "gpu", "weight_dtype"]):
        parts.append(f"{kind} {gpu} {precision} ({len(group)})")
    return "measurements_public.csv: " + "; ".join(parts)


def efficiency_table(bench: Bench, fitted: Fit, mask: BoolArray, prior: pd.DataFrame,
                     constants: Constants | None = None, date: dt.date | None = None
                     ) -> pd.DataFrame:
    """The efficiency table to ship: fitted rows with their band, error and provenance; rows
    without measurements get documented priors derived from the fitted rows."""
    table = _round(fitted.table)
    meta = ("calibrated", "n_measurements", "fit_mdape_pct", "fitted_on", "method", "date",
            "source")
    table = table.astype({c: object for c in meta if c in table.columns})
    bench = bench.with_efficiency(table)
    rows = scored_rows(bench, predict(bench, constants))
    stamp = (date or dt.date.today()).isoformat()
    method = (
        "benchmarks/accuracy.py --write: per family × precision mfu_prefill, mfu_decode, mbu and "
        "one shared step_overhead_ms minimising the weighted mean |log(predicted/measured)| "
        f"(batch-1 kinds weigh {BATCH1_WEIGHT:g} of the throughput rows each); band = 10th/90th "
        "percentile of measured/predicted throughput on the fit rows"
    )
    for key, group in fitted.groups.items():
        mine = rows[mask & (rows["efficiency_key"] == key).to_numpy()]
        throughput = mine[mine["kind"].isin(THROUGHPUT_KINDS)]
        ratio = throughput["ratio"].to_numpy(dtype=float)
        table.loc[key, "throughput_ratio_p10"] = round(float(np.percentile(ratio, 10)), 2)
        table.loc[key, "throughput_ratio_p90"] = round(float(np.percentile(ratio, 90)), 2)
        table.loc[key, "calibrated"] = "yes"
        table.loc[key, "n_measurements"] = group.n
        table.loc[key, "fit_mdape_pct"] = round(float(np.median(mine["ape_pct"])), 1)
        table.loc[key, "fitted_on"] = _describe_rows(mine)
        table.loc[key, "method"] = method
        table.loc[key, "date"] = stamp
        table.loc[key, "source"] = (
            "TensorRT-LLM perf-overview v0.13 offline throughput, TensorRT-LLM performance.md "
            "batch-1 first-token latency, gpt-fast README batch-1 decode (project reference "
            "measured_public.csv)"
        )
    return _priors(table, fitted, prior, stamp)


def _priors(table: pd.DataFrame, fitted: Fit, prior: pd.DataFrame, stamp: str) -> pd.DataFrame:
    """Documented priors for rows the measurements do not cover."""
    out = table.copy()
    calibrated = list(fitted.groups)
    low = min(_at(out, k, "throughput_ratio_p10") for k in calibrated)
    high = max(_at(out, k, "throughput_ratio_p90") for k in calibrated)
    band = (round(low * (1 - UNCALIBRATED_BAND_WIDENING), 2),
            round(high * (1 + UNCALIBRATED_BAND_WIDENING), 2))

    def take(key: str, source: str, mfu_scale: float = 1.0, mbu_scale: float = 1.0) -> None:
        out.loc[key, "mfu_prefill"] = round(_at(out, source, "mfu_prefill") * mfu_scale, 3)
        out.loc[key, "mfu_decode"] = round(_at(out, source, "mfu_decode") * mfu_scale, 3)
        out.loc[key, "mbu"] = round(min(_at(out, source, "mbu") * mbu_scale, 0.9), 3)

    notes: dict[str, str] = {}
    rules: list[tuple[str, str, float, float, str]] = [
        ("ada-bf16", "ada-fp8", 1.0, 1.0, "ada-fp8 fitted values (no bf16 Ada measurements)"),
        ("blackwell-bf16", "hopper-bf16", 1.0, 1.0,
         "hopper-bf16 fitted values: FlashMLA kernels reach the same share of peak on B200 as "
         "on H800 (prefill 1460/2250 vs 640/989 TFLOPS, mfu_mbu.csv)"),
        ("blackwell-fp8", "hopper-fp8", 1.0, 1.0, "hopper-fp8 fitted values (as blackwell-bf16)"),
        ("blackwell-fp4", "hopper-fp8", 1.0, 1.0, "hopper-fp8 fitted values (no fp4 data)"),
        ("cdna3-bf16", "hopper-bf16", 0.75, 0.94,
         "hopper-bf16 fitted values, MFU × 0.75 (engineering prior: less mature kernels), MBU × "
         "0.94 (gpt-fast batch-1: MI250X 64 % of peak vs A100 68.5 %, mfu_mbu.csv)"),
        ("cdna3-fp8", "hopper-fp8", 0.75, 0.94, "hopper-fp8 fitted values, scaled as cdna3-bf16"),
        ("other-bf16", "ampere-bf16", 1.0, 1.0, "ampere-bf16 fitted values (generic GPU)"),
    ]
    for key, source, mfu_scale, mbu_scale, text in rules:
        if key in out.index and key not in calibrated and source in calibrated:
            take(key, source, mfu_scale, mbu_scale)
            notes[key] = text
    for key in out.index:
        if key in calibrated:
            continue
        if key not in notes:  # no rule: keep the previous table's efficiencies
            out.loc[key, list(GROUP_PARAMETERS)] = prior.loc[key, list(GROUP_PARAMETERS)]
        out.loc[key, "throughput_ratio_p10"], out.loc[key, "throughput_ratio_p90"] = band
        out.loc[key, "calibrated"] = "no"
        out.loc[key, "n_measurements"] = 0
        out.loc[key, "fit_mdape_pct"] = ""
        out.loc[key, "fitted_on"] = ""
        out.loc[key, "method"] = "prior"
        out.loc[key, "date"] = stamp
        out.loc[key, "source"] = (
            f"prior: {notes.get(key, 'kept from the previous table')}; shared step overhead "
            f"fitted; band = widest calibrated band widened "
            f"{UNCALIBRATED_BAND_WIDENING * 100:.0f} % each side"
        )
    return out


def write_efficiency(table: pd.DataFrame, path: Path = EFFICIENCY_FILE) -> None:
    """Write the efficiency table in the shipped CSV layout."""
    frame = table.reset_index()
    frame["n_measurements"] = frame["n_measurements"].astype(int)
    frame.to_csv(path, index=False, lineterminator="\n")


def plain_roofline(table: pd.DataFrame) -> pd.DataFrame:
    """The efficiency table of a plain roofline: every efficiency 1.0, no step overhead."""
    out = table.copy()
    out[list(GROUP_PARAMETERS)] = 1.0
    out[SHARED_PARAMETER] = 0.0
    return out


# --- physics ablations --------------------------------------------------------------------------


@dataclass(frozen=True)
class Ablation:
    """One physical effect switched off or swapped, to measure how much it moves the error."""

    name: str
    description: str
    bench: Callable[[Bench], Bench] = lambda b: b
    constants: Mapping[str, float | str] = dataclasses.field(default_factory=dict)
    pin: Pin | None = None


def _links(latency_us: float | None = None, gbps_factor: float = 1.0,
           only: Sequence[str] = ()) -> Callable[[Bench], Bench]:
    """A bench whose GPUs (``only`` these, if given) have another all-reduce latency and/or
    link bandwidth."""

    def apply(bench: Bench) -> Bench:
        gpus = bench.tables.gpus.copy()
        rows = gpus.index if not only else gpus.index.intersection(list(only))
        if latency_us is not None:
            gpus.loc[rows, "link_latency_us"] = latency_us
        gpus.loc[rows, "link_gbps"] = gpus.loc[rows, "link_gbps"] * gbps_factor
        return bench.with_gpus(gpus)

    return apply


def _no_attention(results: pd.DataFrame) -> dict[str, Any]:
    zero = np.zeros(len(results))
    return {"attention_flops_per_token_pair": zero, "decode_attention_s_per_seq": zero}


def _single_roofline(results: pd.DataFrame) -> dict[str, Any]:
    r = results
    ctx = r["decode_context_tokens"]
    compute = (2 * r["active_params_b"] * 1e9 + r["attention_flops_per_token_pair"] * ctx) / (
        r["instance_flops_decode"])
    reads = ctx * r["kv_bytes_per_token"] / r["instance_bandwidth"]
    return {"decode_compute_s_per_seq": compute.to_numpy(dtype=float),
            "decode_kv_read_s_per_seq": reads.to_numpy(dtype=float)}


def _old_lone_prefill_ms(r: pd.DataFrame) -> FloatArray:
    def col(name: str) -> FloatArray:
        return r[name].to_numpy(dtype=np.float64)

    roofline = np.maximum(col("prefill_flops") / col("instance_flops_prefill"),
                          col("weights_read_s"))
    comm = col("allreduce_fixed_s") + col("allreduce_s_per_token") * col("prefill_tokens")
    return np.asarray(1000 * (roofline + comm), dtype=np.float64)


def _prefill_pays_weight_read(results: pd.DataFrame) -> dict[str, Any]:
    return {"prefill_in_batch_ms": _old_lone_prefill_ms(results)}


def _lone_prefill_max(results: pd.DataFrame) -> dict[str, Any]:
    return {"prefill_ms": _old_lone_prefill_ms(results)}


def _moe_reads_all_experts(results: pd.DataFrame) -> dict[str, Any]:
    return {"weights_read_gib_per_step": results["weights_gib"].to_numpy(dtype=float)}


NVLINK_GPUS = ("H100-SXM", "H200-SXM", "GH200", "A100-SXM-80GB")
ABLATIONS: tuple[Ablation, ...] = (
    Ablation("all-reduce latency 0", "link_latency_us 0 instead of 25", _links(latency_us=0.0)),
    Ablation("all-reduce latency 8 us", "the previous prior (NVLink)",
             _links(latency_us=8.0, only=NVLINK_GPUS)),
    Ablation("NVLink all-reduce at datasheet rate", "link_gbps × 2 on NVLink GPUs (450/300 GB/s)",
             _links(gbps_factor=2.0, only=NVLINK_GPUS)),
    Ablation("L40S all-reduce at PCIe datasheet rate", "L40S link_gbps 32 instead of 16",
             _links(gbps_factor=2.0, only=("L40S",))),
    Ablation("no tensor-parallel all-reduce", "latency 0, unlimited link bandwidth",
             _links(latency_us=0.0, gbps_factor=1e9)),
    Ablation("KV budget: vLLM definition", "engine = vllm for every row",
             lambda b: b.with_engine("vllm")),
    Ablation("KV budget: SGLang definition", "engine = sglang for every row",
             lambda b: b.with_engine("sglang")),
    Ablation("TRT-LLM free fraction 0.95", "TRTLLM_FREE_GPU_MEMORY_FRACTION 0.95 (0.90)",
             constants={"TRTLLM_FREE_GPU_MEMORY_FRACTION": 0.95}),
    Ablation("activation reserve 2 GiB", "ACTIVATION_RESERVE_GIB 2 (reportgen default) not 4",
             constants={"ACTIVATION_RESERVE_GIB": 2.0}),
    Ablation("activation reserve 6 GiB", "ACTIVATION_RESERVE_GIB 6 not 4",
             constants={"ACTIVATION_RESERVE_GIB": 6.0}),
    Ablation("no attention terms", "attention FLOPs and KV-cache reads set to 0",
             pin=_no_attention),
    Ablation("single roofline per step", "max(all FLOPs, all bytes), not GEMMs + attention",
             pin=_single_roofline),
    Ablation("prefill in batch pays weight read", "each prefill in the cycle costs "
             "max(FLOPs, weight read) + all-reduce, as before", pin=_prefill_pays_weight_read),
    Ablation("lone prefill: max of roofs", "first-token prefill = max(FLOPs, weight read) + "
             "all-reduce, as before (no sum, no overhead)", pin=_lone_prefill_max),
    Ablation("MoE reads all experts", "every decode step reads all expert weights",
             pin=_moe_reads_all_experts),
)


def ablation_inputs(ablation: Ablation, bench: Bench, constants: Constants | None
                    ) -> tuple[Bench, dict[str, float | str]]:
    """The bench and constants an ablation runs with."""
    merged: dict[str, float | str] = dict(constants or {})
    merged.update(ablation.constants)
    return ablation.bench(bench), merged
