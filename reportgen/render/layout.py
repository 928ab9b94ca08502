"""Where everything sits in the workbook: sheet names, column letters and cell references.

Pure functions and one frozen dataclass; no openpyxl. Each quantity's Excel template is turned
into a cell formula by giving every input name a reference (``Quantity.formula(refs)``); the
reference depends on where the formula is written, so a *resolver* maps an input name to its
reference text:

* Plan row ``r``: ``raw_<col>`` → ``Scenarios!<col>r``; ``gpu__f``/``model__f``/``eff__f`` →
  INDEX of the GPUs/Models/Efficiency column at the row's ``gpu_row``/``model_row``/
  ``efficiency_row`` (an exact, case-blind match; #N/A when the name matches no row);
  constants → their defined name; quantities → the same-row Plan cell.
* Batch curve row ``r``: ``batch`` and the batch-dependent chain → same-row cells; any other
  quantity or raw input → INDEX/MATCH of the selected scenario in Plan or Scenarios.

Every range is bounded and absolute (``GPUs!$B$3:$B$19``): no whole columns, no structured refs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from openpyxl.utils.cell import get_column_letter

from reportgen.quantities import REGISTRY, Quantity, input_kind
from reportgen.quantities.registry import KEYS_PREFIX, LOOKUP_KEYS, RAW_PREFIX

SUMMARY = "Summary"
BOM = "BOM"
SENSITIVITY = "Sensitivity"
SCENARIOS = "Scenarios"
PLAN = "Plan"
OPTIONS = "Options"
LEVERS = "Levers"
CURVE = "Batch curve"
LATENCY = "Latency"
ASSUMPTIONS = "Assumptions"
GPUS = "GPUs"
MODELS = "Models"
EFFICIENCY = "Efficiency"
METHOD = "Method"
SHEET_ORDER: tuple[str, ...] = (
    SUMMARY, BOM, SENSITIVITY, SCENARIOS, PLAN, OPTIONS, LEVERS, CURVE, LATENCY, ASSUMPTIONS,
    GPUS, MODELS, EFFICIENCY, METHOD,
)

# Lookup prefix → (sheet holding the table, which name keys it).
LOOKUP_SHEETS = {"gpu": GPUS, "model": MODELS, "eff": EFFICIENCY}

# Rows 1 and 2 are the header of every table-like sheet (the reader's label, then the machine
# name: cells.labelled_header); data starts on row 3.
NAME_ROW = 2
FIRST_ROW = 3
FREEZE = f"B{FIRST_ROW}"  # the header rows and the name column stay in view
# Plan columns planned_<input> hold what the search chose for a searched input of the row.
PLANNED_PREFIX = "planned_"

Resolver = Callable[[str], str]

_CELL_LIKE = re.compile(r"^([A-Za-z]{1,3}[0-9]+|[Rr][0-9]*[Cc][0-9]*)$")


def letter(index: int) -> str:
    """Column letter of a 0-based column index (0 → A)."""
    return str(get_column_letter(index + 1))


def sheet_ref(sheet: str) -> str:
    """A sheet name as a formula prefix: quoted when it holds anything but letters and digits."""
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", sheet):
        return sheet + "!"
    return "'" + sheet.replace("'", "''") + "'!"


def column_range(sheet: str, col: str, first: int, last: int) -> str:
    """A bounded absolute column range, e.g. GPUs!$B$3:$B$19."""
    return f"{sheet_ref(sheet)}${col}${first}:${col}${last}"


def check_defined_name(name: str) -> None:
    """Raise ValueError for a name a spreadsheet would read as a cell reference."""
    if _CELL_LIKE.match(name) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name):
        raise ValueError(f"{name!r} cannot be a workbook defined name")


def exact_position(key: str, keys: str) -> str:
    """Position of ``key`` in the one-column range ``keys`` (1-based), by plain comparison;
    #N/A unless exactly one cell matches (INDEX at position 0 would read another row).

    MATCH(…,0) treats * ? ~ in the key as wildcards, so a scenario or model named "chat*" could
    find another row; "=" does not (it ignores case, and names are unique ignoring case).
    """
    first = keys.split(":", 1)[0]
    match = f"({keys}={key})"
    return (f"IF(SUMPRODUCT({match}*1)=1,SUMPRODUCT({match}*(ROW({keys})-ROW({first})+1)),"
            "NA())")


@dataclass(frozen=True)
class Layout:
    """Column letters and row span of every sheet that formulas read."""

    n_scenarios: int
    scenario_cols: Mapping[str, str]
    plan_cols: Mapping[str, str]
    table_cols: Mapping[str, Mapping[str, str]]  # lookup prefix → field → letter
    table_rows: Mapping[str, int]  # lookup prefix → number of data rows
    spare_rows: int = 0  # blank rows after the scenarios, with formulas, for added scenarios

    @property
    def last_row(self) -> int:
        """Last row on Scenarios and Plan that formulas, validation and totals cover (the last
        spare row)."""
        return FIRST_ROW + self.n_scenarios + self.spare_rows - 1

    def rows(self) -> range:
        """Sheet rows of the scenarios on Scenarios and Plan, in order."""
        return range(FIRST_ROW, FIRST_ROW + self.n_scenarios)

    def spare(self) -> range:
        """Sheet rows of the spare rows, after the scenarios."""
        return range(FIRST_ROW + self.n_scenarios, self.last_row + 1)

    def plan_range(self, name: str) -> str:
        """The Plan column of a quantity, e.g. Plan!$X$3:$X$17."""
        return column_range(PLAN, self.plan_cols[name], FIRST_ROW, self.last_row)

    def scenarios_range(self, column: str) -> str:
        """The Scenarios column of an input."""
        return column_range(SCENARIOS, self.scenario_cols[column], FIRST_ROW, self.last_row)

    def keys(self, prefix: str) -> str:
        """The key column of the table of ``prefix``, e.g. Efficiency!$A$3:$A$14."""
        last = FIRST_ROW + self.table_rows[prefix] - 1
        return column_range(LOOKUP_SHEETS[prefix], "A", FIRST_ROW, last)

    def lookup(self, prefix: str, field: str, position: str) -> str:
        """``field`` of the table of ``prefix`` at the 1-based row ``position`` (a reference to
        the row's ``gpu_row``, ``model_row`` or ``efficiency_row``; #N/A stays #N/A)."""
        sheet = LOOKUP_SHEETS[prefix]
        last = FIRST_ROW + self.table_rows[prefix] - 1
        values = column_range(sheet, self.table_cols[prefix][field], FIRST_ROW, last)
        return f"INDEX({values},{position})"

    def plan_resolver(self, row: int, planned: frozenset[str] = frozenset()) -> Resolver:
        """References for a formula on Plan row ``row``; the inputs named in ``planned`` (the
        columns the row searched) are read from the row's ``planned_<column>`` Plan cell, the
        others from Scenarios."""
        own = {c: self.plan_cols[PLANNED_PREFIX + c] for c in planned}
        return self.row_resolver(row, row, own)

    def row_resolver(self, row: int, source: int, own: Mapping[str, str]) -> Resolver:
        """References for a registry formula on sheet row ``row`` of Plan or of a sheet laid out
        like it (same column for every quantity): quantities are the row's own cells, inputs
        named in ``own`` (input → column letter) the row's own input cells, every other input
        the Scenarios cell of row ``source``."""

        def position(prefix: str) -> str:
            return f"${self.plan_cols[LOOKUP_KEYS[prefix]]}{row}"

        def resolve(name: str) -> str:
            kind = input_kind(name)
            if kind == "raw" and name[len(RAW_PREFIX):] in own:
                return f"{own[name[len(RAW_PREFIX):]]}{row}"
            if kind == "raw":
                return f"{sheet_ref(SCENARIOS)}{self.scenario_cols[name[len(RAW_PREFIX):]]}{source}"
            if kind == "lookup":
                prefix, field = name.split("__", 1)
                return self.lookup(prefix, field, position(prefix))
            if kind == "keys":
                return self.keys(name.removeprefix(KEYS_PREFIX))
            if kind == "constant":
                return name
            return f"{self.plan_cols[name]}{row}"

        return resolve

    def selected_resolver(self, selected: str, local: Mapping[str, str]) -> Resolver:
        """References for a formula that reads the scenario named in cell ``selected``.

        ``local`` maps names computed on the formula's own row (e.g. ``batch``) to their cells;
        every other quantity is looked up in Plan, raw inputs in Scenarios.
        """

        def in_plan(name: str) -> str:
            keys = self.plan_range("scenario")
            return f"INDEX({self.plan_range(name)},{exact_position(selected, keys)})"

        def position(prefix: str) -> str:
            return resolve(LOOKUP_KEYS[prefix])

        def resolve(name: str) -> str:
            if name in local:
                return local[name]
            kind = input_kind(name)
            if kind == "raw":
                column = name[len(RAW_PREFIX):]
                keys = self.scenarios_range("scenario")
                typed = f"INDEX({self.scenarios_range(column)},{exact_position(selected, keys)})"
                if PLANNED_PREFIX + column not in self.plan_cols:
                    return typed
                planned = in_plan(PLANNED_PREFIX + column)
                return f"IF(ISBLANK({planned}),{typed},{planned})"
            if kind == "lookup":
                prefix, field = name.split("__", 1)
                return self.lookup(prefix, field, position(prefix))
            if kind == "keys":
                return self.keys(name.removeprefix(KEYS_PREFIX))
            if kind == "constant":
                return name
            return in_plan(name)

        return resolve


def refs(q: Quantity, resolve: Resolver) -> dict[str, str]:
    """A reference for every input of ``q``."""
    return {name: resolve(name) for name in q.inputs}


def downstream_chain(start: str, last: str) -> tuple[Quantity, ...]:
    """Quantities after ``start`` in registry order that depend on it (directly or through an
    earlier member), up to and including ``last``."""
    names = list(REGISTRY)
    if start not in REGISTRY or last not in REGISTRY or names.index(last) < names.index(start):
        raise ValueError(f"no chain from {start!r} to {last!r}")
    reached = {start}
    chain: list[Quantity] = []
    for name in names[names.index(start) + 1 : names.index(last) + 1]:
        q = REGISTRY[name]
        if reached.intersection(q.inputs):
            reached.add(name)
            chain.append(q)
    return tuple(chain)


def make_layout(
    n_scenarios: int,
    scenario_columns: Sequence[str],
    result_columns: Sequence[str],
    tables: Mapping[str, Sequence[str]],
    table_rows: Mapping[str, int],
    spare_rows: int = 0,
) -> Layout:
    """Letters for every column: inputs and results in the given order from column A; table
    sheets hold the index in column A and their fields from B."""
    if n_scenarios < 1:
        raise ValueError("a workbook needs at least one scenario")
    if result_columns[0] != "scenario" or scenario_columns[0] != "scenario":
        raise ValueError("the scenario name must be the first column of Scenarios and Plan")
    return Layout(
        n_scenarios=n_scenarios,
        scenario_cols={c: letter(i) for i, c in enumerate(scenario_columns)},
        plan_cols={c: letter(i) for i, c in enumerate(result_columns)},
        table_cols={p: {f: letter(i + 1) for i, f in enumerate(fs)} for p, fs in tables.items()},
        table_rows=dict(table_rows),
        spare_rows=spare_rows,
    )
