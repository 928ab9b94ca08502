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
from reportgen.errors import Issue, ScenarioFileError, ScenarioValidationError
from reportgen.readers import RawTable

MAX_SCENARIOS = 2_000_000
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
    """A scenario frame ready for the engine, the tables it refers to, and soft warnings."""

    scenarios: pd.DataFrame
    tables: Tables
    source: str
    sha256: str
    warnings: tuple[str, ...] = ()


@dataclass
class _Collector:
    source: str
    issues: list[Issue] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def add(self, row: int | None, column: str | None, found: str, expected: str,
            scenario: str | None = None, hint: str = "") -> None:
        self.issues.append(Issue(row, column, found, expected, scenario, hint))


def _quote(value: object) -> str:
    text = str(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f'"{text}"'


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
    candidate = text.replace("\u00a0", "").replace(" ", "")
    if semicolon_file:
        if _EU_THOUSANDS.match(candidate):
            candidate = candidate.replace(".", "").replace(",", ".")
        elif _EU_DECIMAL.match(candidate):
            candidate = candidate.replace(",", ".")
    elif _US_THOUSANDS.match(candidate):
        candidate = candidate.replace(",", "")
    try:
        return float(candidate)
    except ValueError:
        return None


def _numbers(cells: list[object], column: schema.Column, rows: list[int], names: list[str],
             semicolon_file: bool, out: _Collector) -> np.ndarray:
    values = np.full(len(cells), np.nan)
    for i, cell in enumerate(cells):
        if isinstance(cell, bool):
            number: float | None = None
        elif isinstance(cell, int | float):
            number = float(cell)
        else:
            text = _cell_text(cell)
            if not text:
                continue
            if type(cell).__name__ == "_FormulaWithoutValue":
                out.add(rows[i], column.name, f"a formula {_quote(text)} with no saved value",
                        "a number", names[i], "open the file in a spreadsheet, save it, retry")
                continue
            percent = column.unit == "fraction" and text.endswith("%")
            number = _parse_number(text.rstrip("%"), semicolon_file)
            if number is not None and percent:
                number /= 100
        if number is None:
            out.add(rows[i], column.name, f"got {_quote(cell)}",
                    column.allowed() + (f" in {column.unit}" if column.unit else ""), names[i])
            continue
        problem = _out_of_bounds(number, column)
        if problem:
            out.add(rows[i], column.name, f"got {_quote(cell)}{problem}",
                    column.allowed() + (f" in {column.unit}" if column.unit else ""), names[i])
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
    if column.maximum is not None and number > column.maximum:
        return " (too large)"
    if column.integer and number != int(number):
        return " (not a whole number)"
    return ""


def _choices(cells: list[object], column: schema.Column, rows: list[int], names: list[str],
             out: _Collector) -> list[str]:
    values = []
    for i, cell in enumerate(cells):
        text = _cell_text(cell).lower()
        if not text:
            text = column.default
        elif text not in column.choices:
            close = difflib.get_close_matches(text, column.choices, n=1, cutoff=0.5)
            out.add(rows[i], column.name, f"got {_quote(cell)}", column.allowed(), names[i],
                    f'did you mean "{close[0]}"?' if close else "")
        values.append(text)
    return values


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

    def column_cells(name: str) -> list[object]:
        if name not in positions:
            return [None] * len(data_rows)
        i = positions[name]
        return [cells[i] if i < len(cells) else None for _, cells in data_rows]

    names = [_cell_text(c) for c in column_cells("scenario")]
    frame: dict[str, object] = {}
    semicolon = table.delimiter == ";"
    for column in schema.COLUMNS:
        cells = column_cells(column.name)
        if column.name == "tp":
            frame["tp"] = _numbers(cells, column, rows, names, semicolon, out)
        elif column.type == "number":
            frame[column.name] = _numbers(cells, column, rows, names, semicolon, out)
        elif column.type == "choice":
            frame[column.name] = _choices(cells, column, rows, names, out)
        else:
            frame[column.name] = [_cell_text(c) for c in cells]
    _check_names(names, rows, out)
    scenarios = pd.DataFrame(frame, index=pd.RangeIndex(len(data_rows)))
    catalogs = catalogs or load_catalogs()
    catalogs = _resolve_models(scenarios, rows, names, catalogs, base_dir, out)
    catalogs = _resolve_gpus(scenarios, rows, names, catalogs, out)
    if not out.issues:
        _check_rows(scenarios, rows, names, catalogs, out)
    if out.issues:
        raise ScenarioValidationError(table.source, out.issues)
    tables = Tables(catalogs.gpus, catalogs.models, load_efficiency())
    return ValidatedInput(scenarios, tables, table.source, table.sha256, tuple(out.warnings))


def _check_names(names: list[str], rows: list[int], out: _Collector) -> None:
    first: dict[str, int] = {}
    for row, name in zip(rows, names, strict=True):
        if not name:
            out.add(row, "scenario", "the name is blank", "a name for every scenario")
        elif name.lower() in first:
            out.add(row, "scenario", f"{_quote(name)} is already used on row {first[name.lower()]}",
                    "a unique name per scenario", name)
        else:
            first[name.lower()] = row


def _looks_like_path(name: str) -> bool:
    return name.lower().endswith(".json")


def _resolve_models(scenarios: pd.DataFrame, rows: list[int], names: list[str],
                    catalogs: Catalogs, base_dir: Path | None, out: _Collector) -> Catalogs:
    resolved: list[str] = []
    cache: dict[str, str] = {}
    for i, written in enumerate(scenarios["model"]):
        if not written:
            out.add(rows[i], "model", "the model is blank",
                    "a catalog name, a Hugging Face id or a path to config.json", names[i])
            resolved.append("")
            continue
        if written in cache:
            resolved.append(cache[written])
            continue
        name = ""
        if _looks_like_path(written):
            path = Path(written)
            if not path.is_absolute() and base_dir is not None and (base_dir / path).exists():
                path = base_dir / path
            try:
                fields = read_hf_config(path)
            except (OSError, ValueError) as err:
                out.add(rows[i], "model", f"cannot use {_quote(written)}: {err}",
                        "a readable Hugging Face config.json", names[i])
            else:
                fields = {**fields, "source": f"config.json at {written}", "aliases": ""}
                catalogs = catalogs.with_model(written, fields)
                name = written
        else:
            try:
                name = resolve_model(catalogs, written)
            except CatalogLookupError as err:
                given = {c: float(scenarios[c].to_numpy(dtype=float)[i])
                         for c in schema.MODEL_OVERRIDES}
                needed = ("params_b", "layers", "attention_heads", "kv_heads", "head_dim")
                if all(not np.isnan(given[c]) for c in needed):
                    catalogs = catalogs.with_model(written, _custom_model(given))
                    name = written
                else:
                    hint = (f"did you mean {', '.join(map(_quote, err.suggestions))}?"
                            if err.suggestions else "run `reportgen catalog models`")
                    out.add(rows[i], "model", f"unknown model {_quote(written)}",
                            "a catalog model, a Hugging Face id, a config.json path, or the "
                            "override columns params_b, layers, attention_heads, kv_heads, "
                            "head_dim", names[i], hint)
        cache[written] = name
        resolved.append(name)
    scenarios["model"] = resolved
    return catalogs


def _custom_model(given: dict[str, float]) -> dict[str, object]:
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


def _resolve_gpus(scenarios: pd.DataFrame, rows: list[int], names: list[str],
                  catalogs: Catalogs, out: _Collector) -> Catalogs:
    resolved: list[str] = []
    cache: dict[str, str] = {}
    for i, written in enumerate(scenarios["gpu"]):
        if not written:
            out.add(rows[i], "gpu", "the GPU is blank", "a catalog GPU name", names[i])
            resolved.append("")
            continue
        if written in cache:
            resolved.append(cache[written])
            continue
        name = ""
        try:
            name = resolve_gpu(catalogs, written)
        except CatalogLookupError as err:
            given = {c: float(scenarios[c].to_numpy(dtype=float)[i])
                     for c in schema.GPU_OVERRIDES}
            price = float(scenarios["gpu_hour_price"].to_numpy(dtype=float)[i])
            if all(not np.isnan(v) for v in given.values()) and not np.isnan(price):
                catalogs = catalogs.with_gpu(written, {
                    **_CUSTOM_GPU_DEFAULTS,
                    "memory_gib": given["gpu_memory_gib"],
                    "bandwidth_tbps": given["gpu_bandwidth_tbps"],
                    "bf16_tflops": given["gpu_tflops"], "price_per_gpu_hour": price,
                })
                name = written
            else:
                hint = (f"did you mean {', '.join(map(_quote, err.suggestions))}?"
                        if err.suggestions else "run `reportgen catalog gpus`")
                out.add(rows[i], "gpu", f"unknown GPU {_quote(written)}",
                        "a catalog GPU, or the override columns gpu_memory_gib, gpu_tflops, "
                        "gpu_bandwidth_tbps and gpu_hour_price", names[i], hint)
        cache[written] = name
        resolved.append(name)
    scenarios["gpu"] = resolved
    return catalogs


def _check_rows(scenarios: pd.DataFrame, rows: list[int], names: list[str],
                catalogs: Catalogs, out: _Collector) -> None:
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
    for i in np.flatnonzero(~np.isnan(tp)):
        t = int(tp[i])
        if heads[i] % t or (kv_heads[i] % t and t % kv_heads[i]):
            usable = [str(c) for c in schema.TP_VALUES
                      if heads[i] % c == 0 and (kv_heads[i] % c == 0 or c % kv_heads[i] == 0)]
            out.add(rows[i], "tp", f"tp {t} does not divide {model_names[i]}'s "
                    f"{heads[i]:.0f} attention heads / {kv_heads[i]:.0f} KV heads",
                    "one of " + ", ".join(usable) + " or blank for auto", names[i])
