"""Rows of live registry formulas: the Plan sheet's, and those of sheets laid out like it
(Options, Levers), where each row plans one scenario with some inputs of its own.

Such a sheet keeps every quantity in the Plan's column, so a formula's references to its own
row's quantities read the same on every one of them; the row's own inputs (the configuration an
option or a lever plans) sit in columns after the quantities and are handed to the resolver
(:meth:`reportgen.render.layout.Layout.row_resolver`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pandas as pd
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.i18n import _
from reportgen.quantities import REGISTRY, Quantity
from reportgen.render.cells import labelled_header, number_format, set_formula
from reportgen.render.layout import Layout, Resolver, letter, refs
from reportgen.render.xlsx_cache import CachedValue, XlError

_PLACEHOLDER = re.compile(r"\{([a-z_]+)(\[\])?\}")


# The columns a reader needs first on Plan, Options and Levers; every other quantity's column
# is grouped and collapsed (the outline's + buttons above the sheet open it) and does not print.
KEY_COLUMNS = frozenset({
    "scenario", "model", "gpu", "workload", "role", "method", "tp", "pp", "instances", "gpus",
    "nodes", "monthly_cost", "cost_per_million_output_tokens", "bottleneck", "fleet_bottleneck",
    "ttft_ms", "tpot_ms", "notes", "counted", "status", "why",
})


def collapse_engineering_columns(ws: Worksheet, columns: Mapping[str, str]) -> None:
    """Group every run of ``columns`` (name → letter, in sheet order) outside KEY_COLUMNS into
    a collapsed outline; columns not named in ``columns`` stay as they are."""
    run: list[str] = []
    for name, col in [*columns.items(), ("", "")]:
        if name and name not in KEY_COLUMNS:
            run.append(col)
            continue
        if run:
            ws.column_dimensions.group(run[0], run[-1], hidden=True, outline_level=1)
            run = []


def size_variant_columns(ws: Worksheet, layout: Layout, extra: Mapping[str, str]) -> None:
    """Options and Levers columns as wide as the Plan's (its quantities, then ``extra``: name →
    letter), so a seven-digit monthly cost shows instead of ###; the engineering columns are
    then collapsed as on the Plan and column A widened for scenario names."""
    for name, col in {**layout.plan_cols, **extra}.items():
        ws.column_dimensions[col].width = max(12.0, len(name) + 3.0)
    collapse_engineering_columns(ws, {q.name: letter(j) for j, q in enumerate(quantities(layout))})
    ws.column_dimensions["A"].width = 28


def quantities(layout: Layout) -> list[Quantity]:
    """The registry's quantities in Plan column order."""
    return [REGISTRY[name] for name in layout.plan_cols if name in REGISTRY]


def cached(value: Any, q: Quantity) -> CachedValue:
    """An engine result as the value a spreadsheet shows for the quantity's cell."""
    if q.kind == "text":
        return "" if value is None else str(value)
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")):
        return XlError("#DIV/0!")
    return number


def quantity_note(q: Quantity) -> str:
    """Unit and meaning of a quantity, for header comments, in the reader's language."""
    unit = f"[{q.unit}] " if q.unit and q.unit != "text" else ""
    return unit + (_(q.doc) if q.doc else "")


def column_index(col: str) -> int:
    """0-based index of a column letter (A → 0)."""
    n = 0
    for ch in col:
        n = n * 26 + ord(ch) - 64
    return n - 1


def variant_header(ws: Worksheet, layout: Layout, extra: Mapping[str, tuple[str, str]]) -> None:
    """The header rows of a sheet laid out like Plan: every quantity in its Plan column, then
    ``extra`` (column letter → name and note), in column order."""
    header = {letter(j): (q.name, quantity_note(q)) for j, q in enumerate(quantities(layout))}
    header.update(extra)
    ordered = sorted(header, key=column_index)
    if [column_index(c) for c in ordered] != list(range(len(ordered))):
        raise ValueError("a variant sheet's columns must follow each other without gaps")
    labelled_header(ws, [header[c][0] for c in ordered], [header[c][1] for c in ordered])


def write_quantities(ws: Worksheet, row: int, resolve: Resolver, result: pd.Series | None,
                     layout: Layout, values: dict[str, CachedValue],
                     blank_unless: str = "") -> None:
    """Every quantity of the registry as a formula on sheet row ``row``, with the engine's
    value (``result``; None: a blank row) as the cell's cached value. With ``blank_unless``
    (a cell), every formula shows "" while that cell is blank, so an empty row reads empty."""
    for j, q in enumerate(quantities(layout)):
        cell = ws.cell(row=row, column=j + 1)
        formula = q.formula(refs(q, resolve))
        if blank_unless:
            formula = f'=IF(ISBLANK({blank_unless}),"",{formula.removeprefix("=")})'
        set_formula(cell, formula)
        fmt = number_format(q.unit)
        if fmt:
            cell.number_format = fmt
        values[cell.coordinate] = "" if result is None else cached(result[q.name], q)


def group_formula(template: str, columns: Mapping[str, str], first: int, last: int,
                  row: int) -> str:
    """A formula over rows ``first``..``last`` of the sheet it is written on: ``{name}`` is the
    row's cell of column ``name``, ``{name[]}`` the whole column."""

    def ref(match: re.Match[str]) -> str:
        col = columns[match.group(1)]
        if match.group(2):
            return f"${col}${first}:${col}${last}"
        return f"${col}{row}"

    return "=" + _PLACEHOLDER.sub(ref, template)
