"""The efficiency table the fit ships (``data/efficiency.csv``): fitted rows with their error
band and provenance, documented priors for the rows no measurement covers."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from reportgen.calibration.fit import (
    BATCH1_WEIGHT,
    GROUP_PARAMETERS,
    MIN_MOE_ROWS,
    MOE_PARAMETER,
    SHARED_PARAMETER,
    Fit,
)
from reportgen.calibration.measurements import THROUGHPUT_KINDS
from reportgen.calibration.scenarios import Bench, BoolArray, Constants, predict
from reportgen.calibration.scoring import scored_rows
from reportgen.efficiency import EFFICIENCY_FILE, NOTE

UNCALIBRATED_BAND_WIDENING = 0.15  # prior band: widest calibrated band, 15 % wider each side
MIN_BAND_ROWS = 5  # fewer throughput rows of a model class than this: its band is not fitted
FITTED_ENGINE = "tensorrt-llm"  # the engine of every shipped measurement the fit uses

_METHOD = (
    "benchmarks/accuracy.py --write: per family × precision mfu_prefill, mfu_decode, mbu "
    f"(and moe_gemm_efficiency where {MIN_MOE_ROWS} or more MoE rows fit it; else the prior "
    "0.8) and one shared step_overhead_ms minimising the weighted mean "
    "|log(predicted/measured)| "
    f"(batch-1 kinds weigh {BATCH1_WEIGHT:g} of the throughput rows each; TensorRT-LLM v0.13 "
    "rows through the v1.0 ÷ v0.13 release factor); bands = 10th/90th percentile of "
    "measured/predicted throughput on the fit rows of dense models (throughput_ratio_*) and "
    "of mixture-of-experts models (moe_ratio_*)"
)
_SOURCE = (
    "TensorRT-LLM perf-overview v0.13 and v1.0 offline throughput, TensorRT-LLM performance.md "
    "batch-1 first-token latency, gpt-fast README batch-1 decode "
    "(reportgen/data/measurements_public.csv, measurements_public_2.csv)"
)
_META = ("calibrated", "n_measurements", "fit_mdape_pct", "fitted_on", "method", "date", "source",
         "engine", "n_moe_measurements")

# Priors: (row, fitted row it copies, MFU scale, MBU scale, why), applied in this order to rows
# without measurements whose source row was fitted.
_PRIOR_RULES: tuple[tuple[str, str, float, float, str], ...] = (
    ("ada-bf16", "ada-fp8", 1.0, 1.0, "ada-fp8 fitted values (no bf16 Ada measurements)"),
    ("blackwell-bf16", "hopper-bf16", 1.0, 1.0,
     "hopper-bf16 fitted values: FlashMLA kernels reach the same share of peak on B200 as "
     "on H800 (prefill 1460/2250 vs 640/989 TFLOPS, mfu_mbu.csv)"),
    ("blackwell-fp8", "blackwell-fp4", 1.0, 1.0,
     "blackwell-fp4 fitted values (same GPUs; no fp8 Blackwell measurements)"),
    ("blackwell-fp4", "hopper-fp8", 1.0, 1.0, "hopper-fp8 fitted values (no fp4 data)"),
    ("blackwell-rtx-fp8", "blackwell-rtx-fp4", 1.0, 1.0,
     "blackwell-rtx-fp4 fitted values (same GPU; no fp8 measurements)"),
    ("blackwell-rtx-bf16", "blackwell-rtx-fp4", 1.0, 1.0,
     "blackwell-rtx-fp4 fitted values (same GPU; no bf16 measurements)"),
    ("cdna3-bf16", "hopper-bf16", 0.75, 0.94,
     "hopper-bf16 fitted values, MFU × 0.75 (engineering prior: less mature kernels), MBU × "
     "0.94 (gpt-fast batch-1: MI250X 64 % of peak vs A100 68.5 %, mfu_mbu.csv)"),
    ("cdna3-fp8", "hopper-fp8", 0.75, 0.94, "hopper-fp8 fitted values, scaled as cdna3-bf16"),
    ("other-bf16", "ampere-bf16", 1.0, 1.0, "ampere-bf16 fitted values (generic GPU)"),
)


def _at(frame: pd.DataFrame, row: str, column: str) -> float:
    value: Any = frame.at[row, column]
    return float(value)


BANDS = ("throughput_ratio_p10", "throughput_ratio_p90", "moe_ratio_p10", "moe_ratio_p90")
# The shipped CSV's columns, in order (any others follow).
COLUMN_ORDER = ("key", "family", "compute_dtype", *GROUP_PARAMETERS, MOE_PARAMETER,
                SHARED_PARAMETER, *BANDS,
                "calibrated", "engine", "n_measurements", "n_moe_measurements", "fit_mdape_pct",
                "fitted_on", "method", "date", "source")


def _round(table: pd.DataFrame) -> pd.DataFrame:
    out = table.copy()
    for name in (*GROUP_PARAMETERS, MOE_PARAMETER, SHARED_PARAMETER):
        out[name] = out[name].astype(float).round(3)
    for name in BANDS:
        if name in out.columns:
            out[name] = out[name].astype(float).round(2)
    return out


def _describe_rows(rows: pd.DataFrame) -> str:
    parts = []
    for (kind, release, gpu, precision), group in rows.groupby(
            ["kind", "release", "gpu", "weight_dtype"]):
        parts.append(f"{kind} {release} {gpu} {precision} ({len(group)})".replace("  ", " "))
    return "; ".join(parts)


def _band(ratio: npt.NDArray[np.float64]) -> tuple[float, float]:
    return (round(float(np.percentile(ratio, 10)), 2), round(float(np.percentile(ratio, 90)), 2))


def _widened(band: tuple[float, float]) -> tuple[float, float]:
    return (round(band[0] * (1 - UNCALIBRATED_BAND_WIDENING), 2),
            round(band[1] * (1 + UNCALIBRATED_BAND_WIDENING), 2))


def _mark_calibrated(table: pd.DataFrame, key: str, mine: pd.DataFrame, n: int, stamp: str
                     ) -> None:
    """Fill row ``key`` of ``table`` with the bands, error and provenance of its fit rows: the
    dense band from its dense models' throughput rows, the MoE band from its MoE models' (each
    class falls back on all its rows, widened, when it has fewer than MIN_BAND_ROWS)."""
    throughput = mine[mine["kind"].isin(THROUGHPUT_KINDS)]
    ratio = throughput["ratio"].to_numpy(dtype=float)
    moe = (throughput["moe"] == "MoE").to_numpy(dtype=bool)
    overall = _band(ratio)
    dense = _band(ratio[~moe]) if (~moe).sum() >= MIN_BAND_ROWS else _widened(overall)
    experts = _band(ratio[moe]) if moe.sum() >= MIN_BAND_ROWS else _widened(overall)
    table.loc[key, ["throughput_ratio_p10", "throughput_ratio_p90"]] = dense
    table.loc[key, ["moe_ratio_p10", "moe_ratio_p90"]] = experts
    table.loc[key, "n_moe_measurements"] = int(moe.sum())
    table.loc[key, "engine"] = FITTED_ENGINE
    table.loc[key, "calibrated"] = "yes"
    table.loc[key, "n_measurements"] = n
    table.loc[key, "fit_mdape_pct"] = round(float(np.median(mine["ape_pct"])), 1)
    table.loc[key, "fitted_on"] = _describe_rows(mine)
    table.loc[key, "method"] = _METHOD
    table.loc[key, "date"] = stamp
    table.loc[key, "source"] = _SOURCE


def efficiency_table(bench: Bench, fitted: Fit, mask: BoolArray, prior: pd.DataFrame,
                     constants: Constants | None = None, date: dt.date | None = None
                     ) -> pd.DataFrame:
    """The efficiency table to ship: fitted rows with their band, error and provenance; rows
    without measurements get documented priors derived from the fitted rows."""
    table = _round(fitted.table)
    table = table.astype({c: object for c in _META if c in table.columns})
    bench = bench.with_efficiency(table)
    rows = scored_rows(bench, predict(bench, constants))
    stamp = (date or dt.date.today()).isoformat()
    for key, group in fitted.groups.items():
        mine = rows[mask & (rows["efficiency_key"] == key).to_numpy()]
        _mark_calibrated(table, key, mine, group.n, stamp)
    return _priors(table, fitted, prior, stamp)


def _apply_rules(out: pd.DataFrame, calibrated: list[str]) -> dict[str, str]:
    """Copy (and scale) fitted efficiencies into the rows :data:`_PRIOR_RULES` cover; the notes
    say where each came from."""
    notes: dict[str, str] = {}
    for key, source, mfu_scale, mbu_scale, text in _PRIOR_RULES:
        if key in out.index and key not in calibrated and source in calibrated:
            out.loc[key, "mfu_prefill"] = round(_at(out, source, "mfu_prefill") * mfu_scale, 3)
            out.loc[key, "mfu_decode"] = round(_at(out, source, "mfu_decode") * mfu_scale, 3)
            out.loc[key, "mbu"] = round(min(_at(out, source, "mbu") * mbu_scale, 0.9), 3)
            out.loc[key, MOE_PARAMETER] = _at(out, source, MOE_PARAMETER)
            notes[key] = text
    return notes


def _mark_prior(out: pd.DataFrame, key: str, band: tuple[float, float], note: str, stamp: str
                ) -> None:
    """Fill row ``key`` of ``out`` as an uncalibrated prior with the widened band (both model
    classes; no engine, since the band is already the widest)."""
    out.loc[key, "throughput_ratio_p10"], out.loc[key, "throughput_ratio_p90"] = band
    out.loc[key, "moe_ratio_p10"], out.loc[key, "moe_ratio_p90"] = band
    out.loc[key, "n_moe_measurements"] = 0
    out.loc[key, "engine"] = ""
    out.loc[key, "calibrated"] = "no"
    out.loc[key, "n_measurements"] = 0
    out.loc[key, "fit_mdape_pct"] = ""
    out.loc[key, "fitted_on"] = ""
    out.loc[key, "method"] = "prior"
    out.loc[key, "date"] = stamp
    out.loc[key, "source"] = (
        f"prior: {note}; shared step overhead fitted; band = widest calibrated band widened "
        f"{UNCALIBRATED_BAND_WIDENING * 100:.0f} % each side"
    )


def _priors(table: pd.DataFrame, fitted: Fit, prior: pd.DataFrame, stamp: str) -> pd.DataFrame:
    """Documented priors for rows the measurements do not cover."""
    out = table.copy()
    calibrated = list(fitted.groups)
    low = min(_at(out, k, c) for k in calibrated for c in ("throughput_ratio_p10",
                                                           "moe_ratio_p10"))
    high = max(_at(out, k, c) for k in calibrated for c in ("throughput_ratio_p90",
                                                            "moe_ratio_p90"))
    band = _widened((low, high))
    notes = _apply_rules(out, calibrated)
    for key in out.index:
        if key in calibrated:
            continue
        if key not in notes:  # no rule: keep the previous table's efficiencies
            kept = [*GROUP_PARAMETERS, MOE_PARAMETER]
            out.loc[key, kept] = prior.loc[key, kept]
        _mark_prior(out, key, band, notes.get(key, "kept from the previous table"), stamp)
    return out


def write_efficiency(table: pd.DataFrame, path: Path = EFFICIENCY_FILE) -> None:
    """Write the efficiency table in the shipped CSV layout."""
    frame = table.reset_index()
    if NOTE in frame.columns and (frame[NOTE].astype(str).str.strip() == "").all():
        frame = frame.drop(columns=NOTE)  # only a load-test row has a note
    for column in ("n_measurements", "n_moe_measurements"):
        frame[column] = frame[column].astype(int)
    first = [c for c in COLUMN_ORDER if c in frame.columns]
    frame = frame[first + [c for c in frame.columns if c not in first]]
    frame.to_csv(path, index=False, lineterminator="\n")


def plain_roofline(table: pd.DataFrame) -> pd.DataFrame:
    """The efficiency table of a plain roofline: every efficiency 1.0, no step overhead."""
    out = table.copy()
    out[[*GROUP_PARAMETERS, MOE_PARAMETER]] = 1.0
    out[SHARED_PARAMETER] = 0.0
    return out
