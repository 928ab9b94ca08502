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
    "throughput_ratio_p10", "throughput_ratio_p90",
)
# Text a row calibrated on your load test carries for the plan's notes (reportgen calibrate);
# blank on the shipped rows.
NOTE = "calibration_note"


@functools.cache
def load_efficiency() -> pd.DataFrame:
    """The shipped efficiency table, indexed by lower-case key: family-compute_dtype, or
    family-compute_dtype-engine / gpu-compute_dtype-engine for rows that apply to one engine
    or one GPU (see the efficiency_key quantity)."""
    frame = pd.read_csv(EFFICIENCY_FILE, dtype={"calibrated": str}, keep_default_na=False)
    frame["key"] = frame["key"].str.lower()  # keys compare as a spreadsheet's = does
    frame = frame.set_index("key")
    for column in NUMERIC:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
        bad = frame.index[~(frame[column] > 0)].tolist()
        if bad:
            raise CatalogError(f"{EFFICIENCY_FILE.name}: {column} must be > 0 for {bad}")
    if frame.index.duplicated().any():
        raise CatalogError(f"{EFFICIENCY_FILE.name}: duplicate keys")
    if NOTE not in frame.columns:
        frame[NOTE] = ""
    return frame
