"""Your efficiency file: the rows ``reportgen calibrate`` writes (one per calibrated stack, with
the shipped table's columns and the load test's provenance) and the per-run comparison beside
them; reading such a file back (CSV, or an XLSX workbook's ``Efficiency`` and
``Calibration runs`` sheets), checking every cell, and joining its rows to the shipped table.

A CSV efficiency file ``NAME.csv`` keeps its runs in ``NAME-runs.csv`` next to it.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from reportgen import schema
from reportgen.calibration.fit import BOUNDS
from reportgen.calibration.loadtest_fit import PARAMETERS, RUN_TABLE_COLUMNS, StackFit, at
from reportgen.catalog import Catalogs
from reportgen.efficiency import NUMERIC, with_defaults
from reportgen.errors import InputError
from reportgen.inputfiles import InputFile
from reportgen.readers import RawTable, read_table

LOADTEST = "load test"  # the `calibrated` value of a row fitted on your load test
EFFICIENCY_SHEET = "Efficiency"
RUNS_SHEET = "Calibration runs"
COMPUTE_DTYPES = ("bf16", "fp8", "fp4")
PROVENANCE = (
    "gpu", "engine", "engine_version", "tool", "loadtest_date", "n_runs", "replaces",
    "determined", "band_source", "shipped_mdape_pct", "calibration_note",
)  # fmt: skip
_METHOD = (
    "reportgen calibrate: mfu_prefill, mfu_decode, mbu and step_overhead_ms of this stack "
    "minimising the mean |log(predicted/measured)| of every run's output tokens/s per GPU, mean "
    "TTFT and mean TPOT at the run's requests in flight per replica (the shared fit of "
    "calibration/fit.py, starting from the shipped row; an efficiency the runs do not "
    "determine keeps the shipped value)"
)


class EfficiencyFileError(InputError):
    """An efficiency file cannot be used: every problem, one per line."""

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        n = len(self.problems)
        lines = [f"{source} has {n:,} problem{'s' if n != 1 else ''}; nothing was written.",
                 *("  " + p for p in self.problems),
                 "An efficiency file has a row per key (e.g. h100-sxm-fp8-vllm) with mfu_prefill, "
                 "mfu_decode, mbu, step_overhead_ms, throughput_ratio_p10 and "
                 "throughput_ratio_p90; `reportgen calibrate` writes one."]
        super().__init__("\n".join(lines))


# --- writing -------------------------------------------------------------------------------------


def _dates(fit: StackFit) -> str:
    dates = sorted(set(fit.runs["date"]))
    return dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"


def _tools(fit: StackFit) -> str:
    pairs = fit.runs[["tool", "tool_version"]].drop_duplicates().itertuples(index=False)
    return "; ".join(f"{t} {v}".strip() for t, v in pairs)


def _determined(fit: StackFit) -> str:
    kept = [n for n in PARAMETERS if not fit.determined[n]]
    fitted = [n for n in PARAMETERS if fit.determined[n]]
    text = "fitted: " + (", ".join(fitted) or "none")
    return text + (f"; kept from {fit.replaces}: {', '.join(kept)}" if kept else "")


def note(loadtest_date: str, engine: str, n_runs: int, mdape_pct: float) -> str:
    """The sentence a plan prints for a row calibrated on a load test."""
    return (f"Efficiencies calibrated on your load test of {loadtest_date} ({engine}), "
            f"{n_runs} run{'s' if n_runs != 1 else ''}, median error {mdape_pct:.1f} %.")


def efficiency_rows(fits: Sequence[StackFit], shipped: pd.DataFrame,
                    today: dt.date | None = None) -> pd.DataFrame:
    """One row per calibrated stack, in the shipped table's columns plus PROVENANCE."""
    records = []
    for fit in fits:
        base = shipped.loc[fit.replaces]
        stack = fit.stack
        versions = ", ".join(dict.fromkeys(str(v) for v in fit.runs["engine_version"]))
        engine = f"{stack.engine} {versions}"
        files = sorted(set(fit.runs["file"]))
        models = ", ".join(sorted(set(fit.runs["model"])))
        record = {
            "key": fit.key, "family": base["family"], "compute_dtype": base["compute_dtype"],
            **{n: round(fit.fitted[n], 4) for n in PARAMETERS},
            "throughput_ratio_p10": fit.band[0], "throughput_ratio_p90": fit.band[1],
            "moe_ratio_p10": fit.band[0], "moe_ratio_p90": fit.band[1],
            "moe_gemm_efficiency": base["moe_gemm_efficiency"],
            "calibrated": LOADTEST, "n_measurements": fit.n_measurements,
            "fit_mdape_pct": round(fit.mdape_pct, 1),
            "fitted_on": f"{fit.n_runs} load-test runs of {models} on {stack.tp}×{stack.gpu} "
            f"({stack.weight_dtype} weights, {stack.kv_dtype} KV cache), {engine}",
            "method": _METHOD, "date": (today or dt.date.today()).isoformat(),
            "source": "; ".join(Path(f).name for f in files),
            "gpu": stack.gpu, "engine": stack.engine,
            "engine_version": versions,
            "tool": _tools(fit), "loadtest_date": _dates(fit), "n_runs": fit.n_runs,
            "replaces": fit.replaces, "determined": _determined(fit),
            "band_source": fit.band_source,
            "shipped_mdape_pct": round(fit.shipped_mdape_pct, 1),
            "calibration_note": note(_dates(fit), engine, fit.n_runs, fit.mdape_pct),
        }
        records.append(record)
    columns = ["key", *[c for c in shipped.columns], *PROVENANCE]
    return pd.DataFrame(records).reindex(columns=list(dict.fromkeys(columns)))


def runs_path(path: Path) -> Path:
    """Where a CSV efficiency file's runs are: NAME-runs.csv beside NAME.csv."""
    return path.with_name(f"{path.stem}-runs.csv")


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """The efficiency rows or the runs as CSV (10 significant digits)."""
    frame.to_csv(path, index=False, lineterminator="\n", float_format="%.10g")


def write_xlsx(rows: pd.DataFrame, runs: pd.DataFrame, path: Path) -> None:
    """A workbook with the Efficiency and Calibration runs sheets."""
    from openpyxl import Workbook

    from reportgen.render.cells import header_row, set_value

    wb = Workbook()
    wb.remove(wb.active)
    for title, frame in ((EFFICIENCY_SHEET, rows), (RUNS_SHEET, runs)):
        ws = wb.create_sheet(title)
        header_row(ws, 1, [str(c) for c in frame.columns])
        for r, values in enumerate(frame.itertuples(index=False), start=2):
            for c, value in enumerate(values, start=1):
                set_value(ws.cell(row=r, column=c), value)
    wb.save(path)


# --- reading -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UserEfficiency:
    """Efficiency rows a user supplied, checked, and the runs behind them (if found)."""

    source: str
    rows: pd.DataFrame  # indexed by key: the shipped columns (filled) and any others
    runs: pd.DataFrame | None  # RUN_TABLE_COLUMNS
    runs_source: str
    files: tuple[InputFile, ...] = ()  # the files read (no output may replace them)


def _key_parts(key: str, catalogs: Catalogs) -> tuple[str, str, str] | str:
    """(GPU or family, compute dtype, engine or "") of a key, or why it is not one."""
    parts = key.split("-")
    engine = ""
    for candidate in schema.ENGINES:
        if key.endswith("-" + candidate):
            engine = candidate
            parts = key[: -len(candidate) - 1].split("-")
            break
    if len(parts) < 2 or parts[-1] not in COMPUTE_DTYPES:
        return (f"key {key!r} does not end in a compute precision ({', '.join(COMPUTE_DTYPES)})"
                " or precision and engine")
    head = "-".join(parts[:-1])
    gpus = {str(g).lower(): str(g) for g in catalogs.gpus.index}
    families = {str(f).lower() for f in catalogs.gpus["family"]} | {"other"}
    if head in gpus and engine:
        return gpus[head], parts[-1], engine
    if head in families:
        return head, parts[-1], engine
    if head in gpus:
        return f"key {key!r} names a GPU but no engine (e.g. {key}-vllm)"
    return f"key {key!r} names no catalog GPU or GPU family ({', '.join(sorted(families))})"


def family_of(key: str, catalogs: Catalogs) -> tuple[str, str]:
    """The GPU family and compute dtype of a valid key."""
    parts = _key_parts(key, catalogs)
    assert not isinstance(parts, str), parts
    head, dtype, _ = parts
    if head in catalogs.gpus.index:
        return str(catalogs.gpus.loc[head, "family"]), dtype
    return head, dtype


def default_key(key: str, shipped: pd.DataFrame, catalogs: Catalogs) -> str:
    """The row a scenario would use without ``key``: the shipped row of the same key, else its
    engine-specific family row, else its family row."""
    if key in shipped.index:
        return key
    parts = _key_parts(key, catalogs)
    assert not isinstance(parts, str), parts
    family, dtype = family_of(key, catalogs)
    engine_key = f"{family}-{dtype}-{parts[2]}"
    return engine_key if parts[2] and engine_key in shipped.index else f"{family}-{dtype}"


def _number(text: object) -> float:
    if isinstance(text, int | float) and not isinstance(text, bool):
        return float(text)
    try:
        return float(str(text).strip().replace(",", ""))
    except ValueError:
        return math.nan


def _check_numbers(key: str, row: int, record: dict[str, object]) -> list[str]:
    problems = []
    ratio = (0.05, 20.0)
    limits = {**{n: BOUNDS[n] for n in PARAMETERS},
              "throughput_ratio_p10": ratio, "throughput_ratio_p90": ratio}
    # the MoE band is optional (blank: the row's band stands for both model classes), as is the
    # MoE GEMM efficiency (blank: the prior)
    limits.update({n: ratio for n in ("moe_ratio_p10", "moe_ratio_p90")
                   if str(record.get(n, "")).strip() != ""})
    if str(record.get("moe_gemm_efficiency", "")).strip() != "":
        limits["moe_gemm_efficiency"] = BOUNDS["moe_gemm_efficiency"]
    for name, (low, high) in limits.items():
        value = _number(record.get(name, ""))
        if not (low <= value <= high):
            got = record.get(name, "")
            problems.append(f"row {row} ({key}), column {name}: got {got!r}; expected a number "
                            f"from {low:g} to {high:g}")
    p10 = _number(record.get("throughput_ratio_p10"))
    p90 = _number(record.get("throughput_ratio_p90"))
    if p10 > p90:
        problems.append(f"row {row} ({key}): throughput_ratio_p10 {p10:g} is above "
                        f"throughput_ratio_p90 {p90:g}; expected p10 ≤ p90")
    return problems


_COUNTS = ("n_measurements", "fit_mdape_pct", "n_runs", "shipped_mdape_pct")


def _number_or_text(value: object) -> object:
    number = _number(value)
    return value if math.isnan(number) else number


def _rows(table: RawTable, catalogs: Catalogs) -> pd.DataFrame:
    header = [h.strip().lower() for h in table.header]
    required = ("key", *PARAMETERS, "throughput_ratio_p10", "throughput_ratio_p90")
    missing = [c for c in required if c not in header]
    if missing:
        raise EfficiencyFileError(table.source, [f"missing column{'s' if len(missing) > 1 else ''}"
                                                 f" {', '.join(missing)}"])
    problems: list[str] = []
    records: dict[str, dict[str, object]] = {}
    for row, cells in table.rows:
        record = {h: ("" if c is None else c) for h, c in zip(header, cells, strict=False) if h}
        key = str(record.get("key", "")).strip().lower()
        if not key:
            problems.append(f"row {row}: the key is blank; expected e.g. h100-sxm-fp8-vllm")
            continue
        parts = _key_parts(key, catalogs)
        if isinstance(parts, str):
            problems.append(f"row {row}: {parts}; expected <gpu>-<precision>-<engine> (e.g. "
                            "h100-sxm-fp8-vllm), <family>-<precision>-<engine> or "
                            "<family>-<precision> (e.g. hopper-fp8)")
            continue
        if key in records:
            problems.append(f"row {row}: key {key} appears twice; expected each key once")
            continue
        problems += _check_numbers(key, row, record)
        family, dtype = family_of(key, catalogs)
        record.update(key=key, family=record.get("family") or family,
                      compute_dtype=record.get("compute_dtype") or dtype,
                      calibrated=str(record.get("calibrated") or "your file").strip().lower())
        records[key] = record
    if problems:
        raise EfficiencyFileError(table.source, problems)
    if not records:
        raise EfficiencyFileError(table.source, ["no rows under the header"])
    frame = with_defaults(pd.DataFrame(list(records.values()), dtype=object).set_index("key"))
    for column in NUMERIC:
        frame[column] = frame[column].map(_number)
    for column in _COUNTS:
        if column in frame.columns:
            frame[column] = frame[column].map(_number_or_text)
    return frame


FIRST_ROW = 2
_NAME = re.compile(r"[a-z][a-z0-9_]*")


def _read_sheet(path: Path, sheet: str) -> RawTable | None:
    """The table at the top of a named worksheet (None if the workbook has no such sheet), read
    as a scenario sheet is (values, never formulas); the table ends at its first blank row."""
    from reportgen.inputfiles import read_input
    from reportgen.readers import MAX_INPUT_BYTES, Grid
    from reportgen.xlsx_input import read_named_sheet

    data, origin = read_input(path, what="an .xlsx workbook", limit=MAX_INPUT_BYTES)
    cells = read_named_sheet(str(path), data, sheet)
    if cells is None:
        return None
    grid = Grid(cells.numbers, cells.columns, cells.extras)
    header = ["" if c is None else str(c).strip() for c in cells.header]
    first = FIRST_ROW
    if len(grid) and grid.numbers[0] == FIRST_ROW and _names_row(grid[0][1]) \
            and not _names_row(header):  # the reader's labels above the names (reportgen build)
        header, first = ["" if c is None else str(c).strip() for c in grid[0][1]], FIRST_ROW + 1
    rows = [(n, row) for i, (n, row) in enumerate(grid[first - FIRST_ROW:]) if n == first + i]
    return RawTable(f"{path} (sheet {cells.name})", header, rows, "", kind="xlsx", origin=origin)


def _names_row(cells: Sequence[object]) -> bool:
    """A header row of machine names (snake_case), as opposed to readers' labels."""
    names = [str(c).strip() for c in cells if c is not None and str(c).strip()]
    return bool(names) and all(_NAME.fullmatch(n) for n in names)


def has_sheet(path: Path, sheet: str) -> bool:
    """Whether the workbook ``path`` has a worksheet of that name (any case)."""
    return _read_sheet(path, sheet) is not None


def _runs_frame(table: RawTable) -> pd.DataFrame:
    header = [h.strip() for h in table.header]
    frame = pd.DataFrame([cells[: len(header)] + [None] * (len(header) - len(cells))
                          for _, cells in table.rows], columns=header)
    frame = frame.reindex(columns=list(RUN_TABLE_COLUMNS))
    for column in frame.columns:
        if column.startswith(("measured_", "predicted_", "shipped_", "mean_")) or column in (
                "completed", "failed", "requests_in_flight", "batch_per_replica"):
            frame[column] = frame[column].map(_number)
    frame["queued"] = frame["queued"].fillna("").astype(str)
    return frame


def _check_file(path: Path) -> None:
    """An efficiency file that is not there, or not a file, is named as such."""
    if not path.exists():
        raise EfficiencyFileError(str(path), ["no such file; give the efficiency file "
                                              "`reportgen calibrate` wrote (CSV or XLSX)"])
    if not path.is_file():
        raise EfficiencyFileError(str(path), ["not a file; give the efficiency file itself"])


def read_efficiency(path: Path, catalogs: Catalogs) -> UserEfficiency:
    """An efficiency file (CSV, or XLSX with an Efficiency sheet) and its runs, checked."""
    _check_file(path)
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        table = _read_sheet(path, EFFICIENCY_SHEET)
        if table is None:
            raise EfficiencyFileError(str(path), [f"no sheet named {EFFICIENCY_SHEET}"])
        runs_table = _read_sheet(path, RUNS_SHEET)
    else:
        table = read_table(path)
        companion = runs_path(path)
        runs_table = read_table(companion) if companion.is_file() else None
    return _user(table, runs_table, catalogs)


def _user(table: RawTable, runs_table: RawTable | None, catalogs: Catalogs) -> UserEfficiency:
    rows = _rows(table, catalogs)
    runs = _runs_frame(runs_table) if runs_table is not None else None
    files = tuple(t.origin for t in (table, runs_table) if t is not None and t.origin)
    return UserEfficiency(table.source, rows, runs, runs_table.source if runs_table else "",
                          files)


def scenario_workbook_efficiency(path: Path, catalogs: Catalogs) -> UserEfficiency | None:
    """The Efficiency (and Calibration runs) sheets of a scenario workbook, if it has them."""
    table = _read_sheet(path, EFFICIENCY_SHEET)
    if table is None:
        return None
    return _user(table, _read_sheet(path, RUNS_SHEET), catalogs)


def join(shipped: pd.DataFrame, user: UserEfficiency
         ) -> tuple[pd.DataFrame, list[str], list[str]]:
    """The shipped table with the user's rows (a user row replaces a shipped row of the same
    key), the keys of the rows that changed the table, and those of them that replaced a
    shipped row. A row equal to the shipped row of its key changes nothing and is skipped."""
    table = shipped.astype(object)
    rows = with_defaults(user.rows)
    extra = [c for c in rows.columns if c not in table.columns]
    for column in extra:
        table[column] = pd.Series("", index=table.index, dtype=object)
    replaced: list[str] = []
    applied: list[str] = []
    for name, row in rows.iterrows():
        key = str(name)
        values = row.reindex(table.columns)
        if key in table.index:
            same = all(math.isclose(at(table, key, c), _number(values[c]), rel_tol=1e-9)
                       for c in NUMERIC)
            if same:
                continue  # the shipped row itself (e.g. a generated workbook read back)
            replaced.append(key)
        applied.append(key)
        for column in table.columns:
            value = values[column]
            table.loc[key, column] = "" if (value is None or (isinstance(value, float)
                                                               and np.isnan(value))) else value
    for column in NUMERIC:
        table[column] = table[column].astype(float)
    table.index.name = "key"
    return table, applied, replaced
