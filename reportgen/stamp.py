"""The provenance a results file (CSV or JSON) carries, so it can be read back and checked.

Two columns are appended after the quantities; pipelines that select columns by name never see
them. Both hold JSON text:

* ``input_row``: the scenario's validated inputs as typed (every non-blank input column, a
  searched cell as its spec, e.g. "auto" or "H100-SXM|H200-SXM"), enough to validate and plan
  the row again;
* ``provenance``: the plan's title, input file name and SHA-256, the inputs and reference
  digests (see digest.py), the date and the reportgen version (the same on every row).
"""

from __future__ import annotations

import json
import math

import pandas as pd

from reportgen import schema
from reportgen.digest import as_typed, encode_unique
from reportgen.plan import Plan, Provenance

INPUT_ROW = "input_row"
PROVENANCE = "provenance"
STAMP_COLUMNS = (INPUT_ROW, PROVENANCE)


def input_rows_json(scenarios: pd.DataFrame) -> list[str]:
    """Each validated scenario row as compact JSON (blank cells left out), in order; built a
    column at a time, each distinct value encoded once (a results file may hold a million
    rows)."""
    parts: list[list[str]] = []
    for column in schema.COLUMNS:
        if column.name not in scenarios.columns:
            continue
        key = "," + json.dumps(column.name) + ":"

        def member(value: object, key: str = key) -> str:  # blank: left out
            text = _json_cell(value)
            return key + text if text else ""

        parts.append(encode_unique(scenarios[column.name], member).tolist())
    return ["{" + row[1:] + "}" for row in map("".join, zip(*parts, strict=True))]


def _json_cell(value: object) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False) if value else ""
    number = float(value)  # type: ignore[arg-type]
    if math.isnan(number):
        return ""
    return str(int(number)) if number.is_integer() and abs(number) < 2**53 else repr(number)


def provenance_json(provenance: Provenance) -> str:
    """The plan's provenance as compact JSON."""
    return json.dumps({
        "title": provenance.title,
        "input_name": provenance.input_name,
        "input_sha256": provenance.input_sha256,
        "inputs_digest": provenance.inputs_digest,
        "reference_digest": provenance.reference_digest,
        "generated": provenance.generated.isoformat(),
        "reportgen_version": provenance.version,
    }, ensure_ascii=False, separators=(",", ":"))


def stamped_results(plan: Plan, provenance: str | None = None) -> pd.DataFrame:
    """The results table with the two provenance columns appended (the results' columns are
    shared, not copied: a copy of a million rows is a second of consolidating blocks);
    ``provenance``: the text of every row's provenance cell (default: the plan's, as JSON)."""
    stamp = pd.DataFrame({
        INPUT_ROW: input_rows_json(as_typed(plan.typed, plan.specs)),
        PROVENANCE: provenance_json(plan.provenance) if provenance is None else provenance,
    }, index=plan.results.index)
    return pd.concat([plan.results, stamp], axis=1)
