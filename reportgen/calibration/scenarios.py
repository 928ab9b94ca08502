"""Measurements as scenarios: one validated scenario per measurement, and the engine's figure
for each in the measurement's unit."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from reportgen import schema
from reportgen.catalog import Catalogs, load_catalogs
from reportgen.engine import Tables, estimate, evaluate, input_arrays
from reportgen.quantities.inputs import compute_precision
from reportgen.readers import RawTable
from reportgen.validate import ValidatedInput, validate

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Constants = Mapping[str, float | str]  # overrides of units.CONSTANTS (ablations)
Pin = Callable[[pd.DataFrame], Mapping[str, Any]]


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

    def with_models(self, models: pd.DataFrame) -> Bench:
        """The same bench predicted with another model catalog."""
        return self._with(models=models)

    def with_engine(self, engine: str) -> Bench:
        """The same bench with every scenario under another engine's KV-budget definition."""
        return self._with_scenarios(self.checked.scenarios.assign(engine=engine))

    def with_attention_dp(self, rows: BoolArray) -> Bench:
        """The same bench with the scenarios of ``rows`` run attention data-parallel with
        expert parallelism (attention_dp = 1)."""
        scenarios = self.checked.scenarios.copy()
        scenarios.loc[rows, "attention_dp"] = 1.0
        return self._with_scenarios(scenarios)

    def _with_scenarios(self, scenarios: pd.DataFrame) -> Bench:
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
    "pp", "weight_dtype", "kv_dtype", "max_batch", "engine",
]  # fmt: skip


def _cell(value: object) -> object:
    return "" if isinstance(value, float) and math.isnan(value) else value


def _stages(value: object) -> float:
    """A measurement's pipeline stages: 1 where it records none (single-stage runs)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return 1.0
    return float(str(value))


def _widen_context(catalogs: Catalogs, measurements: pd.DataFrame) -> Catalogs:
    """``catalogs`` with each model's ``max_context`` raised to the longest run measured."""
    lengths = measurements["input_tokens"] + measurements["output_tokens"]
    for model, needed in lengths.groupby(measurements["model"]).max().items():
        if needed > catalogs.models.at[str(model), "max_context"]:
            catalogs = catalogs.with_model(str(model), {"max_context": float(needed)})
    return catalogs


def engine_of(framework: str) -> str:
    """The engine whose KV budget a measurement's framework follows: the framework itself when
    it names an engine (load tests), TensorRT-LLM for its benchmarks, else vLLM."""
    if framework.lower() in schema.BY_NAME["engine"].choices:
        return framework.lower()
    return "tensorrt-llm" if framework.startswith("TensorRT") else "vllm"


def build_bench(measurements: pd.DataFrame, catalogs: Catalogs | None = None,
                efficiency: pd.DataFrame | None = None, release_factors: bool = True) -> Bench:
    """A validated scenario per measurement: the benchmark's model, GPU, TP, precisions, lengths
    and batch cap; TensorRT-LLM's KV budget for TensorRT-LLM rows; no latency target. With
    ``release_factors``, an older engine release's offline rows are predicted through the
    release factor fitted on same-configuration pairs (release.py).

    Some runs went past the catalog's context window (GPT-J at 128 + 4096 tokens, Llama-2 at
    5000 + 500): the catalog's ``max_context`` is raised to what was run.
    """
    catalogs = _widen_context(catalogs or load_catalogs(), measurements)
    rows: list[tuple[int, list[object]]] = []
    for n, m in enumerate(measurements.to_dict(orient="records"), start=2):
        engine = engine_of(str(m["framework"]))
        cells = [
            f"r{m['row_id']}", m["model"], m["gpu"], 1, m["input_tokens"], m["output_tokens"],
            m["tp"], _stages(m.get("pp")), m["weight_dtype"], m["kv_dtype"], m["max_batch"], engine,
        ]  # fmt: skip
        rows.append((n, [_cell(c) for c in cells]))
    checked = validate(RawTable("measurements", list(_SCENARIO_HEADER), rows, ""), catalogs)
    bench = Bench(measurements.reset_index(drop=True), checked)
    if release_factors:
        from reportgen.calibration.release import with_release_scale

        bench = with_release_scale(bench)
    return bench if efficiency is None else bench.with_efficiency(efficiency)


# What the figures of :func:`predict` read of the engine's results.
_FIGURES = frozenset({"output_tokens_per_s_per_gpu", "prefill_ms", "decode_step_ms", "ttft_ms",
                      "tpot_ms", "batch", "avg_output_tokens", "tp"})


class _Same:
    """A scenario frame compared by identity (a fit predicts the same frame hundreds of times,
    with only the efficiency table changing)."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def __hash__(self) -> int:
        return id(self.frame)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.frame is self.frame


@functools.lru_cache(maxsize=8)
def _inputs(scenarios: _Same) -> dict[str, Any]:
    return input_arrays(scenarios.frame)


def _estimate(scenarios: pd.DataFrame, rows: npt.NDArray[np.intp], tables: Tables,
              constants: Constants | None, overrides: Mapping[str, Any],
              pin: Pin | None) -> pd.DataFrame:
    """The results of the scenarios at positions ``rows``: only the figures :func:`predict`
    reads, unless ``pin`` (an ablation's second pass) reads the rest."""
    if pin is not None:
        some = scenarios.iloc[rows]
        results = estimate(some, tables, constants, overrides)
        return estimate(some, tables, constants, {**overrides, **pin(results)})
    columns = {name: values[rows] for name, values in _inputs(_Same(scenarios)).items()}
    values = evaluate(columns, len(rows), tables, constants, overrides, wanted=_FIGURES)
    return pd.DataFrame({name: values[name] for name in sorted(_FIGURES)})


def serving_throughput(results: pd.DataFrame) -> FloatArray:
    """Output tokens/s per GPU of an instance holding ``batch`` requests in flight: Little's law
    over the mean request latency as load-test tools measure it, TTFT + (output − 1) × TPOT."""
    def col(name: str) -> FloatArray:
        return results[name].to_numpy(dtype=np.float64)

    latency_s = (col("ttft_ms") + (col("avg_output_tokens") - 1) * col("tpot_ms")) / 1000
    return np.asarray(col("batch") * col("avg_output_tokens") / (latency_s * col("tp")),
                      dtype=np.float64)


def _figure(kind: npt.NDArray[Any], results: pd.DataFrame) -> FloatArray:
    """The engine's figure for rows at a stated batch, in each measurement kind's unit."""
    figure = np.asarray(np.where(
        kind == "ttft_batch1",
        results["prefill_ms"].to_numpy(dtype=float),
        np.where(
            kind == "decode_batch1",
            1000 / results["decode_step_ms"].to_numpy(dtype=float),
            results["output_tokens_per_s_per_gpu"].to_numpy(dtype=float),
        ),
    ), dtype=np.float64)
    for name, quantity in (("serving_ttft", "ttft_ms"), ("serving_tpot", "tpot_ms")):
        rows = kind == name
        figure[rows] = results[quantity].to_numpy(dtype=float)[rows]
    rows = kind == "serving_throughput"
    if rows.any():
        figure[rows] = serving_throughput(results)[rows]
    return figure


def predict(bench: Bench, constants: Constants | None = None, pin: Pin | None = None
            ) -> FloatArray:
    """The engine's figure for each measurement, in the measurement's unit.

    Offline rows run at the engine's own operating batch (memory or the batch cap); rows with a
    stated batch (static batching, batch 1) pin ``batch``. A ``release_scale`` column in the
    measurements (release.py) turns the engine's figure into the measured release's.
    ``constants`` overrides the shipped constants (ablations only); ``pin`` (for ablations)
    maps a first pass's results to further quantities to pin in a second pass.
    """
    m = bench.measurements
    scenarios = bench.checked.scenarios
    out = np.full(len(m), np.nan)
    batch = m["batch"].to_numpy(dtype=float)
    free = np.isnan(batch)
    if free.any():
        rows = np.flatnonzero(free)
        results = _estimate(scenarios, rows, bench.tables, constants, {}, pin)
        out[rows] = results["output_tokens_per_s_per_gpu"].to_numpy(dtype=float)
    if (~free).any():
        rows = np.flatnonzero(~free)
        results = _estimate(scenarios, rows, bench.tables, constants, {"batch": batch[rows]},
                            pin)
        out[rows] = _figure(m["kind"].to_numpy()[rows], results)
    if "release_scale" in m.columns:
        out = out * m["release_scale"].to_numpy(dtype=float)
    return out


def efficiency_keys(bench: Bench) -> npt.NDArray[np.object_]:
    """The efficiency-table row each measurement's scenario uses (family-compute precision)."""
    gpus = bench.tables.gpus
    m = bench.measurements
    family = gpus.loc[m["gpu"], "family"].to_numpy(dtype=object)
    fp8 = gpus.loc[m["gpu"], "fp8_tflops"].to_numpy(dtype=float)
    fp4 = gpus.loc[m["gpu"], "fp4_tflops"].to_numpy(dtype=float)
    weight = m["weight_dtype"].to_numpy(dtype=object)
    compute = compute_precision(weight, weight, fp8, fp4)
    return np.asarray(family + "-" + compute, dtype=object)
