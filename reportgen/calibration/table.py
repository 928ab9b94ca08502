"""The efficiency table the fit ships (``data/efficiency.csv``): fitted rows with their error
band and provenance, documented priors for the rows no measurement covers."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reportgen.calibration.fit import BATCH1_WEIGHT, GROUP_PARAMETERS, SHARED_PARAMETER, Fit
from reportgen.calibration.measurements import THROUGHPUT_KINDS
from reportgen.calibration.scenarios import Bench, BoolArray, Constants, predict
from reportgen.calibration.scoring import scored_rows
from reportgen.efficiency import EFFICIENCY_FILE

UNCALIBRATED_BAND_WIDENING = 0.15  # prior band: widest calibrated band, 15 % wider each side

_METHOD = (
    "benchmarks/accuracy.py --write: per family × precision mfu_prefill, mfu_decode, mbu and "
    "one shared step_overhead_ms minimising the weighted mean |log(predicted/measured)| "
    f"(batch-1 kinds weigh {BATCH1_WEIGHT:g} of the throughput rows each); band = 10th/90th "
    "percentile of measured/predicted throughput on the fit rows"
)
_SOURCE = (
    "TensorRT-LLM perf-overview v0.13 offline throughput, TensorRT-LLM performance.md "
    "batch-1 first-token latency, gpt-fast README batch-1 decode "
    "(reportgen/data/measurements_public.csv)"
)
_META = ("calibrated", "n_measurements", "fit_mdape_pct", "fitted_on", "method", "date", "source")

# Priors: (row, fitted row it copies, MFU scale, MBU scale, why), applied in this order to rows
# without measurements whose source row was fitted.
_PRIOR_RULES: tuple[tuple[str, str, float, float, str], ...] = (
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
)


def _at(frame: pd.DataFrame, row: str, column: str) -> float:
    value: Any = frame.at[row, column]
    return float(value)


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


def _mark_calibrated(table: pd.DataFrame, key: str, mine: pd.DataFrame, n: int, stamp: str
                     ) -> None:
    """Fill row ``key`` of ``table`` with the band, error and provenance of its fit rows."""
    throughput = mine[mine["kind"].isin(THROUGHPUT_KINDS)]
    ratio = throughput["ratio"].to_numpy(dtype=float)
    table.loc[key, "throughput_ratio_p10"] = round(float(np.percentile(ratio, 10)), 2)
    table.loc[key, "throughput_ratio_p90"] = round(float(np.percentile(ratio, 90)), 2)
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
            notes[key] = text
    return notes


def _mark_prior(out: pd.DataFrame, key: str, band: tuple[float, float], note: str, stamp: str
                ) -> None:
    """Fill row ``key`` of ``out`` as an uncalibrated prior with the widened band."""
    out.loc[key, "throughput_ratio_p10"], out.loc[key, "throughput_ratio_p90"] = band
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
    low = min(_at(out, k, "throughput_ratio_p10") for k in calibrated)
    high = max(_at(out, k, "throughput_ratio_p90") for k in calibrated)
    band = (round(low * (1 - UNCALIBRATED_BAND_WIDENING), 2),
            round(high * (1 + UNCALIBRATED_BAND_WIDENING), 2))
    notes = _apply_rules(out, calibrated)
    for key in out.index:
        if key in calibrated:
            continue
        if key not in notes:  # no rule: keep the previous table's efficiencies
            out.loc[key, list(GROUP_PARAMETERS)] = prior.loc[key, list(GROUP_PARAMETERS)]
        _mark_prior(out, key, band, notes.get(key, "kept from the previous table"), stamp)
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
