"""The quantity registry: every derived number, defined once, in Python and as an Excel formula.

A :class:`Quantity` holds its name (= results column = Plan sheet header), unit, a one-line
meaning, a vectorised Python function and an Excel formula template over the same inputs. The
engine evaluates the registry in definition order; the workbook writes each template as a live
formula; the Method sheet and the PDF's method appendix print the same entries.

Names a function parameter (and a ``{placeholder}`` in its template) may use:

* ``raw_<column>``  a scenario input cell as the user wrote it (blank = NaN / "")
* ``gpu__<field>``, ``model__<field>``  the catalog row of the scenario's GPU or model
* ``eff__<field>``  the efficiency row for the scenario's ``efficiency_key``
* ``keys__<prefix>``  every key of a lookup table (e.g. ``keys__eff``: the efficiency table's
  keys), so a quantity can test whether a key exists before it is looked up
* ``UPPER_SNAKE``   a global constant (units.CONSTANTS; a workbook defined name)
* any earlier quantity's name

Registration checks, at import time (so in every test run), that the template's placeholders are
exactly the function's parameters, that constants exist, that only portable spreadsheet functions
are used, that no exponent literal (1E9) or unary minus before ^ appears, and that names are new.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from reportgen.units import CONSTANTS
from reportgen.xlfuncs import PORTABLE_FUNCTIONS

Kind = Literal["number", "text"]
LOOKUP_PREFIXES = ("gpu__", "model__", "eff__")
KEYS_PREFIX = "keys__"
# The quantity that positions each lookup: the row of the table its figures are read from.
LOOKUP_KEYS = {"gpu": "gpu_row", "model": "model_row", "eff": "efficiency_row"}
RAW_PREFIX = "raw_"

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_FUNCTION = re.compile(r"([A-Z][A-Z0-9.]*)\(")
_EXPONENT_LITERAL = re.compile(r"(?<![A-Za-z_$])\d+(\.\d+)?[eE][+-]?\d+")
_STRING_LITERAL = re.compile(r'"[^"]*"')


@dataclass(frozen=True)
class Quantity:
    """One derived number (or label) per scenario."""

    name: str
    unit: str
    doc: str
    inputs: tuple[str, ...]
    compute: Callable[..., Any]
    excel: str
    kind: Kind
    section: str

    def formula(self, refs: dict[str, str]) -> str:
        """The Excel formula (with leading '=') given a cell reference for every input."""
        return "=" + _PLACEHOLDER.sub(lambda m: refs[m.group(1)], self.excel)


REGISTRY: dict[str, Quantity] = {}


@functools.cache
def input_kind(name: str) -> str:
    """Classify an input name: 'raw', 'lookup', 'keys', 'constant' or 'quantity'."""
    if name.startswith(RAW_PREFIX):
        return "raw"
    if name.startswith(KEYS_PREFIX):
        return "keys"
    if name.startswith(LOOKUP_PREFIXES):
        return "lookup"
    if name.isupper():
        return "constant"
    return "quantity"


def keyed_inputs(name: str) -> list[tuple[str, str]]:
    """Quantity ``name``'s inputs as (kind, name), a lookup standing for the quantity that
    positions it (``gpu__memory`` reads ``gpu_row``): what it depends on."""
    out = []
    for item in REGISTRY[name].inputs:
        if input_kind(item) == "lookup":
            item = LOOKUP_KEYS[item.split("__", 1)[0]]
        out.append((input_kind(item), item))
    return out


def _check(name: str, params: tuple[str, ...], excel: str) -> None:
    if name in REGISTRY:
        raise ValueError(f"quantity {name!r} is defined twice")
    placeholders = set(_PLACEHOLDER.findall(excel))
    if placeholders != set(params):
        raise ValueError(
            f"quantity {name!r}: template placeholders {sorted(placeholders)} differ from the "
            f"function's parameters {sorted(params)}"
        )
    bare = _STRING_LITERAL.sub('""', _PLACEHOLDER.sub("0", excel))
    depth = 0
    for char in bare:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            break
    if depth != 0:
        raise ValueError(f"quantity {name!r}: unbalanced parentheses in its template")
    unknown = set(_FUNCTION.findall(bare)) - PORTABLE_FUNCTIONS
    if unknown:
        raise ValueError(f"quantity {name!r} uses non-portable functions {sorted(unknown)}")
    if _EXPONENT_LITERAL.search(bare):
        raise ValueError(f"quantity {name!r}: write 10^9, not an exponent literal")
    if re.search(r"-\s*[0-9A-Za-z_.()]+\s*\^", bare):
        raise ValueError(f"quantity {name!r}: parenthesise unary minus before ^")
    for param in params:
        kind = input_kind(param)
        if kind == "constant" and param not in CONSTANTS:
            raise ValueError(f"quantity {name!r} uses unknown constant {param}")
        if kind == "keys" and param.removeprefix(KEYS_PREFIX) not in LOOKUP_KEYS:
            raise ValueError(f"quantity {name!r} reads the keys of unknown table {param}")


def quantity(
    unit: str, excel: str, *, kind: Kind = "number", section: str = ""
) -> Callable[[Callable[..., Any]], Quantity]:
    """Register the decorated function as a quantity named after it."""

    def register(fn: Callable[..., Any]) -> Quantity:
        params = tuple(inspect.signature(fn).parameters)
        name = fn.__name__
        _check(name, params, excel)
        doc = inspect.getdoc(fn) or ""
        if not doc:
            raise ValueError(f"quantity {name!r} needs a one-line docstring")
        section_name = section or fn.__module__.rsplit(".", 1)[-1]
        q = Quantity(name, unit, doc, params, fn, excel, kind, section_name)
        REGISTRY[name] = q
        return q

    return register


def finalize() -> None:
    """Put REGISTRY in dependency order (stable: definition order among independent quantities);
    raise if a quantity uses an unknown name or the dependencies form a cycle."""
    ordered: dict[str, Quantity] = {}
    visiting: set[str] = set()

    def visit(name: str, needed_by: str) -> None:
        if name in ordered:
            return
        if name not in REGISTRY:
            raise ValueError(f"quantity {needed_by!r} uses unknown quantity {name!r}")
        if name in visiting:
            raise ValueError(f"quantities depend on each other in a cycle through {name!r}")
        visiting.add(name)
        for kind, param in keyed_inputs(name):
            if kind == "quantity":
                visit(param, name)
        visiting.discard(name)
        ordered[name] = REGISTRY[name]

    for name in list(REGISTRY):
        visit(name, name)
    REGISTRY.clear()
    REGISTRY.update(ordered)
