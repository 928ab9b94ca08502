"""numpy twins of the spreadsheet functions the formula templates may use.

Each quantity is written twice, once as vectorised Python and once as an Excel template; where
Excel and numpy disagree (ROUND is half away from zero, ROUNDUP near integers, MIN/MAX are
scalar), the Python side calls these twins so both give the same numbers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]

# Excel functions a formula template may use (checked when a quantity is registered).
# Identical in LibreOffice 7.4, the `formulas` package and Excel 2007+. NA() is #N/A (a name
# no catalog row has; a gap in a chart line); SUMIF and SUMIFS skip rows whose criteria
# cells are errors, so one broken row cannot turn a total into an error.
PORTABLE_FUNCTIONS = frozenset(
    {
        "IF", "AND", "OR", "NOT", "ISBLANK", "ISNUMBER", "IFERROR",
        "INDEX", "MATCH",
        "MIN", "MAX", "SUM", "SUMPRODUCT", "COUNT", "COUNTIF", "COUNTA",
        "ROUND", "ROUNDUP", "ROUNDDOWN", "INT", "MOD", "ABS", "SQRT", "POWER", "TRIM", "ROW",
        "LOWER", "NA", "ISERROR", "SUMIF", "SUMIFS",
    }
)

# Digits kept before rounding up or down, so that 2.0000000000000004 counts as 2 in both engines
# (LibreOffice and Excel snap near-integers; numpy does not).
SNAP_DIGITS = 9


def xl_round(x: Array, digits: int) -> Array:
    """Excel ROUND: half away from zero."""
    scale = 10.0**digits
    if np.ndim(x) == 0:
        return np.sign(x) * np.floor(np.abs(x) * scale + 0.5) / scale
    # the same operations in the same order, in one array (a million rows: 2 arrays, not 7)
    out = np.abs(x, dtype=np.float64)
    out *= scale
    out += 0.5
    np.floor(out, out=out)
    out *= np.sign(x)
    out /= scale
    return out


def ceil_snapped(x: Array) -> Array:
    """ROUNDUP(ROUND(x, 9), 0) for x ≥ 0: the smallest whole number ≥ x, ignoring float noise."""
    return np.ceil(xl_round(x, SNAP_DIGITS))


def floor_snapped(x: Array) -> Array:
    """INT(ROUND(x, 9)): the largest whole number ≤ x, ignoring float noise."""
    return np.floor(xl_round(x, SNAP_DIGITS))


def concat_text(*parts: Array | str) -> Array:
    """a & b & ...: elementwise text concatenation (columns and literals). Rows share few
    distinct combinations, so each is built once."""
    import pandas as pd

    n = max(len(p) for p in parts if not isinstance(p, str))
    code = np.zeros(n, dtype=np.int64)
    uniques: list[Any] = []
    for part in parts:
        if isinstance(part, str):
            uniques.append(None)
            continue
        part_codes, part_uniques = pd.factorize(np.asarray(part, dtype=object),
                                                use_na_sentinel=False)
        code = code * (len(part_uniques) + 1) + part_codes
        uniques.append((part_codes, part_uniques))
    combos, first = np.unique(code, return_index=True)
    labels = []
    for row in first.tolist():
        labels.append("".join(
            p if isinstance(p, str) else str(u[1][u[0][row]])
            for p, u in zip(parts, uniques, strict=True)
        ))
    return np.array(labels, dtype=object)[np.searchsorted(combos, code)]


def per_distinct(values: Array, fn: Any, dtype: Any = object) -> Array:
    """``fn`` applied to each distinct value once (rows share few distinct texts)."""
    import pandas as pd

    codes, uniques = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=False)
    mapped = np.array([fn(str(u)) for u in uniques.tolist()], dtype=dtype)
    return mapped[codes]


def group_rows(columns: Mapping[str, Array], names: Collection[str],
               n: int) -> tuple[Array, Array]:
    """Rows grouped by their values of the columns ``names`` (numbers by bit pattern, so equal
    groups hold identical inputs; a blank is a value like the others): each row's group,
    numbered in order of first appearance, and each group's first row."""
    import pandas as pd

    code = np.zeros(n, dtype=np.int64)
    size = 1
    for name in names:
        part, count = value_codes(columns[name]) if n else (code, 1)
        if count == 1:
            continue  # one value: one group (overrides are mostly blank)
        code = code * count + part
        size *= count
        if size > 2**31:  # keep the combined code small: renumber the groups so far
            code, kept = pd.factorize(code)
            size = len(kept)
    groups, distinct = pd.factorize(code)
    first = np.empty(len(distinct), dtype=np.intp)
    first[groups[::-1]] = np.arange(n - 1, -1, -1, dtype=np.intp)
    return groups.astype(np.intp), first


# What is known of arrays while :func:`known_codes` is active, by id: the array (kept, so its id
# is not reused), the short array and index it equals row for row (or None), and its codes
# and count once found.
_Codes = tuple[Array, int]


@dataclass
class _Known:
    array: Array
    source: tuple[Array, Array] | None = None  # (table, index): array == table[index]
    codes: _Codes | None = None


_known: ContextVar[dict[int, _Known] | None] = ContextVar("reportgen_known_codes", default=None)


@contextlib.contextmanager
def known_codes() -> Iterator[None]:
    """Inside the block, an array's codes (:func:`value_codes`) are found once, and those of an
    array taken from a short one by index (:func:`taken`) from the short one's, as are its
    comparisons with a text (:func:`equals`): one evaluation groups and compares the same text
    columns many times (a million rows: ~50 ms to group a text column, ~12 ms to compare)."""
    if _known.get() is not None:
        yield
        return
    token = _known.set({})
    try:
        yield
    finally:
        _known.reset(token)


def _entry(values: Array) -> _Known | None:
    memo = _known.get()
    entry = memo.get(id(values)) if memo is not None else None
    return entry if entry is not None and entry.array is values else None


def taken(source: Array, index: Array) -> Array:
    """``source[index]``, remembered as such inside :func:`known_codes`."""
    out = source[index]
    same_as_taken(out, source, index)
    return out


def same_as_taken(values: Array, source: Array, index: Array) -> None:
    """Remember, inside :func:`known_codes`, that ``values`` equals ``source[index]`` row for
    row (a column whose rows repeat a few distinct ones)."""
    entry = _entry(values)
    if entry is not None:
        entry.source = (source, index)
        return
    memo = _known.get()
    if memo is not None:
        memo[id(values)] = _Known(values, (source, index))


def equals(values: Array, text: str) -> Array:
    """``values == text``, row by row (from the short array ``values`` was taken from, where
    known)."""
    entry = _entry(values)
    if entry is not None and entry.source is not None:
        table, index = entry.source
        return (np.asarray(table, dtype=object) == text)[index]  # type: ignore[no-any-return]
    return np.asarray(values == text, dtype=bool)


def value_codes(values: Array) -> _Codes:
    """Each row's value as a number from 0 to count − 1, equal numbers for equal values
    (numbers by bit pattern; blanks, None or NaN, one value), and the count."""
    entry = _entry(values)
    if entry is not None and entry.codes is not None:
        return entry.codes
    if entry is not None and entry.source is not None:
        table, index = entry.source
        codes, count = value_codes(table)
        entry.codes = (np.broadcast_to(np.int64(0), index.shape) if count == 1
                       else codes[index]), count
        return entry.codes
    found = _value_codes(np.asarray(values))
    memo = _known.get()
    if memo is not None:
        memo[id(values)] = _Known(values, None, found)
    return found


def _value_codes(values: Array) -> _Codes:
    import pandas as pd

    if values.dtype.kind == "f":
        values = np.ascontiguousarray(values, dtype=np.float64).view(np.int64)
    if len(values) == 0 or (values == values[0]).all():
        return np.broadcast_to(np.int64(0), values.shape), 1  # zeros, none stored
    part, uniques = pd.factorize(values)
    count = len(uniques)
    if values.dtype.kind != "i" and part.min() < 0:  # blanks (None, NaN): one more value
        part = np.where(part < 0, count, part)  # faster than use_na_sentinel=False
        count += 1
    return part.astype(np.int32), count  # half the memory while the codes are kept


def per_combination(fn: Any, *columns: Array, dtype: Any = object) -> Array:
    """``fn(a, b, ...)`` applied once to each distinct combination of the columns' values
    (rows share few distinct combinations of texts and catalog figures)."""
    named = {str(k): np.asarray(column) for k, column in enumerate(columns)}
    groups, first = group_rows(named, list(named), len(columns[0]))
    mapped = [fn(*(column[row] for column in named.values())) for row in first.tolist()]
    table: Array = np.empty(len(mapped), dtype=dtype)
    table[:] = mapped
    return table[groups]


def lower(text: Array) -> Array:
    """LOWER(text), elementwise."""
    return per_distinct(text, str.lower)


def has_key(candidates: Array, keys: Array) -> Array:
    """SUMPRODUCT((keys=candidate)*1)>0, elementwise: whether each candidate is one of the keys
    (ignoring case, as a spreadsheet's = does)."""
    known = {str(k).lower() for k in np.asarray(keys, dtype=object).tolist()}
    return per_distinct(candidates, lambda u: u.lower() in known, dtype=bool)


def table_row(keys: Array, key: Array) -> Array:
    """IF(SUMPRODUCT((keys=key)*1)=1,<its position>,NA()), elementwise: the 1-based position of
    each key among ``keys`` (ignoring case, as a spreadsheet's = does); NaN, the #N/A of the
    spreadsheet, where no key matches or several do."""
    lowered = [str(k).lower() for k in np.asarray(keys, dtype=object).tolist()]
    position = {k: float(i + 1) for i, k in enumerate(lowered) if lowered.count(k) == 1}
    return per_distinct(key, lambda u: position.get(u.lower(), np.nan), dtype=float)


def choose(conditions: Sequence[Array], labels: Sequence[str], default: str) -> Array:
    """Nested IF(c1,"l1",IF(c2,"l2",...,default)): the label of the first condition that holds."""
    index = np.select(list(conditions), list(range(len(labels))), default=len(labels))
    table: Array = np.array([*labels, default], dtype=object)
    return taken(table, index)  # grouped later from the labels' codes
