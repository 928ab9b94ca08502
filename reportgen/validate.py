"""Raw table → typed scenario frame, with every model and GPU resolved; or every problem at once.

Validation turns each cell into its typed value, fills the defaults of choice columns, resolves
model and GPU names against the catalogs (a Hugging Face id, a short name, a local config.json,
or a model/GPU described entirely by override columns), and checks what the engine cannot: bounds,
cross-column consistency, context windows, tensor-parallel divisibility. It collects every
problem and raises one ScenarioValidationError listing them all.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen import schema
from reportgen.catalog import (
    CatalogLookupError,
    Catalogs,
    load_catalogs,
    read_hf_config,
    resolve_gpu,
    resolve_model,
)
from reportgen.efficiency import load_efficiency
from reportgen.engine import Tables
from reportgen.errors import CatalogError, Issue, ScenarioFileError, ScenarioValidationError
from reportgen.readers import RawTable, _FormulaWithoutValue

MAX_SCENARIOS = 2_000_000
MIN_POSITIVE = 1e-6  # a "> 0" value below this is a typo or an underflow (5e-324), not an input
MAX_DISTINCT_NAMES = 1_000  # different models (or GPUs) in one file: each is looked up
MAX_DEFINED = 100  # models (or GPUs) defined by override columns: each re-checks the catalog
MAX_TEXT_CHARS = 1_000  # a scenario name, model or GPU longer than this is not one
# C0 control characters other than tab, LF and CR, and the non-characters U+FFFE/U+FFFF: not
# allowed in XML (the workbook) or a PDF.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")
# ... and tab, LF, CR and C1 controls: kept in data, escaped in messages
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_SPACES = str.maketrans("", "", "\u00a0\u202f\u2009 ")  # (narrow) no-break and thin spaces
_SWISS_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(['’]\d{3})+(\.\d+)?$")
_EU_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$")
_EU_DECIMAL = re.compile(r"^[+-]?\d+,\d+$")
_US_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
_CUSTOM_GPU_DEFAULTS: dict[str, object] = {
    "vendor": "user", "family": "other", "form_factor": "", "fp8_tflops": 0.0,
    "fp4_tflops": 0.0, "int8_tops": 0.0, "tdp_w": 0.0, "gpus_per_node": 8.0, "link": "pcie",
    "link_gbps": 32.0, "link_latency_us": 25.0, "price_per_gpu_hour": 0.0,
    "price_source": "scenario file (gpu_hour_price)", "price_date": "",
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
    """Text safe to echo in a message: control characters escaped, at most 60 characters."""
    text = _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return text if len(text) <= 60 else text[:57] + "..."


def _quote(value: object) -> str:
    return f'"{_printable(str(value))}"'


def _map_header(table: RawTable, out: _Collector) -> dict[str, int]:
    known = {c.name for c in schema.COLUMNS}
    positions: dict[str, int] = {}
    for i, name in enumerate(table.header):
        key = name.strip().lower().replace(" ", "_")
        if not key:
            continue
        if key in positions:
            out.add(1, name, "the column appears twice", "each column once",
                    hint="delete one of them")
            continue
        if key not in known:
            close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
            hint = f'; did you mean "{close[0]}"?' if close else ""
            out.warnings.append(f'{out.source}: column "{name}" is not a reportgen column and is '
                                f"ignored{hint}")
            continue
        positions[key] = i
    missing = [c for c in schema.REQUIRED if c not in positions]
    if missing:
        out.add(1, None, "missing required column" + ("s " if len(missing) > 1 else " ")
                + ", ".join(missing),
                "a header row with at least " + ", ".join(schema.REQUIRED),
                hint="column names are case-insensitive; see `reportgen columns`")
    return positions


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return ""
    return str(value).strip()


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


def _numbers(cells: list[object], column: schema.Column, rows: list[int], names: list[str],
             semicolon_file: bool, out: _Collector) -> np.ndarray:
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


def _choices(cells: list[object], column: schema.Column, rows: list[int], names: list[str],
             out: _Collector) -> list[str]:
    values = []
    default = column.default if column.default in column.choices else ""
    for i, cell in enumerate(cells):
        text = _cell_text(cell).lower()
        if not text:
            text = default
        elif text not in column.choices:
            close = difflib.get_close_matches(text, column.choices, n=1, cutoff=0.5)
            out.add(rows[i], column.name, f"got {_quote(cell)}", column.allowed(), names[i],
                    f'did you mean "{close[0]}"?' if close else "")
        values.append(text)
    return values


def _split_specs(cells: list[object], column: schema.Column, rows: list[int], names: list[str],
                 out: _Collector) -> tuple[list[object], list[str]]:
    """Separate the cells of a searchable column that hold ``auto`` or a list from those that
    hold one value: the first are replaced by a blank (their spec says what to search), the
    others are parsed as usual. List items are checked here, except GPU names (resolved with
    the catalog later)."""
    kept: list[object] = []
    specs: list[str] = []
    for i, cell in enumerate(cells):
        text = "" if isinstance(cell, _FormulaWithoutValue) else _cell_text(cell)
        items = [item.strip() for item in text.split(schema.LIST_SEPARATOR)]
        if text.lower() == schema.AUTO:
            kept.append(None)
            specs.append(schema.AUTO)
            continue
        if len(items) < 2:
            kept.append(cell)
            specs.append("")
            continue
        kept.append(None)
        if any(not item for item in items):
            out.add(rows[i], column.name, f"got {_quote(cell)}: an empty item in the list",
                    column.allowed(), names[i], "write the values between | without gaps")
            specs.append("")
            continue
        normalised = [_spec_item(item, column) for item in items]
        bad = [item for item, norm in zip(items, normalised, strict=True) if norm is None]
        if bad:
            out.add(rows[i], column.name, f"got {_quote(bad[0])} in the list {_quote(cell)}",
                    column.allowed(), names[i])
            specs.append("")
            continue
        specs.append(schema.LIST_SEPARATOR.join(dict.fromkeys(str(n) for n in normalised)))
    return kept, specs


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


_SAME_TRAFFIC = ("peak_qps", "avg_prompt_tokens", "avg_output_tokens")


def _workload_warnings(scenarios: pd.DataFrame, source: str) -> list[str]:
    """Rows of one workload are alternatives for the same traffic; say where they differ."""
    named = scenarios[scenarios["workload"] != ""]
    warnings = []
    for _, group in named.groupby(named["workload"].str.casefold(), sort=False):
        differing = [c for c in _SAME_TRAFFIC if group[c].nunique(dropna=False) > 1]
        if len(group) > 1 and differing:
            label = group["workload"].iloc[0]
            warnings.append(
                f'{source}: the rows of workload "{_printable(label)}" differ in '
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
    data_rows = [(n, cells) for n, cells in table.rows
                 if any(_cell_text(c) for c in cells)]
    if not data_rows:
        raise ScenarioFileError(f"{table.source} has a header but no scenario rows; add one row "
                                "per scenario under the header.")
    if len(data_rows) > MAX_SCENARIOS:
        raise ScenarioFileError(f"{table.source} has {len(data_rows):,} scenarios; the limit is "
                                f"{MAX_SCENARIOS:,}. Split the file.")
    rows = [n for n, _ in data_rows]
    _check_cells(table, positions, data_rows, out)

    def column_cells(name: str) -> list[object]:
        if name not in positions:
            return [None] * len(data_rows)
        i = positions[name]
        return [cells[i] if i < len(cells) else None for _, cells in data_rows]

    names = ["" if isinstance(c, _FormulaWithoutValue) else _cell_text(c)
             for c in column_cells("scenario")]
    shown = [_printable(n) for n in names]  # the names as messages show them
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
            frame[column.name] = [_cell_text(c) for c in cells]
    _check_names(names, shown, rows, out)
    scenarios = pd.DataFrame(frame, index=pd.RangeIndex(len(data_rows)))
    spec_frame = pd.DataFrame(specs, index=scenarios.index, dtype=object)
    catalogs = catalogs or load_catalogs()
    catalogs = _resolve_models(scenarios, rows, shown, catalogs, base_dir, out)
    catalogs = _resolve_gpus(scenarios, spec_frame, rows, shown, catalogs, out)
    resolved = scenarios["model"] != ""
    if resolved.any():  # the rows whose model is known can be checked further
        keep = np.flatnonzero(resolved.to_numpy())
        _check_rows(scenarios.iloc[keep].reset_index(drop=True),
                    spec_frame.iloc[keep].reset_index(drop=True), [rows[i] for i in keep],
                    [shown[i] for i in keep], catalogs, out)
    _check_roles(scenarios, rows, shown, out)
    warnings = [*out.warnings, *_workload_warnings(scenarios, table.source)]
    if out.issues:
        order = {c.name: k for k, c in enumerate(schema.COLUMNS)}
        out.issues.sort(key=lambda issue: (issue.row or 0, order.get(issue.column or "", -1)))
        raise ScenarioValidationError(table.source, out.issues)
    tables = Tables(catalogs.gpus, catalogs.models, load_efficiency())
    return ValidatedInput(scenarios, tables, table.source, table.sha256, tuple(warnings),
                          spec_frame)


def _check_cells(table: RawTable, positions: dict[str, int],
                 data_rows: list[tuple[int, list[object]]], out: _Collector) -> None:
    """Problems any cell can have, whatever its column: a formula with no saved value, a
    control character or a runaway length, and cells beyond the last header column."""
    width = len(table.header)
    while width and not table.header[width - 1]:
        width -= 1  # blank header cells at the end do not count as columns
    used = sorted(positions.items(), key=lambda item: item[1])
    hint = ("a decimal comma in a comma-separated file shifts every cell after it: write "
            '10.5, quote the cell ("10,5"), or separate the cells with ;'
            if table.kind == "csv" else
            "give the extra cells a column name in row 1, or delete them")
    name_at = positions.get("scenario")
    for row, cells in data_rows:
        name = cells[name_at] if name_at is not None and name_at < len(cells) else ""
        name = "" if isinstance(name, _FormulaWithoutValue) else _printable(_cell_text(name))
        for column, i in used:
            cell = cells[i] if i < len(cells) else None
            if isinstance(cell, _FormulaWithoutValue):
                out.add(row, column, f"a formula {_quote(cell)} with no saved value",
                        "a value; formulas are never evaluated, only the value a spreadsheet "
                        "saved with them is read", name,
                        "open the file in Excel or LibreOffice, save it, and try again")
            elif isinstance(cell, str) and _CONTROL.search(cell):
                code = ord(_CONTROL.search(cell).group())  # type: ignore[union-attr]
                out.add(row, column, f"the text contains the control character U+{code:04X}",
                        "printable text", name, "delete it (it may be invisible)")
            elif isinstance(cell, str) and len(cell) > MAX_TEXT_CHARS:
                out.add(row, column, f"the text is {len(cell):,} characters long",
                        f"at most {MAX_TEXT_CHARS:,} characters", name)
        extra = [j for j in range(width, len(cells)) if _cell_text(cells[j])]
        if extra:
            last = extra[-1] + 1
            out.add(row, None, f"{last} cells but the header has {width} columns "
                    f"(cell {extra[0] + 1} is {_quote(cells[extra[0]])})",
                    "no more cells than header columns", name, hint)


def _check_names(names: list[str], shown: list[str], rows: list[int], out: _Collector) -> None:
    first: dict[str, int] = {}
    for row, name, label in zip(rows, names, shown, strict=True):
        if not name:
            out.add(row, "scenario", "the name is blank", "a name for every scenario")
        elif name.lower() in first:
            out.add(row, "scenario", f"{_quote(name)} is already used on row {first[name.lower()]}",
                    "a unique name per scenario", label)
        else:
            first[name.lower()] = row


def _looks_like_path(name: str) -> bool:
    return name.lower().endswith(".json")


def _resolve_models(scenarios: pd.DataFrame, rows: list[int], names: list[str],
                    catalogs: Catalogs, base_dir: Path | None, out: _Collector) -> Catalogs:
    resolved: list[str] = []
    cache: dict[str, str] = {}
    defined = 0  # models defined by override columns or a config.json
    for i, written in enumerate(scenarios["model"]):
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
                    fields = read_hf_config(path)
                except (OSError, ValueError, RecursionError) as err:
                    out.add(rows[i], "model", f"cannot use {_quote(written)}: {err}",
                            "a readable Hugging Face config.json", names[i])
                else:
                    fields = {**fields, "source": f"config.json at {written}", "aliases": ""}
                    catalogs = catalogs.with_model(written, fields)
                    name = written
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
        "mla_kv_dim": 0.0, "experts": 0.0, "experts_per_token": 0.0, "expert_params_b": 0.0,
        "max_context": 0.0, "source": "scenario file overrides", "source_date": "",
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
    for i, written in enumerate(scenarios["gpu"].tolist()):
        spec = gpu_specs[i]
        if spec:  # auto or a list: searched; overrides describe one GPU, so they cannot apply
            overrides = [c for c in (*schema.GPU_OVERRIDES, "gpu_hour_price")
                         if not np.isnan(_number_at(scenarios, c, i))]
            if overrides:
                out.add(rows[i], "gpu", f"{_quote(spec)} names several GPUs but "
                        f"{', '.join(overrides)} describe one",
                        "one GPU when override columns are given", names[i],
                        "give one GPU, or clear the override columns")
            elif spec != schema.AUTO:
                items = [resolve(i, item, False) for item in spec.split(schema.LIST_SEPARATOR)]
                gpu_specs[i] = schema.LIST_SEPARATOR.join(dict.fromkeys(items)) if all(
                    items) else ""
            resolved.append("")
        elif not written:
            out.add(rows[i], "gpu", "the GPU is blank", "a catalog GPU name", names[i])
            resolved.append("")
        else:
            resolved.append(resolve(i, written, True))
    scenarios["gpu"] = resolved
    specs["gpu"] = gpu_specs
    return catalogs


def _check_rows(scenarios: pd.DataFrame, specs: pd.DataFrame, rows: list[int],
                names: list[str], catalogs: Catalogs, out: _Collector) -> None:
    s = scenarios
    model_names = s["model"].tolist()
    max_prompt_given = s["max_prompt_tokens"].to_numpy(dtype=float)
    models = catalogs.models.loc[s["model"]]
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
    tp = s["tp"].to_numpy()
    tp_specs = specs["tp"].tolist()
    for j, tp_spec in enumerate(tp_specs):
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
