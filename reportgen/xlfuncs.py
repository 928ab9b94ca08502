"""numpy twins of the spreadsheet functions the formula templates may use.

Each quantity is written twice, once as vectorised Python and once as an Excel template; where
Excel and numpy disagree (ROUND is half away from zero, ROUNDUP near integers, MIN/MAX are
scalar), the Python side calls these twins so both give the same numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]

# Excel functions a formula template may use (checked when a quantity is registered).
# Identical in LibreOffice 7.4, the `formulas` package and Excel 2007+.
PORTABLE_FUNCTIONS = frozenset(
    {
        "IF", "AND", "OR", "NOT", "ISBLANK", "ISNUMBER", "IFERROR",
        "INDEX", "MATCH",
        "MIN", "MAX", "SUM", "SUMPRODUCT", "COUNT", "COUNTIF", "COUNTA",
        "ROUND", "ROUNDUP", "ROUNDDOWN", "INT", "MOD", "ABS", "SQRT", "POWER", "TRIM",
    }
)

# Digits kept before rounding up or down, so that 2.0000000000000004 counts as 2 in both engines
# (LibreOffice and Excel snap near-integers; numpy does not).
SNAP_DIGITS = 9


def xl_round(x: Array, digits: int) -> Array:
    """Excel ROUND: half away from zero."""
    scale = 10.0**digits
    return np.sign(x) * np.floor(np.abs(x) * scale + 0.5) / scale


def ceil_snapped(x: Array) -> Array:
    """ROUNDUP(ROUND(x, 9), 0) for x ≥ 0: the smallest whole number ≥ x, ignoring float noise."""
    return np.ceil(xl_round(x, SNAP_DIGITS))


def floor_snapped(x: Array) -> Array:
    """INT(ROUND(x, 9)): the largest whole number ≤ x, ignoring float noise."""
    return np.floor(xl_round(x, SNAP_DIGITS))


def text_join(*parts: Array) -> Array:
    """TRIM(a & b & ...): concatenate sentences and squeeze the spaces, as Excel's TRIM does."""
    joined = parts[0].astype(object)
    for part in parts[1:]:
        joined = joined + part.astype(object)
    return np.array([" ".join(str(s).split()) for s in joined], dtype=object)


def phrase(condition: Array, text: str) -> Array:
    """IF(condition, "text ", ""): a sentence of the notes, present where the condition holds."""
    return np.where(condition, text + " ", "").astype(object)
