"""Scores of predictions against measurements: errors, the grouping columns, group scores and
the accuracy targets."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen.calibration.measurements import fit_rows, later_release
from reportgen.calibration.scenarios import Bench, FloatArray, efficiency_keys, engine_of

WITHIN_PCT = 25.0  # "within ±25 %"
TARGETS_PCT = {"offline_throughput": 15.0, "ttft_batch1": 20.0, "decode_batch1": 20.0}
GROUP_TARGET_PCT = 30.0  # no GPU × precision group of offline rows worse than this


@dataclass(frozen=True)
class Score:
    """Accuracy of predictions on a set of measurements."""

    n: int
    mdape_pct: float  # median absolute percentage error of predicted vs measured
    within_pct: float  # share of rows whose prediction is within ±25 % of the measurement
    median_ratio: float  # median of measured ÷ predicted
    p10_ratio: float
    p90_ratio: float
    # predicted ÷ measured − 1, in %: positive = the engine over-predicts the figure
    median_signed_pct: float = math.nan
    mean_signed_pct: float = math.nan


def ape_pct(predicted: FloatArray, measured: FloatArray) -> FloatArray:
    """Absolute percentage error of each prediction, relative to the measurement."""
    return np.asarray(np.abs(predicted / measured - 1) * 100, dtype=np.float64)


def signed_pct(predicted: FloatArray, measured: FloatArray) -> FloatArray:
    """Signed percentage error of each prediction: predicted ÷ measured − 1, in %."""
    return np.asarray((predicted / measured - 1) * 100, dtype=np.float64)


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
        median_signed_pct=float(np.median(signed_pct(p, m))),
        mean_signed_pct=float(np.mean(signed_pct(p, m))),
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
    frame["later_release"] = later_release(frame)
    frame["gpu_family"] = bench.tables.gpus["family"].reindex(frame["gpu"]).to_numpy()
    experts = bench.tables.models["experts"].reindex(frame["model"]).to_numpy(dtype=float)
    frame["moe"] = np.where(experts > 0, "MoE", "dense")
    frame["model_family"] = bench.tables.models["architecture"].reindex(frame["model"]).to_numpy()
    frame["release"] = [f"{f.split(' (')[0]} {v}".strip() for f, v in
                        zip(frame["framework"], frame["framework_version"], strict=True)]
    frame["engine"] = [engine_of(str(f)) if str(f).startswith("TensorRT") else
                       str(f).split(" (")[0] for f in frame["framework"]]
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
