"""The engine-release factor: how much more offline throughput the reference engine release
(the one the shipped efficiencies describe, :data:`REFERENCE_RELEASE`) delivers than an older
release on the same configuration, fitted on same-configuration pairs across releases.

A pair is one configuration measured on both releases: the same GPU, model architecture
(layers, width, KV heads, experts and parameter count: Llama-3.1-70B and Llama-3.3-70B are one,
Llama-3-8B and Llama-3.1-8B another), weight and KV precision, TP, PP and input/output lengths;
where a release measured several models of one architecture on a configuration, their
throughputs' geometric mean stands for it. The factor of an older release is the geometric mean
of its pairs' throughput ratios (reference ÷ older).

The fit uses it so that both releases' rows inform one efficiency table: in an efficiency
group (GPU family × precision) that has rows of the reference release, an older release's
offline row is predicted as the engine's figure ÷ its release's factor (the ``release_scale``
column :func:`with_release_scale` adds, which :func:`~reportgen.calibration.scenarios.predict`
applies). A group measured on the older release only (A100, L40S, H100 in FP16) keeps scale 1:
its efficiencies describe the release it was measured on, since the pairs say how much faster
v1.0 runs on Hopper FP8, not on other GPUs or precisions, and the batch-1 rows of other engines
(gpt-fast) that anchor those groups were never slower. Rows of other frameworks and kinds keep
scale 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from reportgen.calibration.scenarios import Bench, BoolArray, FloatArray, efficiency_keys

# The engine release the shipped efficiencies describe: plans are made for it.
REFERENCE_RELEASE = ("TensorRT-LLM", "1.0")
PAIR_KEY = ("shape", "gpu", "weight_dtype", "kv_dtype", "tp", "pp", "input_tokens",
            "output_tokens")


@dataclass(frozen=True)
class ReleaseFactor:
    """The reference release's throughput over an older release's, from same-configuration
    pairs."""

    release: str  # framework_version of the older release
    factor: float  # geometric mean of reference ÷ older throughput over the pairs
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


def _framework(measurements: pd.DataFrame) -> npt.NDArray[np.bool_]:
    return np.asarray(measurements["framework"].astype(str).str.startswith(REFERENCE_RELEASE[0])
                      .to_numpy(dtype=bool) & (measurements["kind"] == "offline_throughput")
                      .to_numpy(dtype=bool), dtype=bool)


def release_pairs(bench: Bench, rows: BoolArray | None = None) -> pd.DataFrame:
    """Same-configuration pairs of offline rows (among ``rows``, default all): an older release
    (``_older``) and the reference release (``_reference``), their throughput
    (``measured_*``), the rows behind each (``row_ids_*``) and ``ratio`` = reference ÷ older."""
    frame = bench.measurements.assign(shape=_shapes(bench))
    keep = _framework(frame) & (np.ones(len(frame), dtype=bool) if rows is None else rows)
    offline = frame[keep]
    reference = (offline["framework_version"] == REFERENCE_RELEASE[1]).to_numpy(dtype=bool)
    pairs = _per_configuration(offline[~reference]).merge(
        _per_configuration(offline[reference]), on=list(PAIR_KEY),
        suffixes=("_older", "_reference"))
    pairs["measured_older"] = np.exp(pairs.pop("log_older"))
    pairs["measured_reference"] = np.exp(pairs.pop("log_reference"))
    return pairs.assign(ratio=pairs["measured_reference"] / pairs["measured_older"])


def fit_release_factors(bench: Bench, rows: BoolArray | None = None) -> dict[str, ReleaseFactor]:
    """One factor per older release that has same-configuration pairs among ``rows``."""
    pairs = release_pairs(bench, rows)
    factors = {}
    for release, group in pairs.groupby("framework_version_older"):
        ratio = group["ratio"].to_numpy(dtype=float)
        factors[str(release)] = ReleaseFactor(
            release=str(release), factor=float(np.exp(np.mean(np.log(ratio)))),
            n_pairs=len(ratio), p10=float(np.percentile(ratio, 10)),
            p90=float(np.percentile(ratio, 90)),
        )
    return factors


def reference_groups(bench: Bench, rows: BoolArray | None = None) -> set[str]:
    """The efficiency groups (keys) with offline rows of the reference release among ``rows``."""
    m = bench.measurements
    reference = _framework(m) & (m["framework_version"] == REFERENCE_RELEASE[1]).to_numpy()
    if rows is not None:
        reference &= rows
    return {str(k) for k in efficiency_keys(bench)[reference]}


def release_scale(bench: Bench, factors: dict[str, ReleaseFactor],
                  groups: set[str] | None = None) -> FloatArray:
    """Per measurement, what turns the engine's figure (the reference release) into its
    release's: 1 ÷ the factor for an older release's offline row in one of ``groups`` (default:
    the groups with reference-release rows), else 1."""
    chosen = reference_groups(bench) if groups is None else groups
    versions = bench.measurements["framework_version"].to_numpy(dtype=object)
    ours = _framework(bench.measurements) & np.isin(efficiency_keys(bench), list(chosen))
    return np.array([1 / factors[v].factor if (mine and v in factors) else 1.0
                     for v, mine in zip(versions, ours, strict=True)], dtype=np.float64)


def with_release_scale(bench: Bench, rows: BoolArray | None = None,
                       factors: dict[str, ReleaseFactor] | None = None) -> Bench:
    """``bench`` whose predictions are in each row's own release: the factors fitted on the
    pairs among ``rows`` (default all), or ``factors`` as given ({} for none), applied in the
    groups with reference-release rows among ``rows``."""
    chosen = fit_release_factors(bench, rows) if factors is None else factors
    scale = release_scale(bench, chosen, reference_groups(bench, rows))
    return Bench(bench.measurements.assign(release_scale=scale), bench.checked)
