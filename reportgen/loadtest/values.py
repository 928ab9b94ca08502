"""Small, forgiving accessors for values inside a tool's result document: numbers that may be
strings ("550", "1,234.56"), nested keys that older versions lack, dates in the tools' formats."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from typing import Any

NAN = math.nan
STACK_FACTS = ("gpu", "tp", "weight_dtype", "kv_dtype", "engine", "engine_version",
               "instances", "max_batch")  # what a file's labels or metadata may say


def num(value: Any) -> float:
    """A number, or NaN for anything that is not one (None, "N/A", "", a dict)."""
    if isinstance(value, bool):
        return NAN
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip().replace(",", "")
        try:
            return float(text)
        except ValueError:
            return NAN
    return NAN


def dig(value: Any, *path: str | int) -> Any:
    """``value[p0][p1]…``, or None where any step is missing or of the wrong kind."""
    for step in path:
        listed = isinstance(step, int) and isinstance(value, list) and abs(step) < len(value)
        keyed = isinstance(step, str) and isinstance(value, Mapping) and step in value
        if not (listed or keyed):
            return None
        value = value[step]
    return value


def first_text(*candidates: Any) -> str:
    """The first candidate that is a non-empty string (or a list whose first item is one)."""
    for value in candidates:
        if isinstance(value, list) and value and isinstance(value[0], str):
            value = value[0]
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def epoch_date(seconds: Any) -> str:
    """An ISO date from seconds since the epoch (UTC); "" if not a plausible time."""
    value = num(seconds)
    if not math.isfinite(value) or value < 1e9 or value > 1e10:
        return ""
    return dt.datetime.fromtimestamp(value, tz=dt.UTC).date().isoformat()


_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")
_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})-\d{6}$")  # vLLM: 20250530-203806


def text_date(value: Any) -> str:
    """An ISO date from "2025-05-30…" or vLLM's "20250530-203806"; "" otherwise."""
    if not isinstance(value, str):
        return ""
    match = _ISO.match(value.strip()) or _COMPACT.match(value.strip())
    if not match:
        return ""
    try:
        return dt.date(*(int(g) for g in match.groups())).isoformat()
    except ValueError:
        return ""


def facts(labels: Any) -> dict[str, str]:
    """The stack facts among a file's labels or metadata (keys as the stack file names them)."""
    if not isinstance(labels, Mapping):
        return {}
    found = {}
    for key, value in labels.items():
        name = str(key).strip().lower().replace("-", "_")
        if name in STACK_FACTS and isinstance(value, str | int | float) and str(value).strip():
            found[name] = str(value).strip()
    return found


def rate_text(rate: Any) -> str:
    """A configured request rate in words ("unlimited" for inf)."""
    value = num(rate)
    if isinstance(rate, str) and rate.strip().lower() in ("inf", "infinity"):
        return "unlimited"
    return "unlimited" if math.isinf(value) else f"{value:g} req/s" if math.isfinite(value) else ""
