"""The engine-release factor: how much more offline throughput a later engine release delivers
on the same configuration, fitted on same-configuration pairs across releases.

A pair is one configuration measured on both releases: the same GPU, model architecture
(layers, width, KV heads, experts and parameter count: Llama-3.1-70B and Llama-3.3-70B are one,
Llama-3-8B and Llama-3.1-8B another), weight and KV precision, TP, PP and input/output lengths;
where a release measured several models of one architecture on a configuration, their
throughputs' geometric mean stands for it. The factor of a later release is the geometric mean
of its pairs' throughput ratios (later ÷ fitted); the engine's prediction of a later-release row
times the factor is its release-adjusted prediction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen.calibration.measurements import later_release
from reportgen.calibration.scenarios import Bench, FloatArray

PAIR_KEY = ("shape", "gpu", "weight_dtype", "kv_dtype", "tp", "pp", "input_tokens",
            "output_tokens")


@dataclass(frozen=True)
class ReleaseFactor:
    """A later release's throughput factor over the fitted release, from same-configuration
    pairs."""

    release: str  # framework_version of the later release
    factor: float  # geometric mean of later ÷ fitted throughput over the pairs
    n_pairs: int
    p10: float  # spread of the pairs' ratios
    p90: float


def _shapes(bench: Bench) -> list[str]:
    fields = bench.tables.models[["layers", "hidden_size", "kv_heads", "experts", "params_b"]]
    shape = {str(name): "L{:.0f}-h{:.0f}-kv{:.0f}-e{:.0f}-p{:.1f}".format(*map(float, row))
             for name, row in fields.iterrows()}
    return [shape[str(m)] for m in bench.measurements["model"]]


def _per_configuration(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per configuration: the geometric mean throughput and the models measured."""
    grouped = rows.assign(log=np.log(rows["measured"].to_numpy(dtype=float))).groupby(
        list(PAIR_KEY), as_index=False)
    return grouped.agg(log=("log", "mean"), models=("model", lambda m: "+".join(sorted(set(m)))),
                       framework_version=("framework_version", "first"),
                       row_ids=("row_id", lambda r: tuple(sorted(r))))


def release_pairs(bench: Bench) -> pd.DataFrame:
    """Same-configuration pairs of offline rows: fitted release (``_fitted``) and later release
    (``_later``) throughput (``measured_*``), the rows behind each (``row_ids_*``) and
    ``ratio`` = later ÷ fitted."""
    frame = bench.measurements.assign(shape=_shapes(bench))
    offline = frame[frame["kind"] == "offline_throughput"]
    later = later_release(offline)
    pairs = _per_configuration(offline[~later]).merge(
        _per_configuration(offline[later]), on=list(PAIR_KEY), suffixes=("_fitted", "_later"))
    pairs["measured_fitted"] = np.exp(pairs.pop("log_fitted"))
    pairs["measured_later"] = np.exp(pairs.pop("log_later"))
    return pairs.assign(ratio=pairs["measured_later"] / pairs["measured_fitted"])


def fit_release_factors(bench: Bench) -> dict[str, ReleaseFactor]:
    """One factor per later release that has same-configuration pairs."""
    pairs = release_pairs(bench)
    factors = {}
    for release, group in pairs.groupby("framework_version_later"):
        ratio = group["ratio"].to_numpy(dtype=float)
        factors[str(release)] = ReleaseFactor(
            release=str(release), factor=float(np.exp(np.mean(np.log(ratio)))),
            n_pairs=len(ratio), p10=float(np.percentile(ratio, 10)),
            p90=float(np.percentile(ratio, 90)),
        )
    return factors


def release_adjusted(bench: Bench, predicted: FloatArray,
                     factors: dict[str, ReleaseFactor]) -> FloatArray:
    """``predicted`` with each later-release row multiplied by its release's factor (rows of
    the fitted release and of releases without pairs unchanged)."""
    versions = bench.measurements["framework_version"].to_numpy(dtype=object)
    later = later_release(bench.measurements)
    scale = np.array([factors[v].factor if (is_later and v in factors) else 1.0
                      for v, is_later in zip(versions, later, strict=True)])
    return np.asarray(predicted * scale, dtype=np.float64)
