"""The efficiency table: calibrated MFU, MBU, step overhead and error band per GPU family and
compute precision (reportgen/data/efficiency.csv, written by benchmarks/accuracy.py --write)."""

from __future__ import annotations

import functools
from pathlib import Path

import pandas as pd

from reportgen.errors import CatalogError

EFFICIENCY_FILE = Path(__file__).parent / "data" / "efficiency.csv"
NUMERIC = (
    "mfu_prefill", "mfu_decode", "mbu", "step_overhead_ms",
    "throughput_ratio_p10", "throughput_ratio_p90", "moe_ratio_p10", "moe_ratio_p90",
    "moe_gemm_efficiency",
)
# Speed of the routed experts' grouped GEMMs relative to a dense layer's where no MoE measurement
# fits it (a table without the column, a prior): the value the fit finds on Hopper, Ampere and
# Ada (benchmarks/accuracy.py; docs/accuracy.md).
MOE_GEMM_EFFICIENCY_PRIOR = 0.8
# Text a row calibrated on your load test carries for the plan's notes (reportgen calibrate);
# blank on the shipped rows.
NOTE = "calibration_note"
# The engine a row's measurements ran on ("" for a prior): a plan on another engine widens its
# band (quantities/band.py).
ENGINE = "engine"
# The mixture-of-experts band of a table without one (a hand-written or older file): the band of
# its rows, which then stands for both model classes.
MOE_BAND = {"moe_ratio_p10": "throughput_ratio_p10", "moe_ratio_p90": "throughput_ratio_p90"}


def with_defaults(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the columns a plan reads that an older or hand-written table may lack:
    the MoE band (the row's band), the MoE GEMM efficiency (the prior), the engine and the
    calibration note (blank)."""
    out = frame.copy()
    for column, source in MOE_BAND.items():
        if column not in out.columns:
            out[column] = out[source]
        else:
            blank = out[column].isna() | (out[column].astype(str).str.strip() == "")
            out[column] = out[column].where(~blank, out[source])
    for column in (NOTE, ENGINE):
        if column not in out.columns:
            out[column] = ""
    if "moe_gemm_efficiency" not in out.columns:
        out["moe_gemm_efficiency"] = MOE_GEMM_EFFICIENCY_PRIOR
    else:
        given = out["moe_gemm_efficiency"]
        blank = given.isna() | (given.astype(str).str.strip() == "")
        out["moe_gemm_efficiency"] = given.where(~blank, MOE_GEMM_EFFICIENCY_PRIOR)
    return out


@functools.cache
def load_efficiency() -> pd.DataFrame:
    """The shipped efficiency table, indexed by lower-case key: family-compute_dtype, or
    family-compute_dtype-engine / gpu-compute_dtype-engine for rows that apply to one engine
    or one GPU (see the efficiency_key quantity)."""
    frame = pd.read_csv(EFFICIENCY_FILE, dtype={"calibrated": str}, keep_default_na=False)
    frame["key"] = frame["key"].str.lower()  # keys compare as a spreadsheet's = does
    frame = with_defaults(frame.set_index("key"))
    for column in NUMERIC:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
        bad = frame.index[~(frame[column] > 0)].tolist()
        if bad:
            raise CatalogError(f"{EFFICIENCY_FILE.name}: {column} must be > 0 for {bad}")
    if frame.index.duplicated().any():
        raise CatalogError(f"{EFFICIENCY_FILE.name}: duplicate keys")
    return frame
