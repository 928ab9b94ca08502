"""Canonical digests of what a plan was computed from, stamped in every output.

The input file's SHA-256 names the file; it cannot be recomputed from a workbook or a results
CSV. These digests can: they hash the *meaning* of the validated inputs, so a reader of an output
recomputes them from what the output holds and tells whether anything was edited since.

* ``inputs_digest``: the scenario rows as validated (model and GPU as catalog names, choice
  defaults filled). Row order, column order, blank cells, a choice written out at its default
  and ``20`` against ``20.0`` do not change it; any value that changes the plan does.
* ``reference_digest``: the constants and the GPU, model and efficiency tables the estimate read.

Canonical form, one JSON line per row, rows sorted by key, SHA-256 over the lines joined by
newlines under a header naming the scheme and the table: ``[key, [[column, value], ...]]`` with
columns sorted by name, blank values (NaN, "") left out, numbers as the shortest text that reads
back as the same double (``repr(float)``), text as it is.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from reportgen import schema
from reportgen.engine import Tables

SCHEME = "reportgen-digest-1"
_CHOICE_DEFAULTS = {c.name: c.default for c in schema.COLUMNS if c.type == "choice"}


def canonical_value(value: Any) -> str | None:
    """A cell as canonical text; None for a blank cell."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, str):
        return value if value != "" else None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(number):
        return None
    return repr(number + 0.0)  # -0.0 + 0.0 == 0.0


def _digest(name: str, rows: Iterable[tuple[str, Mapping[str, Any]]],
            skip: Mapping[str, str] | None = None) -> str:
    lines = []
    for key, row in rows:
        cells = []
        for column in sorted(row):
            text = canonical_value(row[column])
            if text is None or (skip is not None and skip.get(column) == text):
                continue
            cells.append([column, text])
        lines.append(json.dumps([key, cells], ensure_ascii=False, separators=(",", ":")))
    body = "\n".join([f"{SCHEME} {name}", *sorted(lines)])
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _frame_rows(frame: pd.DataFrame) -> list[tuple[str, dict[str, Any]]]:
    records = frame.to_dict(orient="records")
    return [(str(key), {str(k): v for k, v in rec.items()})
            for key, rec in zip(frame.index, records, strict=True)]


def as_typed(scenarios: pd.DataFrame, specs: pd.DataFrame | None) -> pd.DataFrame:
    """Validated rows with each searched cell holding its spec ("auto", "a|b") as typed:
    validation keeps those beside the frame and leaves the cell blank (validate.py)."""
    if specs is None or specs.empty:
        return scenarios
    typed = scenarios.copy()
    for column in specs.columns:
        given = specs[column].fillna("").astype(str).to_numpy()
        if (given != "").any():
            typed[column] = typed[column].astype(object)
            typed.loc[given != "", column] = given[given != ""]
    return typed


def inputs_digest(scenarios: pd.DataFrame, specs: pd.DataFrame | None = None) -> str:
    """Digest of validated scenario rows (every schema column present) and their search specs,
    keyed by scenario name (unique ignoring case, so the key is the lower-case name)."""
    scenarios = as_typed(scenarios, specs)
    columns = [c.name for c in schema.COLUMNS if c.name in scenarios.columns]
    records = scenarios[columns].to_dict(orient="records")
    rows = [(str(rec["scenario"]).lower(), {str(k): v for k, v in rec.items()})
            for rec in records]
    return _digest("scenarios", rows, _CHOICE_DEFAULTS)


def reference_digest(tables: Tables, constants: Mapping[str, float | str]) -> str:
    """Digest of the constants and the lookup tables an estimate read."""
    parts = [
        _digest("constants", [(name, {"value": value}) for name, value in constants.items()]),
        _digest("gpus", _frame_rows(tables.gpus)),
        _digest("models", _frame_rows(tables.models)),
        _digest("efficiency", _frame_rows(tables.efficiency)),
    ]
    return hashlib.sha256("\n".join(parts).encode("ascii")).hexdigest()
