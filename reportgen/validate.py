"""Raw table → typed scenario frame, with every model and GPU resolved; or every problem at once.

Validation turns each cell into its typed value, fills the defaults of choice columns, resolves
model and GPU names against the catalogs (a Hugging Face id, a short name, a local config.json,
or a model/GPU described entirely by override columns), and checks what the engine cannot: bounds,
cross-column consistency, context windows, tensor-parallel divisibility. It collects every
problem and raises one ScenarioValidationError listing them all.
"""

from __future__ import annotations

import bisect
import difflib
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from reportgen import schema
from reportgen.catalog import (
    CatalogLookupError,
    Catalogs,
    ConfigError,
    load_catalogs,
    read_config_file,
    resolve_gpu,
    resolve_model,
)
from reportgen.efficiency import load_efficiency
from reportgen.engine import Tables
from reportgen.errors import CatalogError, Issue, ScenarioFileError, ScenarioValidationError
from reportgen.finance.prices import PriceBook
from reportgen.header_map import map_header
from reportgen.inputfiles import InputFile
from reportgen.readers import Grid, RawTable, _FormulaWithoutValue
from reportgen.visible import BIDI_CONTROLS, describe_invisible, identity, visible
from reportgen.xlsx_input import column_index

MAX_SCENARIOS = 2_000_000
MIN_POSITIVE = 1e-6  # a "> 0" value below this is a typo or an underflow (5e-324), not an input
MAX_DISTINCT_NAMES = 1_000  # different models (or GPUs) in one file: each is looked up
MAX_DEFINED = 100  # models (or GPUs) defined by override columns: each re-checks the catalog
MAX_TEXT_CHARS = 1_000  # a scenario name, model or GPU longer than this is not one
# C0 control characters other than tab, LF and CR, and the non-characters U+FFFE/U+FFFF: not
# allowed in XML (the workbook) or a PDF.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")
# Numbers the strict fast path converts in bulk: digits, point, sign and exponent only (so
# "1_000", "nan", "١٢", "10%" and "1,5" take the per-cell path, which knows them).
_PLAIN_NUMBERS = re.compile(r"[0-9.eE+\-\n]*")
_PLAIN_INTEGERS = re.compile(r"[0-9eE+\-\n]*")  # semicolon files: "1.000" may be a thousand
_PLAIN_CHARS = 40  # longer cells are no plain number
_UNPRINTABLE_ASCII = re.compile(r"[\x00-\x1f\x7f]")
_SPACES = str.maketrans("", "", "\u00a0\u202f\u2009 ")  # (narrow) no-break and thin spaces
_SWISS_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(['’]\d{3})+(\.\d+)?$")
_EU_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$")
_EU_DECIMAL = re.compile(r"^[+-]?\d+,\d+$")
_US_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
_CUSTOM_GPU_DEFAULTS: dict[str, object] = {
    "vendor": "user", "family": "other", "form_factor": "", "fp8_tflops": 0.0,
    "fp4_tflops": 0.0, "int8_tops": 0.0, "tdp_w": 0.0, "gpus_per_node": 8.0, "link": "pcie",
    "link_gbps": 32.0, "link_latency_us": 25.0, "internode_gbps": 25.0,
    "internode_latency_us": 30.0,
    "internode_source": "assumption for a GPU defined by override columns: 200 Gb/s per GPU "
                        "(NVIDIA's PCIe-optimized 2-8-5 servers), 30 us per send",
    "price_basis": "as typed", "price_unit": "gpu_hour", "price_usd": 0.0,
    "price_unit_gpus": 1.0, "price_per_gpu_hour": 0.0, "price_currency": "USD",
    "price_region": "", "price_provider": "", "price_sku": "", "price_term_months": 0.0,
    "price_source": "scenario file (gpu_hour_price)", "price_date": "",
    "price_status": "as typed",
    "source": "scenario file overrides", "source_date": "", "aliases": "",
    "notes": "defined by the scenario's override columns",
}


@dataclass(frozen=True)
class ValidatedInput:
    """A scenario frame, the tables it refers to, and soft warnings.

    ``specs`` has one text column per searchable input column (schema.SEARCHABLE): "" where the
    cell holds one value (then ``scenarios`` holds it), else "auto" or the list with each item
    normalised (catalog names for GPUs) and joined by "|" (then ``scenarios`` holds a blank).
    Rows whose specs are all "" and whose tp is given are concrete: the engine can estimate them
    as they are; the others are expanded into candidates by :mod:`reportgen.search`.
    """

    scenarios: pd.DataFrame
    tables: Tables
    source: str
    sha256: str
    warnings: tuple[str, ...] = ()
    specs: pd.DataFrame | None = None
    inputs: tuple[InputFile, ...] = ()  # every file read: the scenario file, config.json files
    prices: PriceBook | None = None  # the price book the GPUs were priced from (None: shipped)


@dataclass
class _Collector:
    source: str
    issues: list[Issue] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    reported: set[tuple[int | None, str | None]] = field(default_factory=set)

    def add(self, row: int | None, column: str | None, found: str, expected: str,
            scenario: str | None = None, hint: str = "") -> None:
        """Record an issue; at most one per cell (the first found is the one to fix)."""
        if row is not None and column is not None:
            if (row, column) in self.reported:
                return
            self.reported.add((row, column))
        self.issues.append(Issue(row, column, found, expected, scenario, hint))


def _printable(text: str) -> str:
    """Text safe to echo in a message: invisible characters escaped, at most 60 characters."""
    return visible(text)


def _quote(value: object) -> str:
    return f'"{_printable(str(value))}"'


def _map_header(table: RawTable, out: _Collector) -> dict[str, int]:
    mapped = map_header(table.header, table.source)
    out.issues.extend(mapped.issues)
    out.warnings.extend(mapped.warnings)
    return mapped.positions


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return ""
    return str(value).strip()


def _texts(cells: list[object], formulas_blank: bool = False) -> list[str]:
    """The cells as stripped text ("" for blanks; for formulas without a value too if asked)."""
    if set(map(type, cells)) <= {str}:
        return [c.strip() for c in cast(list[str], cells)]
    return ["" if formulas_blank and isinstance(c, _FormulaWithoutValue) else _cell_text(c)
            for c in cells]


def _parse_number(text: str, semicolon_file: bool) -> float | None:
    """Parse one numeric cell written by a person or a spreadsheet; None if it is not a number."""
    candidate = text.translate(_SPACES)
    if _SWISS_THOUSANDS.match(candidate):
        candidate = candidate.replace("'", "").replace("’", "")
    elif semicolon_file:
        if _EU_THOUSANDS.match(candidate):
            candidate = candidate.replace(".", "").replace(",", ".")
        elif _EU_DECIMAL.match(candidate):
            candidate = candidate.replace(",", ".")
    elif _US_THOUSANDS.match(candidate):
        candidate = candidate.replace(",", "")
    if "_" in candidate:
        return None  # float() would accept 1_000; a spreadsheet would not
    try:
        return float(candidate)
    except ValueError:
        return None


def _numbers(cells: list[object], column: schema.Column, rows: list[int],
             names: Sequence[str], semicolon_file: bool, out: _Collector) -> np.ndarray:
    """The numbers of a column (NaN for blanks); every bad cell reported.

    A strict fast path converts the whole column at once; the cells it cannot vouch for (blank
    where a value is required, out of bounds, or written in a way only the per-cell parser
    reads: "1,5", "10%", "1 000") go through the per-cell checks, which say what is wrong.
    """
    fast = _plain_numbers(cells, semicolon_file)
    if fast is None:
        return _numbers_per_cell(cells, column, rows, names, semicolon_file, out)
    values, blank = fast
    suspect = _out_of_bounds_mask(values, column) & ~blank
    if column.required:
        suspect |= blank
    for i in np.flatnonzero(suspect).tolist():
        values[i] = _numbers_per_cell([cells[i]], column, [rows[i]], [names[i]],
                                      semicolon_file, out)[0]
    return values


def _plain_numbers(cells: list[object], semicolon_file: bool
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """(values, blank mask) when every cell is blank, a number, or the plain text of one;
    None when some cell needs the per-cell parser."""
    kinds = set(map(type, cells))
    if kinds <= {int, float, type(None)}:  # an XLSX column of numbers
        try:
            values = np.array([np.nan if c is None else c for c in cells], dtype=float)
        except OverflowError:
            return None
        return values, np.isnan(values)
    if not kinds <= {str, type(None)}:
        return None
    if not any(cells):  # an optional column left empty (blank cells, or cells a row lacks)
        return np.full(len(cells), np.nan), np.ones(len(cells), dtype=bool)
    if type(None) in kinds:  # a cell a short row lacks is blank, as the per-cell path reads it
        cells = ["" if c is None else c for c in cells]
    # each distinct text parsed once (a long file repeats its lengths, models and targets)
    codes, distinct = pd.factorize(np.asarray(cells, dtype=object))
    if max(map(len, distinct.tolist()), default=0) > _PLAIN_CHARS:
        return None  # (a fixed-width array as wide as a runaway cell would not fit in memory)
    stripped = np.char.strip(np.array(distinct, dtype=np.str_))
    empty = stripped == ""
    given = stripped[~empty]
    plain = _PLAIN_INTEGERS if semicolon_file else _PLAIN_NUMBERS
    if not plain.fullmatch("\n".join(given.tolist())):
        return None
    parsed = np.full(len(distinct), np.nan)
    try:
        parsed[~empty] = given.astype(np.float64)
    except ValueError:  # "1e", "1.2.3", "+-5": the per-cell path says which
        return None
    return parsed[codes], empty[codes]


def _out_of_bounds_mask(values: np.ndarray, column: schema.Column) -> np.ndarray:
    """Where _out_of_bounds would find a problem (NaN counts: blank cells are masked apart)."""
    with np.errstate(invalid="ignore"):
        bad: np.ndarray = ~np.isfinite(values)
        if column.choices:
            bad |= ~np.isin(values, [float(c) for c in column.choices])
        if column.minimum is not None:
            bad |= (values <= column.minimum) if column.above_minimum else (
                values < column.minimum)
            if column.above_minimum and column.minimum == 0:
                bad |= values < MIN_POSITIVE
        if column.maximum is not None:
            bad |= values > column.maximum
        if column.integer:
            bad |= values != np.floor(values)
    return bad


def _numbers_per_cell(cells: list[object], column: schema.Column, rows: list[int],
                      names: Sequence[str], semicolon_file: bool, out: _Collector
                      ) -> np.ndarray:
    values = np.full(len(cells), np.nan)
    unit = f" in {column.unit}" if column.unit and not column.searchable else ""
    parsed: dict[str, tuple[float | None, str]] = {}  # text -> (number, problem): files repeat
    for i, cell in enumerate(cells):
        if isinstance(cell, _FormulaWithoutValue):
            continue  # reported for every column by _check_cells
        if cell is None or (isinstance(cell, str) and not cell.strip()):
            if column.required:
                out.add(rows[i], column.name, "the cell is blank", column.allowed() + unit,
                        names[i])
            continue
        if isinstance(cell, bool):
            number: float | None = None
            problem = ""
        elif isinstance(cell, int | float):
            try:
                number = float(cell)
            except OverflowError:  # an integer beyond 1e308 in an XLSX cell
                number = math.inf
            problem = _out_of_bounds(number, column)
        else:
            text = _cell_text(cell)
            if text not in parsed:
                percent = column.unit == "fraction" and text.endswith("%")
                got = _parse_number(text[:-1] if percent else text, semicolon_file)
                if got is not None and percent:
                    got /= 100
                parsed[text] = (got, "" if got is None else _out_of_bounds(got, column))
            number, problem = parsed[text]
        if number is None or problem:
            allowed = column.allowed()
            if problem.startswith(" (too small: below"):
                allowed = allowed.replace("> 0", f"≥ {MIN_POSITIVE:g}")
            out.add(rows[i], column.name, f"got {_quote(cell)}{problem}", allowed + unit,
                    names[i])
            continue
        values[i] = number
    return values


def _out_of_bounds(number: float, column: schema.Column) -> str:
    if math.isnan(number):
        return " (not a number)"
    if math.isinf(number):
        return " (infinite)"
    if column.choices and f"{number:g}" not in column.choices:
        return " (not allowed)"
    if column.minimum is not None and (
        number < column.minimum or (column.above_minimum and number == column.minimum)
    ):
        return " (too small)"
    if column.above_minimum and column.minimum == 0 and number < MIN_POSITIVE:
        return f" (too small: below {MIN_POSITIVE:g})"
    if column.maximum is not None and number > column.maximum:
        return " (too large)"
    if column.integer and number != int(number):
        return " (not a whole number)"
    return ""


def _choices(cells: list[object], column: schema.Column, rows: list[int],
             names: Sequence[str], out: _Collector) -> list[str]:
    default = column.default if column.default in column.choices else ""
    read: dict[object, tuple[str, str | None]] = {}  # cell → (value, hint if not allowed)
    for cell in set(cells):
        text = _cell_text(cell).lower()
        if not text:
            read[cell] = default, None
        elif text not in column.choices:
            close = difflib.get_close_matches(text, column.choices, n=1, cutoff=0.5)
            read[cell] = text, f'did you mean "{close[0]}"?' if close else ""
        else:
            read[cell] = text, None
    if any(hint is not None for _, hint in read.values()):
        for i, cell in enumerate(cells):
            hint = read[cell][1]
            if hint is not None:
                out.add(rows[i], column.name, f"got {_quote(cell)}", column.allowed(),
                        names[i], hint)
    return [read[cell][0] for cell in cells]


def _split_specs(cells: list[object], column: schema.Column, rows: list[int], names: list[str],
                 out: _Collector) -> tuple[list[object], list[str]]:
    """Separate the cells of a searchable column that hold ``auto`` or a list from those that
    hold one value: the first are replaced by a blank (their spec says what to search), the
    others are parsed as usual. List items are checked here, except GPU names (resolved with
    the catalog later)."""
    texts = [c for c in cells if type(c) is str]
    if not any(schema.LIST_SEPARATOR in t or schema.AUTO in t.lower() for t in set(texts)):
        return cells, [""] * len(cells)  # no cell holds a list or auto
    # each distinct cell read once (a cell that cannot be hashed: every cell on its own)
    column_cells = np.empty(len(cells), dtype=object)
    column_cells[:] = cells
    try:
        codes, distinct = pd.factorize(column_cells, use_na_sentinel=False)
    except TypeError:
        codes, distinct = np.arange(len(cells)), column_cells
    read = [_split_spec(cell, column) for cell in distinct.tolist()]
    as_written = np.array([value is _AS_WRITTEN for value, _, _ in read])[codes]
    values = np.empty(len(read), dtype=object)
    values[:] = [value for value, _, _ in read]
    kept = np.where(as_written, column_cells, values[codes]).tolist()
    specs = np.array([spec for _, spec, _ in read], dtype=object)[codes].tolist()
    wrong = [k for k, (_, _, problem) in enumerate(read) if problem is not None]
    for i in np.flatnonzero(np.isin(codes, wrong)).tolist():
        found, allowed, hint = cast(tuple[str, str, str], read[codes[i]][2])
        out.add(rows[i], column.name, found, allowed, names[i], hint)
    return kept, specs


_AS_WRITTEN = object()  # the cell holds one value: parsed with the others of its column


def _split_spec(cell: object, column: schema.Column
                ) -> tuple[object, str, tuple[str, str, str] | None]:
    """One cell of a searchable column: (the cell's value, or _AS_WRITTEN for a cell of one
    value; its spec; the problem found, as (found, expected, hint), or None)."""
    text = "" if isinstance(cell, _FormulaWithoutValue) else _cell_text(cell)
    items = [item.strip() for item in text.split(schema.LIST_SEPARATOR)]
    if text.lower() == schema.AUTO:
        return None, schema.AUTO, None
    if len(items) < 2:
        return _AS_WRITTEN, "", None
    if any(not item for item in items):
        return None, "", (f"got {_quote(cell)}: an empty item in the list", column.allowed(),
                          "write the values between | without gaps")
    normalised = [_spec_item(item, column) for item in items]
    bad = [item for item, norm in zip(items, normalised, strict=True) if norm is None]
    if bad:
        return None, "", (f"got {_quote(bad[0])} in the list {_quote(cell)}",
                          column.allowed(), "")
    return None, schema.LIST_SEPARATOR.join(dict.fromkeys(str(n) for n in normalised)), None


def _spec_item(item: str, column: schema.Column) -> str | None:
    """One list item in its normal form, or None if it is not allowed in the column."""
    if column.name == "gpu":
        return item  # resolved against the catalog with the other GPU names
    if column.type == "number":
        number = _parse_number(item, semicolon_file=False)
        if number is None or _out_of_bounds(number, column):
            return None
        return f"{number:g}"
    return item.lower() if item.lower() in column.choices else None


def _check_roles(scenarios: pd.DataFrame, rows: list[int], names: list[str],
                 out: _Collector) -> None:
    """Tutorial-method rows reproduce the tutorial for comparison: they are never budgeted."""
    plan_tutorial = (scenarios["method"] == "tutorial") & (scenarios["role"] == "plan")
    for i in np.flatnonzero(plan_tutorial.to_numpy()):
        out.add(rows[i], "role", 'got "plan" on a row with method "tutorial"',
                "compare or blank: the tutorial's arithmetic is shown for comparison, never "
                "budgeted", names[i], 'use method "roofline" to budget this row')
    staged = (scenarios["method"] == "tutorial") & (scenarios["pp"].to_numpy(dtype=float) > 1)
    for i in np.flatnonzero(staged.to_numpy()):
        out.add(rows[i], "pp", f"got {scenarios['pp'].iloc[i]:g} on a row with method "
                '"tutorial"', "1 or blank: the tutorial's arithmetic has no pipeline "
                "parallelism", names[i], 'use method "roofline" to plan pipeline stages')


_SAME_TRAFFIC = ("peak_qps", "avg_prompt_tokens", "avg_output_tokens")


def _workload_warnings(scenarios: pd.DataFrame, source: str) -> list[str]:
    """Rows of one workload are alternatives for the same traffic; say where they differ."""
    named = scenarios[scenarios["workload"] != ""]
    if not len(named):
        return []
    grouped = named.groupby(named["workload"].str.casefold(), sort=False)
    several = (grouped.size() > 1).to_numpy()
    differs = pd.DataFrame({c: grouped[c].nunique(dropna=False) > 1 for c in _SAME_TRAFFIC})
    labels = grouped["workload"].first().tolist()
    warnings = []
    for k in np.flatnonzero(several & differs.to_numpy().any(axis=1)):
        differing = [c for c in _SAME_TRAFFIC if differs[c].iloc[k]]
        warnings.append(
            f'{source}: the rows of workload "{_printable(labels[k])}" differ in '
            f"{', '.join(differing)}; they are compared as alternatives for the same "
            "traffic all the same (the cheapest that meets its targets is chosen)"
        )
    return warnings


def validate(table: RawTable, catalogs: Catalogs | None = None,
             base_dir: Path | None = None) -> ValidatedInput:
    """Validate a raw table; raise ScenarioValidationError listing every problem."""
    out = _Collector(table.source)
    positions = _map_header(table, out)
    if out.issues:
        raise ScenarioValidationError(table.source, out.issues)
    grid = _data_rows(table.grid, positions.get("scenario", 0))
    if not len(grid):
        raise ScenarioFileError(f"{table.source} has a header but no scenario rows; add one row "
                                "per scenario under the header.")
    if len(grid) > MAX_SCENARIOS:
        raise ScenarioFileError(f"{table.source} has {len(grid):,} scenarios; the limit is "
                                f"{MAX_SCENARIOS:,}. Split the file.")
    rows = grid.numbers

    def column_cells(name: str) -> list[object]:
        if name not in positions:
            return [None] * len(grid)
        return grid.columns[positions[name]]

    names = _texts(column_cells("scenario"), formulas_blank=True)
    shown = _shown(names)  # the names as messages show them
    _check_merged(table, positions, grid, shown, out)
    _check_cells(table, positions, grid, shown, out)
    frame: dict[str, object] = {}
    specs: dict[str, list[str]] = {}
    semicolon = table.delimiter == ";"
    for column in schema.COLUMNS:
        cells = column_cells(column.name)
        if column.searchable:
            cells, specs[column.name] = _split_specs(cells, column, rows, shown, out)
        if column.type == "number":
            frame[column.name] = _numbers(cells, column, rows, shown, semicolon, out)
        elif column.type == "choice":
            values = _choices(cells, column, rows, shown, out)
            frame[column.name] = [
                "" if spec else value
                for value, spec in zip(values, specs.get(column.name, [""] * len(values)),
                                       strict=True)
            ]
        else:
            frame[column.name] = _texts(cells)
    _check_names(names, shown, rows, out)
    scenarios = pd.DataFrame(frame, index=pd.RangeIndex(len(grid)))
    spec_frame = pd.DataFrame(specs, index=scenarios.index, dtype=object)
    catalogs = catalogs or load_catalogs()
    inputs = [table.origin] if table.origin is not None else []
    catalogs = _resolve_models(scenarios, rows, shown, catalogs, base_dir, inputs, out)
    catalogs = _resolve_gpus(scenarios, spec_frame, rows, shown, catalogs, out)
    resolved = scenarios["model"] != ""
    if resolved.all():  # every row's model is known: all can be checked further
        _check_rows(scenarios, spec_frame, rows, shown, catalogs, out)
    elif resolved.any():  # the rows whose model is known
        keep = np.flatnonzero(resolved.to_numpy())
        _check_rows(scenarios.iloc[keep].reset_index(drop=True),
                    spec_frame.iloc[keep].reset_index(drop=True), [rows[i] for i in keep],
                    [shown[i] for i in keep], catalogs, out)
    _check_roles(scenarios, rows, shown, out)
    _check_workload_spellings(scenarios["workload"].tolist(), rows, shown, out)
    warnings = [*out.warnings, *_workload_warnings(scenarios, table.source)]
    if out.issues:
        order = {c.name: k for k, c in enumerate(schema.COLUMNS)}
        out.issues.sort(key=lambda issue: (issue.row or 0, order.get(issue.column or "", -1)))
        raise ScenarioValidationError(table.source, out.issues)
    tables = Tables(catalogs.gpus, catalogs.models, load_efficiency())
    return ValidatedInput(scenarios, tables, table.source, table.sha256, tuple(warnings),
                          spec_frame, tuple(inputs))


def _blank(cell: object) -> bool:
    if cell is None:
        return True
    if type(cell) is str:
        return not cell.strip()
    return isinstance(cell, float) and math.isnan(cell)


def _data_rows(grid: Grid, key_column: int) -> Grid:
    """The grid without its blank rows (a row is blank when every cell is)."""
    if not grid.columns:
        return grid
    key = grid.columns[min(key_column, len(grid.columns) - 1)]
    maybe = [i for i, cell in enumerate(key) if _blank(cell)]  # usually none
    empty = {i for i in maybe if i not in grid.extras
             and all(_blank(column[i]) for column in grid.columns)}
    if not empty:
        return grid
    keep = [i for i in range(len(grid)) if i not in empty]
    new_index = {old: new for new, old in enumerate(keep)}
    return Grid([grid.numbers[i] for i in keep],
                [[column[i] for i in keep] for column in grid.columns],
                {new_index[i]: extra for i, extra in grid.extras.items() if i in new_index})


def _shown(names: list[str]) -> list[str]:
    """The names as messages show them (invisible characters escaped, long ones shortened)."""
    joined = "".join(names)
    if joined.isascii() and not _UNPRINTABLE_ASCII.search(joined) and max(
            map(len, names), default=0) <= 60:
        return names
    return [_printable(n) for n in names]


_MERGED = re.compile(r"^\$?([A-Z]{1,3})\$?(\d+):\$?([A-Z]{1,3})\$?(\d+)$")
MAX_MERGED_CELLS_CHECKED = 1_000_000


def _check_merged(table: RawTable, positions: dict[str, int], grid: Grid,
                  names: Sequence[str], out: _Collector) -> None:
    """Merged cells keep their value in the first cell only: every other row of the range
    reads blank (a default, or no latency target). Each such cell is reported as what it is."""
    if not table.merged:
        return
    column_of = {i: name for name, i in positions.items()}
    numbers = grid.numbers
    budget = MAX_MERGED_CELLS_CHECKED
    for ref in table.merged:
        match = _MERGED.match(ref)
        if not match:
            continue
        first_col, last_col = column_index(match[1]), column_index(match[3])
        first_row, last_row = int(match[2]), int(match[4])
        at = bisect.bisect_left(numbers, first_row)
        anchor = (grid.columns[first_col][at] if at < len(numbers) and numbers[at] == first_row
                  and 0 <= first_col < len(grid.columns) else None)
        if _blank(anchor):
            continue
        lo, hi = at, bisect.bisect_right(numbers, last_row)
        for j in sorted(j for j in column_of if first_col <= j <= last_col):
            for i in range(lo, hi):
                if (numbers[i], j) == (first_row, first_col) or not _blank(grid.columns[j][i]):
                    continue
                budget -= 1
                if budget < 0:
                    return
                out.add(numbers[i], column_of[j], f"the cell is inside the merged cells {ref}, "
                        f"whose value {_quote(anchor)} belongs to {match[1]}{first_row} only",
                        "a value in each row's own cell", names[i],
                        "unmerge the cells (Excel: Home > Merge & Center > Unmerge Cells) and "
                        "fill in every row")


def _check_cells(table: RawTable, positions: dict[str, int], grid: Grid,
                 names: Sequence[str], out: _Collector) -> None:
    """Problems any cell can have, whatever its column: a formula with no saved value, a
    control character, a bidirectional control, or a runaway length; and cells beyond the
    last header column. A column is checked cell by cell only when it has such a cell."""
    width = len(table.header)
    while width and not table.header[width - 1]:
        width -= 1  # blank header cells at the end do not count as columns
    for column, j in sorted(positions.items(), key=lambda item: item[1]):
        cells = grid.columns[j]
        kinds = set(map(type, cells))
        texts = cast(list[str], cells) if kinds == {str} else [c for c in cells if type(c) is str]
        joined = "".join(texts)
        # printable ASCII holds no control and no bidirectional character (str's own C scans)
        plain = joined.isascii() and joined.isprintable()
        if (_FormulaWithoutValue not in kinds
                and (plain or not (_CONTROL.search(joined) or BIDI_CONTROLS.search(joined)))
                and max(map(len, texts), default=0) <= MAX_TEXT_CHARS):
            continue
        for i, cell in enumerate(cells):
            if isinstance(cell, str):
                _check_cell(grid.numbers[i], column, cell, names[i], out)
    hint = ("a decimal comma in a comma-separated file shifts every cell after it: write "
            '10.5, quote the cell ("10,5"), or separate the cells with ;'
            if table.kind == "csv" else
            "give the extra cells a column name in row 1, or delete them")
    for i, extra in sorted(grid.extras.items()):
        filled = sorted(j for j, cell in extra.items() if j >= width and _cell_text(cell))
        if filled:
            out.add(grid.numbers[i], None, f"{filled[-1] + 1} cells but the header has {width} "
                    f"columns (cell {filled[0] + 1} is {_quote(extra[filled[0]])})",
                    "no more cells than header columns", names[i], hint)


def _check_cell(row: int, column: str, cell: str, name: str, out: _Collector) -> None:
    if isinstance(cell, _FormulaWithoutValue):
        out.add(row, column, f"a formula {_quote(cell)} with no saved value",
                "a value; formulas are never evaluated, only the value a spreadsheet "
                "saved with them is read", name,
                "open the file in Excel or LibreOffice, save it, and try again")
    elif control := _CONTROL.search(cell):
        out.add(row, column, f"the text contains the control character "
                f"U+{ord(control.group()):04X}", "printable text", name,
                "delete it (it may be invisible)")
    elif bidi := BIDI_CONTROLS.search(cell):
        what = describe_invisible(bidi.group())
        out.add(row, column, f"the text contains the invisible character {what}, which shows "
                "the text in another order than it is written",
                "text without bidirectional controls", name, "delete it")
    elif len(cell) > MAX_TEXT_CHARS:
        out.add(row, column, f"the text is {len(cell):,} characters long",
                f"at most {MAX_TEXT_CHARS:,} characters", name)


def _check_names(names: list[str], shown: Sequence[str], rows: list[int],
                 out: _Collector) -> None:
    """Every scenario has a name a reader can see, and no two names read the same (Unicode
    form, invisible characters, spacing and case aside)."""
    first: dict[str, tuple[int, str]] = {}
    joined = "".join(names)
    plain = joined.isascii() and not _UNPRINTABLE_ASCII.search(joined) and "  " not in joined
    keys = [n.casefold() for n in names] if plain else [identity(n) for n in names]
    if all(keys) and len(set(keys)) == len(keys):
        return  # every name visible and unique (a long file: no row by row pass)
    for row, name, label, key in zip(rows, names, shown, keys, strict=True):
        if not key:
            if name:
                out.add(row, "scenario", f"the name {_quote(name)} holds only invisible "
                        f"characters ({describe_invisible(name)})", "a name a reader can see",
                        hint="type the name again")
            else:
                out.add(row, "scenario", "the name is blank", "a name for every scenario")
        elif key in first:
            row_before, before = first[key]
            how = "" if name.casefold() == before.casefold() else (
                f" as {_quote(before)}: they read the same and differ only in invisible "
                "characters, spacing or Unicode form")
            out.add(row, "scenario", f"{_quote(name)} is already used on row {row_before}{how}",
                    "a unique name per scenario", label)
        else:
            first[key] = row, name


def _check_workload_spellings(workloads: list[str], rows: list[int], names: Sequence[str],
                              out: _Collector) -> None:
    """Rows are grouped by workload with case and spacing ignored (as the workbook's LOWER(TRIM())
    does); two spellings that differ only in invisible characters or Unicode form would read the
    same but be two workloads, each budgeted. They are reported."""
    first: dict[str, tuple[str, int]] = {}  # identity → (grouping key, first row)
    for row, written, name in zip(rows, workloads, names, strict=True):
        if not written:
            continue
        key = " ".join(written.split()).lower()
        seen = first.setdefault(identity(written), (key, row))
        if seen[0] != key:
            out.add(row, "workload", f"{_quote(written)} reads the same as the workload on row "
                    f"{seen[1]} but differs in invisible characters or Unicode form",
                    "one spelling per workload (rows of one workload compete; two spellings "
                    "would be budgeted apart)", name, "type the workload name again")


def _looks_like_path(name: str) -> bool:
    return name.lower().endswith(".json")


def _resolve_models(scenarios: pd.DataFrame, rows: list[int], names: Sequence[str],
                    catalogs: Catalogs, base_dir: Path | None, inputs: list[InputFile],
                    out: _Collector) -> Catalogs:
    """Resolve every model name to its catalog name, defining the models of config.json files
    (one model per file, however its path is written; the config.json files read are added to
    ``inputs``) and of override columns."""
    resolved: list[str] = []
    cache: dict[str, str] = {}
    files: dict[object, str] = {}  # a config.json file → the model it defined
    defined = 0  # models defined by override columns or a config.json
    for i, written in enumerate(scenarios["model"].tolist()):
        if not written:
            out.add(rows[i], "model", "the model is blank",
                    "a catalog name, a Hugging Face id or a path to config.json", names[i])
            resolved.append("")
            continue
        if written in cache:
            resolved.append(cache[written])
            continue
        if len(cache) >= MAX_DISTINCT_NAMES:
            out.add(rows[i], "model", f"{_quote(written)} is one model too many",
                    f"at most {MAX_DISTINCT_NAMES:,} different models in one file", names[i],
                    "split the file")
            resolved.append("")
            continue
        name = ""
        try:
            if _looks_like_path(written) and defined >= MAX_DEFINED:
                out.add(rows[i], "model", f"{_quote(written)} is one user-defined model too "
                        "many", f"at most {MAX_DEFINED} models defined by override columns or "
                        "config.json in one file", names[i], "split the file")
            elif _looks_like_path(written):
                path = Path(written)
                if not path.is_absolute() and base_dir is not None and (base_dir / path).exists():
                    path = base_dir / path
                try:
                    fields, origin = read_config_file(path, shown=visible(written, 200))
                except ConfigError as err:
                    out.add(rows[i], "model", err.found, err.expected, names[i])
                else:
                    name = files.get(origin.key, "")
                    if not name:
                        fields = {**fields, "source": f"config.json at {written}", "aliases": ""}
                        catalogs = catalogs.with_model(written, fields)
                        name = files[origin.key] = written
                        inputs.append(origin)
                        defined += 1
            else:
                name = _model_by_name(scenarios, i, written, catalogs)
                if not name and defined >= MAX_DEFINED:
                    out.add(rows[i], "model", f"{_quote(written)} is one user-defined model too "
                            "many", f"at most {MAX_DEFINED} models defined by override columns "
                            "or config.json in one file", names[i], "split the file")
                elif not name:
                    catalogs = catalogs.with_model(written, _custom_model(scenarios, i))
                    name = written
                    defined += 1
        except CatalogLookupError as err:
            hint = (f"did you mean {', '.join(map(_quote, err.suggestions))}?"
                    if err.suggestions else "run `reportgen catalog models`")
            out.add(rows[i], "model", f"unknown model {_quote(written)}",
                    "a catalog model, a Hugging Face id, a config.json path, or the "
                    "override columns params_b, layers, attention_heads, kv_heads, "
                    "head_dim", names[i], hint)
        except CatalogError as err:
            out.add(rows[i], "model", f"the model {_quote(written)} cannot be defined: {err}",
                    "consistent override columns (attention_heads a multiple of kv_heads, "
                    "active_params_b ≤ params_b)", names[i])
            name = ""
        cache[written] = name
        resolved.append(name)
    scenarios["model"] = resolved
    return catalogs


def _model_by_name(scenarios: pd.DataFrame, i: int, written: str, catalogs: Catalogs) -> str:
    """The catalog name of ``written``; "" if unknown but fully described by the override
    columns; CatalogLookupError if unknown and not described."""
    try:
        return resolve_model(catalogs, written)
    except CatalogLookupError:
        needed = ("params_b", "layers", "attention_heads", "kv_heads", "head_dim")
        if all(not np.isnan(_number_at(scenarios, c, i)) for c in needed):
            return ""
        raise


def _number_at(scenarios: pd.DataFrame, column: str, i: int) -> float:
    return float(scenarios[column].to_numpy(dtype=float)[i])


def _custom_model(scenarios: pd.DataFrame, i: int) -> dict[str, object]:
    given = {c: _number_at(scenarios, c, i) for c in schema.MODEL_OVERRIDES}
    active = given["active_params_b"]
    return {
        "hf_id": "", "aliases": "", "architecture": "user-defined",
        "params_b": given["params_b"],
        "active_params_b": given["params_b"] if np.isnan(active) else active,
        "layers": given["layers"], "attention_heads": given["attention_heads"],
        "kv_heads": given["kv_heads"], "head_dim": given["head_dim"],
        "hidden_size": given["attention_heads"] * given["head_dim"],
        "mla_kv_dim": 0.0, "mla_rope_dim": 0.0, "experts": 0.0, "experts_per_token": 0.0,
        "expert_params_b": 0.0,
        "max_context": 0.0, "local_attention_window": 0.0, "local_attention_layers": 0.0,
        "weight_dtype": "bf16", "expert_weight_dtype": "bf16",
        "kv_dtype": "bf16", "precision_source": "assumed 16-bit (bf16) for a model defined by "
        "override columns: type weight_dtype and kv_dtype if it ships otherwise",
        "source": "scenario file overrides", "source_date": "",
        "notes": "defined by the scenario's override columns; hidden size = heads × head_dim",
    }


def _resolve_gpus(scenarios: pd.DataFrame, specs: pd.DataFrame, rows: list[int],
                  names: list[str], catalogs: Catalogs, out: _Collector) -> Catalogs:
    """Resolve every GPU name to its catalog name; a GPU the catalog lacks may be defined by the
    override columns of its row. GPU lists in ``specs`` are resolved item by item."""
    cache: dict[str, str] = {}
    defined = 0  # GPUs defined by override columns

    def resolve(i: int, written: str, may_define: bool) -> str:
        """The catalog name of ``written``; "" if it cannot be used (the problem is recorded)."""
        nonlocal catalogs, defined
        if written in cache:
            return cache[written]
        if len(cache) >= MAX_DISTINCT_NAMES:
            out.add(rows[i], "gpu", f"{_quote(written)} is one GPU too many",
                    f"at most {MAX_DISTINCT_NAMES:,} different GPUs in one file", names[i],
                    "split the file")
            return ""
        name = ""
        try:
            name = resolve_gpu(catalogs, written)
        except CatalogLookupError as err:
            given = {c: _number_at(scenarios, c, i) for c in schema.GPU_OVERRIDES}
            price = _number_at(scenarios, "gpu_hour_price", i)
            described = may_define and not np.isnan([*given.values(), price]).any()
            if described and defined >= MAX_DEFINED:
                out.add(rows[i], "gpu", f"{_quote(written)} is one user-defined GPU too many",
                        f"at most {MAX_DEFINED} GPUs defined by override columns in one file",
                        names[i], "split the file")
            elif described:
                defined += 1
                try:
                    catalogs = catalogs.with_gpu(written, {
                        **_CUSTOM_GPU_DEFAULTS,
                        "memory_gib": given["gpu_memory_gib"],
                        "bandwidth_tbps": given["gpu_bandwidth_tbps"],
                        "bf16_tflops": given["gpu_tflops"], "price_per_gpu_hour": price,
                        "price_usd": price,
                    })
                    name = written
                except CatalogError as bad:
                    out.add(rows[i], "gpu", f"the GPU {_quote(written)} cannot be defined: {bad}",
                            "consistent override columns", names[i])
            else:
                hint = (f"did you mean {', '.join(map(_quote, err.suggestions))}?"
                        if err.suggestions else "run `reportgen catalog gpus`")
                out.add(rows[i], "gpu", f"unknown GPU {_quote(written)}",
                        "a catalog GPU, or the override columns gpu_memory_gib, gpu_tflops, "
                        "gpu_bandwidth_tbps and gpu_hour_price", names[i], hint)
        cache[written] = name
        return name

    resolved: list[str] = []
    gpu_specs = specs["gpu"].tolist()
    override_columns = (*schema.GPU_OVERRIDES, "gpu_hour_price")
    given = np.column_stack([~np.isnan(scenarios[c].to_numpy(dtype=float))
                             for c in override_columns])
    listed: dict[str, str] = {}  # a GPU list → its catalog names (each list resolved once)
    for i, written in enumerate(scenarios["gpu"].tolist()):
        spec = gpu_specs[i]
        if spec:  # auto or a list: searched; overrides describe one GPU, so they cannot apply
            overrides = [c for c, on in zip(override_columns, given[i], strict=True) if on]
            if overrides:
                out.add(rows[i], "gpu", f"{_quote(spec)} names several GPUs but "
                        f"{', '.join(overrides)} describe one",
                        "one GPU when override columns are given", names[i],
                        "give one GPU, or clear the override columns")
            elif spec != schema.AUTO:
                if spec not in listed:
                    items = [resolve(i, item, False)
                             for item in spec.split(schema.LIST_SEPARATOR)]
                    listed[spec] = schema.LIST_SEPARATOR.join(dict.fromkeys(items)) if all(
                        items) else ""
                gpu_specs[i] = listed[spec]
            resolved.append("")
        elif not written:
            out.add(rows[i], "gpu", "the GPU is blank", "a catalog GPU name", names[i])
            resolved.append("")
        else:
            resolved.append(resolve(i, written, True))
    scenarios["gpu"] = resolved
    specs["gpu"] = gpu_specs
    return catalogs


def _check_shipped_precision(s: pd.DataFrame, specs: pd.DataFrame, models: pd.DataFrame,
                             rows: list[int], names: list[str], out: _Collector) -> None:
    """A blank (or auto) precision means the checkpoint's own: say so where the model's
    config.json states it in a way reportgen does not read."""
    for column, shipped in (("weight_dtype", "expert_weight_dtype"), ("kv_dtype", "kv_dtype")):
        unknown = ((models[column] == "") | (models[shipped] == "")).to_numpy()
        as_shipped = (s[column] == "").to_numpy() & specs[column].isin(["", schema.AUTO]).to_numpy()
        spec = specs[column].tolist()
        for i in np.flatnonzero(unknown & as_shipped):
            written = "auto" if spec[i] else "blank"
            out.add(rows[i], column, f"{written}, but the precision {_quote(s['model'].iloc[i])} "
                    f"ships in is not known ({models['precision_source'].iloc[i]})",
                    "one of " + ", ".join(schema.DTYPES), names[i],
                    "type the precision the checkpoint is served in")


def _check_rows(scenarios: pd.DataFrame, specs: pd.DataFrame, rows: list[int],
                names: list[str], catalogs: Catalogs, out: _Collector) -> None:
    s = scenarios
    model_names = s["model"].tolist()
    max_prompt_given = s["max_prompt_tokens"].to_numpy(dtype=float)
    models = catalogs.models.loc[s["model"], [  # a row per scenario: only the columns checked
        "attention_heads", "kv_heads", "max_context", "weight_dtype", "expert_weight_dtype",
        "kv_dtype", "precision_source"]]
    heads = np.where(np.isnan(s["attention_heads"]), models["attention_heads"],
                     s["attention_heads"])
    kv_heads = np.where(np.isnan(s["kv_heads"]), models["kv_heads"], s["kv_heads"])
    context = models["max_context"].to_numpy(dtype=float)
    prompt_max = np.where(np.isnan(s["max_prompt_tokens"]), s["avg_prompt_tokens"],
                          s["max_prompt_tokens"])
    output_max = np.where(np.isnan(s["max_output_tokens"]), s["avg_output_tokens"],
                          s["max_output_tokens"])
    checks: Iterable[tuple[np.ndarray, str, str, str]] = (
        (s["avg_qps"].to_numpy() > s["peak_qps"].to_numpy(), "avg_qps",
         "the average rate is above the peak rate", "avg_qps ≤ peak_qps"),
        (s["max_prompt_tokens"].to_numpy() < s["avg_prompt_tokens"].to_numpy(),
         "max_prompt_tokens", "the maximum is below the mean", "max_prompt_tokens ≥ "
         "avg_prompt_tokens"),
        (s["max_output_tokens"].to_numpy() < s["avg_output_tokens"].to_numpy(),
         "max_output_tokens", "the maximum is below the mean", "max_output_tokens ≥ "
         "avg_output_tokens"),
    )
    for mask, column, found, expected in checks:
        for i in np.flatnonzero(mask):
            out.add(rows[i], column, found, expected, names[i])
    too_long = (context > 0) & (prompt_max + output_max > context)
    for i in np.flatnonzero(too_long):
        out.add(rows[i], "max_prompt_tokens" if not np.isnan(max_prompt_given[i])
                else "avg_prompt_tokens",
                f"prompt + output = {prompt_max[i] + output_max[i]:,.0f} tokens exceed "
                f"{model_names[i]}'s context window of {context[i]:,.0f} tokens",
                "a sequence that fits the model's context window", names[i])
    _check_shipped_precision(s, specs, models, rows, names, out)
    tp = s["tp"].to_numpy()
    tp_specs = specs["tp"].tolist()
    with np.errstate(invalid="ignore", divide="ignore"):  # NaN tp: blank, skipped below
        divides = (heads % tp == 0) & ((kv_heads % tp == 0) | (tp % kv_heads == 0))
    listing = specs["tp"].isin(["", schema.AUTO]).to_numpy()
    for j in np.flatnonzero(~listing | (~np.isnan(tp) & ~divides)):
        tp_spec = tp_specs[j]
        listed = ([float(t) for t in tp_spec.split(schema.LIST_SEPARATOR)]
                  if tp_spec not in ("", schema.AUTO) else [tp[j]])
        for value in listed:
            if np.isnan(value):
                continue
            t = int(value)
            if heads[j] % t or (kv_heads[j] % t and t % kv_heads[j]):
                usable = [str(c) for c in schema.TP_VALUES if heads[j] % c == 0
                          and (kv_heads[j] % c == 0 or c % kv_heads[j] == 0)]
                out.add(rows[j], "tp", f"tp {t} does not divide {model_names[j]}'s "
                        f"{heads[j]:.0f} attention heads / {kv_heads[j]:.0f} KV heads",
                        "one of " + ", ".join(usable) + ", a list of them, or blank for the "
                        "cheapest", names[j])
                break
