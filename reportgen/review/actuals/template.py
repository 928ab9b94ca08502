"""The actuals template: one row per workload and period, CSV or XLSX (`reportgen columns
--actuals` lists the columns). Periods are whole days, first and last day inclusive; a
workload's periods must follow each other without gaps or overlaps."""

from __future__ import annotations

import datetime as dt
import itertools
import math
import re
from collections import defaultdict
from pathlib import Path

from reportgen.errors import ActualsError, InputError
from reportgen.readers import RawTable, read_table
from reportgen.review.actuals.measures import STACK, TEMPLATE_COLUMNS
from reportgen.review.actuals.source import SourceData, Span, period_frame

KIND = "actuals template"
BY_NAME = {c.name: c for c in TEMPLATE_COLUMNS}
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")


def is_template(header: list[str]) -> bool:
    """True when the header has the template's key columns."""
    names = {h.strip().lower() for h in header}
    return {"workload", "period_start", "period_end"} <= names


def _number(cell: object) -> float | None:
    if isinstance(cell, bool):
        return None
    if isinstance(cell, int | float):
        return float(cell)
    text = str(cell).strip().replace("\u00a0", "").replace(" ", "")
    if _THOUSANDS.match(text):
        text = text.replace(",", "")
    try:
        return float(text)
    except ValueError:
        return None


def _date(cell: object) -> dt.date | None:
    if isinstance(cell, dt.datetime):
        return cell.date()
    if isinstance(cell, dt.date):
        return cell
    try:
        return dt.date.fromisoformat(str(cell).strip()[:10])
    except ValueError:
        return None


def read_template(path: Path, table: RawTable | None = None) -> SourceData:
    """Read an actuals template file; ActualsError lists every problem."""
    if table is None:
        try:
            table = read_table(path)
        except InputError as err:
            raise ActualsError([str(err)]) from None
    problems: list[str] = []
    positions: dict[str, int] = {}
    for i, name in enumerate(table.header):
        key = name.strip().lower()
        if key in BY_NAME:
            positions[key] = i
        elif key:
            problems.append(f"{table.source}: column {name!r} is not an actuals column; see "
                            "`reportgen columns --actuals`.")
    rows: list[dict[str, object]] = []
    for n, cells in table.rows:
        row = _row(table.source, n, cells, positions, problems)
        if row is not None:
            rows.append(row)
    if not rows and not problems:
        problems.append(f"{table.source} has no rows under its header.")
    coverage = _tile(table.source, rows, problems)
    if problems:
        raise ActualsError(problems)
    for row in rows:
        if "gpu_hours" not in row and "gpus" in row:
            hours = (row["end"] - row["start"]).days * 24  # type: ignore[operator]
            row["gpu_hours"] = float(row.pop("gpus")) * hours  # type: ignore[arg-type]
        row.pop("gpus", None)
    notes = (f"{len(rows)} rows for {len(coverage)} workload(s).",)
    return SourceData(path.name, KIND, period_frame(rows, path.name), coverage, notes)


def _row(source: str, n: int, cells: list[object], positions: dict[str, int],
         problems: list[str]) -> dict[str, object] | None:
    def cell(name: str) -> object:
        i = positions.get(name)
        value = cells[i] if i is not None and i < len(cells) else None
        return None if value is None or (isinstance(value, str) and not value.strip()) else value

    if not any(cell(name) is not None for name in positions):
        return None
    where = f"{source}, row {n}"
    workload = cell("workload")
    row: dict[str, object] = {"workload": str(workload).strip() if workload else ""}
    if not workload:
        problems.append(f"{where}: the workload is blank; name the plan's workload or scenario.")
    for name in ("period_start", "period_end"):
        day = _date(cell(name)) if cell(name) is not None else None
        if day is None:
            problems.append(f"{where}, column {name}: got {cell(name)!r}; expected a date "
                            "YYYY-MM-DD.")
        row[name] = day
    if row["period_start"] and row["period_end"]:
        start, last = row.pop("period_start"), row.pop("period_end")
        if last < start:  # type: ignore[operator]
            problems.append(f"{where}: period_end {last} is before period_start {start}.")
        row["start"], row["end"] = start, last + dt.timedelta(days=1)  # type: ignore[operator]
    for column in TEMPLATE_COLUMNS[3:]:
        value = cell(column.name)
        if value is None:
            continue
        if column.name in STACK:
            row[column.name] = str(value).strip()
            continue
        number = _number(value)
        if column.unit == "fraction" and isinstance(value, str) and value.strip().endswith("%"):
            number = _number(value.strip()[:-1])
            number = None if number is None else number / 100
        if number is None or math.isnan(number) or number < 0:
            problems.append(f"{where}, column {column.name}: got {value!r}; expected "
                            f"{column.allowed()} {column.unit}.".rstrip(" ."))
            continue
        if column.maximum is not None and number > column.maximum:
            hint = (" It looks like a percentage: vLLM's kv_cache_usage_perc is a fraction "
                    "0-1; divide by 100." if column.unit == "fraction" else "")
            problems.append(f"{where}, column {column.name}: got {value!r}; expected at most "
                            f"{column.maximum:g}.{hint}")
            continue
        row[column.name] = number
    if "gpu_hours" in row and "gpus" in row:
        problems.append(f"{where}: both gpu_hours and gpus are given; give one of them.")
    return row


def _tile(source: str, rows: list[dict[str, object]], problems: list[str]) -> dict[str, Span]:
    periods: dict[str, list[tuple[dt.date, dt.date]]] = defaultdict(list)
    for row in rows:
        if row.get("workload") and isinstance(row.get("start"), dt.date):
            periods[str(row["workload"])].append((row["start"], row["end"]))  # type: ignore[arg-type]
    coverage = {}
    for workload, spans in periods.items():
        spans.sort()
        for (a0, a1), (b0, b1) in itertools.pairwise(spans):
            if b0 < a1:
                problems.append(f"{source}: workload {workload!r} has overlapping periods "
                                f"{a0}–{a1 - dt.timedelta(days=1)} and "
                                f"{b0}–{b1 - dt.timedelta(days=1)}; each day belongs to one row.")
            elif b0 > a1:
                problems.append(f"{source}: workload {workload!r} has no row for "
                                f"{a1}–{b0 - dt.timedelta(days=1)} (a missing period).")
        coverage[workload] = (spans[0][0], max(s[1] for s in spans))
    return coverage
