"""The fast CSV writer writes byte for byte what pandas' per-cell writer writes.

The reference is ``DataFrame.to_csv(index=False, float_format="%.10g", lineterminator="\\n")``,
the results CSV's writer before the fast one; the frames mix every kind of value a results
table holds (and some it does not): NaN, ±inf, -0.0, integers, negatives, tiny and huge
numbers, text with commas, quotes and line breaks, missing text, booleans. Each frame is written
both ways the fast writer formats a column (cell by cell when short, by distinct values).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen import csv_text

SETTINGS = settings(max_examples=200, deadline=None, derandomize=True)


def _pandas(frame: pd.DataFrame) -> str:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False, float_format="%.10g", lineterminator="\n")
    return buffer.getvalue()


def _fast(frame: pd.DataFrame) -> str:
    """The fast writer's text, the same whether short columns are formatted cell by cell or
    every column by its distinct values."""
    texts = []
    small = csv_text.SMALL
    for threshold in (small, 0):
        csv_text.SMALL = threshold
        try:
            buffer = io.StringIO()
            csv_text.write_csv(frame, buffer)
        finally:
            csv_text.SMALL = small
        texts.append(buffer.getvalue())
    assert texts[0] == texts[1]
    return texts[0]


VARIED = pd.DataFrame({
    "floats": [0.1, -0.0, 0.0, np.nan, np.inf, -np.inf, 1e-300, 5e-324, 1.7976931348623157e308,
               123456789012.5, -42.0, 1 / 3],
    "whole_floats": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 1e15, -1e15],
    "ints": np.arange(-6, 6, dtype=np.int64) * 10**12,
    "flags": [True, False] * 6,
    "text": ["plain", "with, comma", 'with "quotes"', "line\nbreak", "cr\rhere", "", None,
             "ünïcødé ×", " lead", "trail ", "=1+2", np.nan],
    "repeated": ["same"] * 12,
})


def test_varied_values_are_written_as_pandas_writes_them() -> None:
    assert _fast(VARIED) == _pandas(VARIED)


def test_string_dtype_columns_and_object_columns_agree() -> None:
    frame = VARIED.astype({"text": "string", "repeated": "str"})
    assert _fast(frame) == _pandas(frame)


def test_every_chunk_boundary_keeps_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(csv_text, "CHUNK_ROWS", 5)
    frame = pd.concat([VARIED] * 3, ignore_index=True)
    assert _fast(frame) == _pandas(frame)


def test_empty_table_is_its_header() -> None:
    assert _fast(VARIED.iloc[:0]) == _pandas(VARIED.iloc[:0]) == ",".join(VARIED.columns) + "\n"


def test_kinds_it_does_not_format_go_to_pandas_unchanged() -> None:
    frame = pd.DataFrame({"when": pd.to_datetime(["2026-01-01", "2026-02-01"]),
                          "mixed": [1.5, "text"], "nullable": pd.array([1, None], "Int64")})
    assert _fast(frame) == _pandas(frame)


def test_a_file_gets_the_same_bytes(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours.csv", tmp_path / "theirs.csv"
    csv_text.write_csv(VARIED, ours)
    VARIED.to_csv(theirs, index=False, float_format="%.10g", lineterminator="\n")
    assert ours.read_bytes() == theirs.read_bytes()


_FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64)
_TEXTS = st.one_of(st.none(), st.text(st.sampled_from(list('ab ,"\n\r\t;=é')), max_size=6))


@SETTINGS
@given(st.lists(st.tuples(_FLOATS, _TEXTS, st.integers(-(2**63), 2**63 - 1)), max_size=30))
def test_any_values_are_written_as_pandas_writes_them(
        rows: list[tuple[float, str | None, int]]) -> None:
    frame = pd.DataFrame(rows, columns=["number", "text", "whole"]).astype(
        {"number": float, "whole": np.int64})
    frame["text"] = frame["text"].astype(object)
    assert _fast(frame) == _pandas(frame)
