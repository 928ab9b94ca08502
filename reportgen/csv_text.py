"""Tables as CSV text, fast: each distinct value of a column is formatted once.

The text is byte for byte what ``DataFrame.to_csv(index=False, float_format=FLOAT_FORMAT,
lineterminator="\\n")`` writes — numbers as ``%.10g``, a missing value as an empty field,
text quoted as the csv module quotes it — but pandas formats every cell in Python, which for a
results table of 100,000 rows and 130 columns takes tens of seconds. Here a column's cells are
grouped by value (``pandas.factorize``), each distinct value is formatted and quoted once, and
the rows are joined in chunks, so memory stays bounded however long the table.

Columns of other kinds (dates, mixed objects, ...) are handed to pandas as they are: the text
is the same, only slower.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import numpy as np
import pandas as pd

FLOAT_FORMAT = "%.10g"  # 10 significant digits
CHUNK_ROWS = 20_000  # rows formatted and written at once
SMALL = 64  # columns this short are formatted cell by cell (factorizing costs more)


def _quoting_characters() -> str:
    """The characters that make this Python's csv module quote a field (QUOTE_MINIMAL, "\n"
    line ends, as pandas writes): the delimiter, the quote and the line end always; a carriage
    return depends on the Python version."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    found = ""
    for character in ',"\n\r\t ;\'\\':
        buffer.seek(0)
        buffer.truncate()
        writer.writerow((f"a{character}b", ""))
        if buffer.getvalue().startswith('"'):
            found += character
    return found


_SPECIAL = re.compile("[" + re.escape(_quoting_characters()) + "]")


def _quoted(texts: list[str]) -> list[str]:
    """Each text as the csv module writes it inside a row of several fields (QUOTE_MINIMAL,
    quotes doubled): as it is, unless it holds a delimiter, a quote or a line break; then in
    quotes, its quotes doubled."""
    return [t if _SPECIAL.search(t) is None else '"' + t.replace('"', '""') + '"'
            for t in texts]


def _is_text(values: np.ndarray) -> bool:
    return all(isinstance(v, str) or v is None or (isinstance(v, float) and np.isnan(v))
               for v in values)


def _handled(column: pd.Series) -> bool:
    """Whether the column is of a kind formatted here: numpy numbers or booleans, or text."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "fiub":
        return True
    if isinstance(dtype, np.dtype) and dtype.kind == "O":
        return _is_text(np.asarray(pd.unique(column.to_numpy()), dtype=object))
    return pd.api.types.is_string_dtype(dtype)


def _values(column: pd.Series) -> tuple[str, np.ndarray]:
    """A handled column's kind ("f" numbers, "i" integers or booleans, "O" text) and cells."""
    kind = column.dtype.kind if isinstance(column.dtype, np.dtype) else "O"
    if kind == "f":
        return kind, np.ascontiguousarray(column.to_numpy(dtype=np.float64))
    if kind in "iub":
        return "i", column.to_numpy()
    return "O", column.to_numpy(dtype=object)


def _float_text(value: float) -> str:
    text = FLOAT_FORMAT % value
    return "" if text == "nan" else text  # missing: an empty field


def _blank(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _fields(kind: str, values: np.ndarray) -> list[str]:
    """The cells of a column (see :func:`_values`) as CSV fields."""
    if len(values) <= SMALL:  # a few rows: a dictionary beats factorizing
        seen: dict[object, str] = {}
        if kind == "f":  # by bit pattern, so that -0.0 ("-0") and 0.0 ("0") stay apart
            bits = values.view(np.int64).tolist()
            return [seen[b] if b in seen else seen.setdefault(b, _float_text(v))
                    for b, v in zip(bits, values.tolist(), strict=True)]
        if kind == "i":
            return [str(v) for v in values.tolist()]
        return ["" if _blank(v) else seen[v] if v in seen else
                seen.setdefault(v, _quoted([str(v)])[0]) for v in values.tolist()]
    if kind == "f":
        # by bit pattern, so that -0.0 ("-0") and 0.0 ("0") stay apart
        codes, distinct = pd.factorize(values.view(np.int64))
        texts = [_float_text(v) for v in distinct.view(np.float64)]
    elif kind == "i":
        codes, distinct = pd.factorize(values)
        texts = [str(v) for v in distinct]
    else:
        codes, distinct = pd.factorize(values, use_na_sentinel=True)
        texts = [*_quoted([str(v) for v in distinct]), ""]  # code -1 (missing): the last
    table = np.asarray(texts, dtype=object)
    fields: list[str] = table[codes].tolist()
    return fields


def quoted_field(text: str) -> str:
    """``text`` as a CSV field among others (quoted if it must be)."""
    return _quoted([text])[0]


def _chunks(header: list[str] | None, columns: list[tuple[str, np.ndarray]], n: int
            ) -> Iterator[str]:
    if header is not None:
        yield ",".join(_quoted(header)) + "\n"
    for start in range(0, n, CHUNK_ROWS):
        fields = [_fields(kind, values[start : start + CHUNK_ROWS]) for kind, values in columns]
        yield "\n".join(map(",".join, zip(*fields, strict=True))) + "\n"


def write_csv(frame: pd.DataFrame, target: Path | TextIO, header: bool = True) -> None:
    """``frame`` as UTF-8 CSV (no index, numbers to 10 significant digits, "\\n" line ends);
    ``header``: False leaves out the line of column names (rows that continue a file)."""
    series = [column for _, column in frame.items()]
    if len(series) < 2 or not all(map(_handled, series)):
        frame.to_csv(target, index=False, float_format=FLOAT_FORMAT, lineterminator="\n",
                     header=header)
        return
    names = [str(c) for c in frame.columns] if header else None
    columns = [_values(column) for column in series]
    if isinstance(target, Path):
        with target.open("w", encoding="utf-8", newline="") as stream:
            for text in _chunks(names, columns, len(frame)):
                stream.write(text)
    else:
        for text in _chunks(names, columns, len(frame)):
            target.write(text)
