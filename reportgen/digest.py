"""Canonical digests of what a plan was computed from, stamped in every output.

The input file's SHA-256 names the file; it cannot be recomputed from a workbook or a results
CSV. These digests can: they hash the *meaning* of the validated inputs, so a reader of an output
recomputes them from what the output holds and tells whether anything was edited since.

* ``inputs_digest``: the scenario rows as validated (model and GPU as catalog names, choice
  defaults filled). Row order, column order, blank cells, a choice written out at its default
  and ``20`` against ``20.0`` do not change it; any value that changes the plan does.
* ``reference_digest``: the constants and the GPU, model and efficiency tables the estimate read.

Canonical form: one line per row, ``key<TAB>column=value<TAB>...`` over the row's non-blank
cells (NaN and "" left out) with columns sorted by name, numbers as the shortest text that
reads back as the same double (``repr(float)``), text as it is (backslash, tab and line breaks
escaped); lines sorted; SHA-256 of the lines joined by newlines under a header naming the
scheme and the table. A column holding numbers and text (a constants table) writes each cell
in its own kind. A digest is stamped as ``<scheme>:<hex>`` (e.g. ``rgd3:88bb…``).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from reportgen import schema
from reportgen.engine import Tables

SCHEME = "rgd3"  # stamped as the digest's prefix: a later scheme is told apart from an edit
_CHOICE_DEFAULTS = {c.name: c.default for c in schema.COLUMNS if c.type == "choice"}
_BELOW_TAB = re.compile("[\x00-\x08]")
_ESCAPE = str.maketrans({"\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"})


def _cell(value: object) -> str:
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, str):
        if "\\" in value or "\n" in value or "\t" in value or "\r" in value:
            return value.translate(_ESCAPE)
        return value
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(value).translate(_ESCAPE)
    return "" if math.isnan(number) else repr(number + 0.0)  # -0.0 + 0.0 == 0.0


_ROWS_AT_ONCE = 50_000  # lines built and hashed at once (all of a million rows': 300 MB)
SMALL = 64  # columns this short are encoded cell by cell (factorizing costs more)


def encode_unique(values: pd.Series, encode: Callable[[object], str]) -> np.ndarray:
    """``encode`` of every cell as an object array, called once per distinct value; blank
    cells (None, NaN) give ""."""
    codes, table = encoded(values, encode)
    return np.asarray(table[codes])


def encoded(values: pd.Series, encode: Callable[[object], str]) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's position in a table of ``encode`` of each distinct value (a blank cell's:
    an entry ""); the positions in the smallest integers that hold them."""
    if len(values) <= SMALL:
        seen: dict[object, str] = {}
        out = []
        for value in values.tolist():
            if value is None or value is pd.NA or (isinstance(value, float) and value != value):
                out.append("")
            elif value in seen:
                out.append(seen[value])
            else:
                out.append(seen.setdefault(value, encode(value)))
        return np.arange(len(out)), np.array(out, dtype=object)
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    table = np.array([*map(encode, np.asarray(uniques, dtype=object).tolist()), ""],
                     dtype=object)
    blank = len(table) - 1  # code -1 (blank) picks the trailing ""
    return np.where(codes < 0, blank, codes).astype(np.min_scalar_type(blank)), table


def _digest(name: str, frame: Mapping[str, pd.Series], keys: pd.Series,
            skip: Mapping[str, str] | None = None) -> str:
    """One line per row, ``key\tcolumn=value\t...`` over the non-blank cells of the columns
    of ``frame`` (by name), columns sorted by name, lines sorted; SHA-256 of the lines under a
    header naming the scheme and table."""
    encoders: list[tuple[str, Callable[[object], str]]] = []
    for column in sorted(frame):
        prefix = "\t" + column.translate(_ESCAPE) + "="
        left_out = {"", skip[column]} if skip is not None and column in skip else {""}

        def field(value: object, prefix: str = prefix, left_out: set[str] = left_out) -> str:
            text = _cell(value)
            return "" if text in left_out else prefix + text

        encoders.append((column, field))
    key_text = encode_unique(keys.astype(str), _cell)
    cells = [encoded(frame[column], encode) for column, encode in encoders]

    def lines(rows: np.ndarray) -> list[str]:
        fields = [key_text[rows].tolist(), *(table[codes[rows]].tolist() for codes, table in cells)]
        return list(map("".join, zip(*fields, strict=True)))  # each line joined once

    digest = hashlib.sha256(f"{SCHEME} {name}".encode())
    texts = key_text.tolist()
    if pd.Series(key_text, dtype=object).is_unique and not _BELOW_TAB.search("".join(texts)):
        # distinct keys, none holding a character that sorts before the tab that starts a
        # field: the lines sort as their keys do, so they are built in that order a block at
        # a time (a million rows never hold all their lines at once)
        order = np.array(sorted(range(len(texts)), key=texts.__getitem__), dtype=np.intp)
        blocks = (lines(order[start:start + _ROWS_AT_ONCE])
                  for start in range(0, len(order), _ROWS_AT_ONCE))
    else:
        every = sorted(lines(np.arange(len(key_text))))
        blocks = (every[start:start + _ROWS_AT_ONCE]
                  for start in range(0, len(every), _ROWS_AT_ONCE))
    for block in blocks:  # "\n" before each line
        digest.update(("\n" + "\n".join(block)).encode("utf-8"))
    return digest.hexdigest()


def as_typed(scenarios: pd.DataFrame, specs: pd.DataFrame | None) -> pd.DataFrame:
    """Validated rows with each searched cell holding its spec ("auto", "a|b") as typed:
    validation keeps those beside the frame and leaves the cell blank (validate.py)."""
    if specs is None or specs.empty:
        return scenarios
    typed = scenarios.copy()
    for column in specs.columns:
        typed[column] = _typed_column(scenarios, specs, column)
    return typed


def _typed_column(scenarios: pd.DataFrame, specs: pd.DataFrame | None, name: str) -> pd.Series:
    """Column ``name`` of :func:`as_typed` (the scenarios' own column when nothing was
    searched in it: not copied)."""
    column = scenarios[name]
    if specs is None or name not in specs.columns:
        return column
    given = specs[name].fillna("").astype(str).to_numpy()
    searched = given != ""
    if not searched.any():
        return column
    values = column.to_numpy(dtype=object, copy=True)
    values[searched] = given[searched]
    return pd.Series(values, index=column.index, name=name)


def inputs_digest(scenarios: pd.DataFrame, specs: pd.DataFrame | None = None) -> str:
    """Digest of validated scenario rows (every schema column present) and their search specs,
    keyed by scenario name (unique ignoring case, so the key is the lower-case name)."""
    columns = {c.name: _typed_column(scenarios, specs, c.name) for c in schema.COLUMNS
               if c.name in scenarios.columns}
    return f"{SCHEME}:" + _digest("scenarios", columns,
                                  columns["scenario"].astype(str).str.lower(), _CHOICE_DEFAULTS)


def reference_digest(tables: Tables, constants: Mapping[str, float | str]) -> str:
    """Digest of the constants and the lookup tables an estimate read."""
    names = pd.Series(list(constants), dtype=object)
    values = pd.DataFrame({"value": pd.Series(list(constants.values()), dtype=object)})
    parts = [_digest("constants", _by_name(values), names)]
    for name, table in (("gpus", tables.gpus), ("models", tables.models),
                        ("efficiency", tables.efficiency)):
        parts.append(_digest(name, _by_name(table.reset_index(drop=True)),
                             pd.Series(table.index.astype(str), dtype=object)))
    return f"{SCHEME}:" + hashlib.sha256("\n".join(parts).encode("ascii")).hexdigest()


def _by_name(frame: pd.DataFrame) -> dict[str, pd.Series]:
    return {str(name): column for name, column in frame.items()}


def scheme_of(digest: str) -> str:
    """The scheme a stamped digest was computed with ("" when none was stamped)."""
    return digest.split(":", 1)[0] if ":" in digest else ("rgd1" if digest else "")
