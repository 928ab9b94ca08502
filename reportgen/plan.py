"""The data every renderer receives: validated inputs, the tables they were read against, the
results, and where they came from."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pandas as pd

from reportgen.engine import Tables


@dataclass(frozen=True)
class Provenance:
    """Where a plan came from, stamped on every output."""

    title: str
    input_name: str
    input_sha256: str
    generated: dt.date
    version: str
    # Canonical digests of the validated inputs and of the reference data (constants, GPU, model
    # and efficiency tables): recomputable from an output, so edits are detected (digest.py).
    inputs_digest: str = ""
    reference_digest: str = ""


@dataclass(frozen=True)
class Plan:
    """A validated scenario set and its estimate.

    ``scenarios`` has every schema column, one row per scenario, blanks as NaN (numbers) or ""
    (text), model and GPU as catalog names; ``tables`` holds the GPU, model and efficiency rows
    lookups read (shipped catalog plus any model or GPU defined by the input); ``results`` has one
    column per quantity, in registry order.
    """

    scenarios: pd.DataFrame
    tables: Tables
    results: pd.DataFrame
    provenance: Provenance
