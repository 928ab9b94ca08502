"""Build validated scenario sets from plain dicts, the way a user's file would be read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from reportgen.engine import estimate
from reportgen.readers import RawTable
from reportgen.validate import ValidatedInput, validate


def raw_table(rows: Sequence[Mapping[str, object]], source: str = "test.csv") -> RawTable:
    """A RawTable as if read from a CSV with these rows (blank = None)."""
    header: list[str] = []
    for row in rows:
        header += [k for k in row if k not in header]
    body = [(n, [row.get(k) for k in header]) for n, row in enumerate(rows, start=2)]
    return RawTable(source, header, body, sha256="0" * 64)


def validated(rows: Sequence[Mapping[str, object]]) -> ValidatedInput:
    """Validate rows given as dicts."""
    return validate(raw_table(rows))


def estimate_rows(
    rows: Sequence[Mapping[str, object]], constants: Mapping[str, float | str] | None = None
) -> pd.DataFrame:
    """Validate and estimate rows given as dicts."""
    checked = validated(rows)
    return estimate(checked.scenarios, checked.tables, constants)


def base_row(**changes: object) -> dict[str, object]:
    """A valid roofline scenario (70B on H100, the tutorial's coding-assistant workload)."""
    row: dict[str, object] = {
        "scenario": "s", "model": "Llama-3.1-70B", "gpu": "H100", "peak_qps": 200,
        "avg_prompt_tokens": 1500, "avg_output_tokens": 800,
    }
    row.update(changes)
    return row
