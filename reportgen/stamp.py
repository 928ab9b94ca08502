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
from typing import Any

import pandas as pd

from reportgen import schema
from reportgen.digest import as_typed
from reportgen.plan import Plan, Provenance

INPUT_ROW = "input_row"
PROVENANCE = "provenance"
STAMP_COLUMNS = (INPUT_ROW, PROVENANCE)


def _plain(value: Any) -> Any:
    if isinstance(value, str):
        return value
    number = float(value)
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def input_rows_json(scenarios: pd.DataFrame) -> list[str]:
    """Each validated scenario row as compact JSON (blank cells left out), in order."""
    columns = [c.name for c in schema.COLUMNS if c.name in scenarios.columns]
    rows = []
    for record in scenarios[columns].to_dict(orient="records"):
        cells = {
            str(name): _plain(value) for name, value in record.items()
            if not (value is None or value == ""
                    or (not isinstance(value, str) and math.isnan(float(value))))
        }
        rows.append(json.dumps(cells, ensure_ascii=False, separators=(",", ":")))
    return rows


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


def stamped_results(plan: Plan) -> pd.DataFrame:
    """The results table with the two provenance columns appended."""
    stamped = plan.results.copy()
    stamped[INPUT_ROW] = input_rows_json(as_typed(plan.typed, plan.specs))
    stamped[PROVENANCE] = provenance_json(plan.provenance)
    return stamped
