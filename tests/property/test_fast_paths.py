"""The fast paths read exactly what the per-cell paths read (Hypothesis).

Reading and validation take a strict fast path over whole columns (pandas' C tokenizer for CSV
without quotes; bulk conversion of plain numbers) and keep the per-cell code for the cells that
fail it. Whatever the cells, both paths must give the same cells, numbers and messages. The
engine computes the quantities rows of one configuration share once per configuration: the
results must be the same, bit for bit, as computing every row. The inputs digest builds its
lines a block at a time in key order: it must hash what its definition says.
"""

from __future__ import annotations

import functools
import hashlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen import digest, engine, schema, xlfuncs
from reportgen.plan import Plan
from reportgen.readers import Grid, _csv_records, _header, _plain_csv
from reportgen.validate import _Collector, _numbers, _numbers_per_cell
from tests.helpers import build_plan
from tests.parity.conftest import PARITY_ROWS

SETTINGS = settings(max_examples=300, deadline=None, derandomize=True)

_CELL = st.text(st.sampled_from(list("ab1.,; -_\t\u00e9\u200b\u00a0x9eE+")), max_size=6)
_LINE_END = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def _unquoted_csv(draw: st.DrawFn) -> str:
    width = draw(st.integers(1, 5))
    header = [draw(st.text("abc", min_size=1, max_size=3)) for _ in range(width)]
    lines = [",".join(header)]
    for _ in range(draw(st.integers(0, 6))):
        cells = draw(st.lists(_CELL.filter(lambda c: "," not in c), max_size=width))
        lines.append(",".join(cells))
    end = draw(_LINE_END)
    return end.join(lines) + draw(st.sampled_from(["", end]))


@SETTINGS
@given(_unquoted_csv())
def test_csv_without_quotes_reads_the_same_by_both_paths(text: str) -> None:
    fast = _plain_csv(text, ",")
    if fast is None:
        return  # the csv module reads it (a case the fast path declines is not a wrong reading)
    records = _csv_records("t.csv", text, ",", 0)
    header = _header(records[0])
    slow = Grid.from_rows(list(enumerate(records[1:], start=2)), len(header))
    assert fast[0] == header

    def cells(grid: Grid) -> list[tuple[int, list[object]]]:
        # the csv module gives [] for an empty line, pandas a row of "": both are blank cells
        return [(n, ["" if c is None else c for c in row]) for n, row in grid]

    assert cells(fast[1]) == cells(slow)


_NUMBERISH = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-10**6, 10**7).map(str),
    st.text(st.sampled_from(list("0123456789.,eE+-_ %")), max_size=8),
    st.sampled_from(["", " ", "1,5", "1.000", "1'000", "10%", "nan", "inf", "1e400", "٣",
                     "5e-324", " 8 ", "1_0"]),
)


@SETTINGS
@given(st.lists(st.one_of(_NUMBERISH, st.none()), min_size=1, max_size=12),
       st.sampled_from([c for c in schema.COLUMNS if c.type == "number"]), st.booleans())
def test_numbers_fast_path_matches_the_per_cell_parser(
    cells: list[str | None], column: schema.Column, semicolon: bool,
) -> None:
    """Text cells (and None: a cell a short row lacks) read the same by both paths."""
    rows = list(range(2, 2 + len(cells)))
    names = [f"s{i}" for i in range(len(cells))]
    fast_out, slow_out = _Collector("t.csv"), _Collector("t.csv")
    fast = _numbers(list(cells), column, rows, names, semicolon, fast_out)
    slow = _numbers_per_cell(list(cells), column, rows, names, semicolon, slow_out)
    np.testing.assert_array_equal(fast, slow)
    key = lambda issue: (issue.row, issue.column)  # noqa: E731
    assert sorted(fast_out.issues, key=key) == sorted(slow_out.issues, key=key)


@pytest.mark.parametrize("values", [[1.0, None, 3], [10**400, 2.0], [True, 1.0]])
def test_numbers_from_xlsx_cells_match_the_per_cell_parser(values: list[object]) -> None:
    column = schema.BY_NAME["peak_qps"]
    rows, names = [2, 3, 4][: len(values)], ["a", "b", "c"][: len(values)]
    fast_out, slow_out = _Collector("t.xlsx"), _Collector("t.xlsx")
    fast = _numbers(list(values), column, rows, names, False, fast_out)
    slow = _numbers_per_cell(list(values), column, rows, names, False, slow_out)
    np.testing.assert_array_equal(fast, slow)
    assert fast_out.issues == slow_out.issues


@functools.cache
def _parity_plan() -> Plan:
    return build_plan(PARITY_ROWS)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, len(PARITY_ROWS) - 1), min_size=1, max_size=6),
       st.lists(st.tuples(st.sampled_from([1.0, 2.0, 4.0, 8.0]),
                          st.sampled_from(["vllm", "sglang", "tensorrt-llm"])),
                min_size=1, max_size=3),
       st.lists(st.floats(0.01, 100.0), min_size=1, max_size=5),
       st.integers(2 * engine.SHARE_MIN_ROWS, 3 * engine.SHARE_MIN_ROWS),
       st.sampled_from([None, 1.0, 64.0]))
def test_shared_quantities_equal_row_by_row(pool: list[int], variants: list[tuple[float, str]],
                                            rates: list[float], n: int,
                                            batch: float | None) -> None:
    """Parity rows (every bottleneck, engine, precision and method) repeated with other tensor
    parallelisms, engines and rates: estimated with the shared quantities once per
    configuration, and every row computed on its own, give identical results (a pinned batch,
    as the batch curves pin it, too)."""
    plan = _parity_plan()
    frame = plan.scenarios.iloc[[pool[i % len(pool)] for i in range(n)]].reset_index(drop=True)
    variant = [variants[(i // len(pool)) % len(variants)] for i in range(n)]
    frame["tp"] = [tp for tp, _ in variant]
    frame["engine"] = [name for _, name in variant]
    frame["peak_qps"] = [rates[i % len(rates)] for i in range(n)]
    overrides = None if batch is None else {"batch": batch}
    shared = engine.estimate(frame, plan.tables, overrides=overrides)
    alone = engine.evaluate(engine.input_arrays(frame), n, plan.tables, overrides=overrides)
    _, context = engine.shared_quantities(frozenset(overrides or ()))
    _, first = xlfuncs.group_rows(engine.input_arrays(frame), context, n)
    assert len(first) <= n // 2  # the shared quantities were computed once per group
    for name in engine.RESULT_COLUMNS:
        got, want = shared[name].to_numpy(), np.asarray(alone[name])
        if want.dtype.kind == "f":
            got = got.astype(float)
            same = (got.view(np.int64) == want.view(np.int64)) | (np.isnan(got) & np.isnan(want))
            assert same.all(), name
        else:
            assert got.tolist() == want.tolist(), name


_VALUE = st.one_of(st.sampled_from(["", "a", "b", "fp8"]), st.sampled_from([1.0, 2.0, np.nan]))


@SETTINGS
@given(st.integers(1, 3).flatmap(lambda k: st.lists(
    st.tuples(*[_VALUE] * k), min_size=1, max_size=12)))
def test_text_helpers_equal_their_row_by_row_meaning(rows: list[tuple[object, ...]]) -> None:
    """per_combination, per_distinct and concat_text work on each distinct value once; their
    results equal applying the function row by row, blanks (NaN) included."""
    columns = [np.array(column, dtype=object) for column in zip(*rows, strict=True)]
    words = xlfuncs.per_combination(lambda *v: "|".join(map(str, v)), *columns).tolist()
    assert words == ["|".join(map(str, row)) for row in rows]
    assert xlfuncs.per_distinct(columns[0], str.upper).tolist() == [
        str(v).upper() for v in columns[0]]
    joined = xlfuncs.concat_text(*columns, "!").tolist()
    assert joined == ["".join(map(str, row)) + "!" for row in rows]


_TABLE_VALUE = st.one_of(st.sampled_from(["", "a", "b", None]),
                         st.sampled_from([1.0, 2.0, -0.0, 0.0, np.nan]))


@SETTINGS
@given(st.lists(st.lists(_TABLE_VALUE, min_size=1, max_size=5), min_size=1, max_size=3),
       st.lists(st.integers(0, 10**6), min_size=1, max_size=40))
def test_grouping_from_known_codes_equals_grouping_the_values(
        tables: list[list[object]], picks: list[int]) -> None:
    """Columns taken from short tables by index (as the engine's lookups and shared quantities
    are) group the rows exactly as their values do: the same groups, the same first rows,
    whether each column's codes come from its table or from hashing its values."""
    sources = [np.array(t, dtype=float if all(isinstance(v, float) for v in t) else object)
               for t in tables]
    n = len(picks)
    with xlfuncs.known_codes():
        columns = {str(k): xlfuncs.taken(s, np.array([p % len(s) for p in picks]))
                   for k, s in enumerate(sources)}
        known = xlfuncs.group_rows(columns, list(columns), n)
    plain = xlfuncs.group_rows({k: v.copy() for k, v in columns.items()}, list(columns), n)
    assert known[0].tolist() == plain[0].tolist()
    assert known[1].tolist() == plain[1].tolist()


@SETTINGS
@given(st.lists(_TABLE_VALUE, min_size=1, max_size=5), st.lists(st.integers(0, 10**6), max_size=40),
       st.sampled_from(["", "a", "b", "tutorial"]))
def test_comparing_from_a_short_source_equals_comparing_the_values(
        table: list[object], picks: list[int], text: str) -> None:
    """A column remembered as taken from a short array compares with a text exactly as its
    values do (blanks, None and NaN, never equal to a text)."""
    source = np.array(table, dtype=object)
    index = np.array([p % len(source) for p in picks], dtype=np.intp)
    with xlfuncs.known_codes():
        column = xlfuncs.taken(source, index)
        known = xlfuncs.equals(column, text)
    assert known.dtype == bool
    assert known.tolist() == [v == text for v in source[index].tolist()]


_KEY = st.text(st.sampled_from(list("aA-\t\x01\\\u00e9")), max_size=3)
_DIGEST_CELL = st.one_of(st.none(), st.sampled_from([0.0, -0.0, 1.0, 2.5, np.nan]),
                         st.text("xy\t\n", max_size=3))


def _digest_by_definition(name: str, frame: dict[str, list[object]], keys: list[str],
                          skip: dict[str, str]) -> str:
    """The digest as its module docstring defines it, a line at a time."""
    lines = []
    for i, key in enumerate(keys):
        line = digest._cell(key)
        for column in sorted(frame):
            text = digest._cell(frame[column][i])
            if text not in ("", skip.get(column, "")):
                line += "\t" + column + "=" + text
        lines.append(line)
    text = f"{digest.SCHEME} {name}" + "".join("\n" + line for line in sorted(lines))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@SETTINGS
@given(st.integers(0, 12).flatmap(lambda n: st.tuples(
    st.lists(_KEY, min_size=n, max_size=n),
    st.lists(_DIGEST_CELL, min_size=n, max_size=n),
    st.lists(_DIGEST_CELL, min_size=n, max_size=n))), st.sampled_from([1, 2, 5, 50_000]))
def test_digest_built_a_block_at_a_time_equals_its_definition(
        drawn: tuple[list[str], list[object], list[object]], block: int) -> None:
    """Lines built in key order a block at a time (unique keys, some the start of another) or
    all at once and sorted (repeated keys, or a key with a character that sorts before a tab)
    hash as the definition says; rows with no field are lines of their key alone."""
    keys, a, b = drawn
    frame = {"b": a, "a": b}
    skip = {"a": "1"}
    expected = _digest_by_definition("t", frame, keys, skip)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(digest, "_ROWS_AT_ONCE", block)
        patch.setattr(digest, "SMALL", -1)  # long-column encoding even for a few rows
        series = {c: pd.Series(v, dtype=object) for c, v in frame.items()}
        assert digest._digest("t", series, pd.Series(keys, dtype=object), skip) == expected
