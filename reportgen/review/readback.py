"""Read a plan of record back from a workbook or results CSV that `reportgen build` wrote, and
check it against itself.

What the file claims is recomputed, never trusted:

* its inputs (the workbook's Scenarios sheet, or the results CSV's ``input_row`` column) are
  validated again, against the workbook's own GPU, model and efficiency sheets and Assumptions
  (a results CSV carries no tables: the shipped ones are used);
* the canonical digests of those inputs and that reference data (digest.py) are compared with
  the ones the file stamped when it was written;
* the engine re-estimates the inputs and every recorded result is compared with it, and every
  Plan cell must still be a formula.

A difference is not an error: a finance analyst who changed a price in the workbook made a new
plan of record. It is a finding, shown on the review's cover, in the workbook and on the
terminal. The review uses the file's current inputs and its recorded results (what a reader of
the plan saw); where the file holds no computed values, the re-estimate.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reportgen.catalog import Catalogs, load_catalogs
from reportgen.columns import OUTPUT_COLUMNS, unit_of
from reportgen.digest import SCHEME, inputs_digest, reference_digest, scheme_of
from reportgen.engine import Tables
from reportgen.errors import InputError, PlanFileError
from reportgen.plan import Plan, Provenance
from reportgen.quantities import REGISTRY
from reportgen.readers import RawTable, read_table
from reportgen.review.workloads import replan
from reportgen.stamp import INPUT_ROW, PROVENANCE
from reportgen.units import CONSTANTS
from reportgen.validate import ValidatedInput, validate

REQUIRED_SHEETS = ("Summary", "Scenarios", "Plan", "Assumptions", "GPUs", "Models", "Efficiency")
# Summary rows 2-7 (the cover, labelled in the workbook's language) → Provenance field
COVER = ("generated", "version", "input_name", "input_sha256", "inputs_digest",
         "reference_digest")
FORMULA_COLUMNS = frozenset(REGISTRY) | {"counted", "status"}  # live formulas on Plan
REL_TOLERANCE = 1e-6  # a spreadsheet stores 15 significant digits
MAX_SHOWN = 8  # mismatching cells listed by name; the rest are counted
# the results a reader of the plan looks at, listed first when they differ
HEADLINE = ("gpus", "monthly_cost", "instances", "counted", "status", "bottleneck", "batch",
            "tpot_ms", "ttft_ms")


@dataclass(frozen=True)
class PlanCheck:
    """What reading the plan back found."""

    edited: bool
    findings: tuple[str, ...]  # each a sentence; empty when the file is as written

    @property
    def verdict(self) -> str:
        """One line for a cover page."""
        if not self.edited:
            return "As written: inputs, reference data and results match what reportgen stamped."
        return "Edited after reportgen wrote it (see the plan file check)."


@dataclass(frozen=True)
class PlanRecord:
    """The plan of record as read back, and how it compares with what was written."""

    path: Path
    kind: str  # "workbook" or "results CSV"
    plan: Plan  # the file's inputs, its tables, its recorded results, its stamped provenance
    constants: Mapping[str, float | str]
    check: PlanCheck


def read_plan(path: Path) -> PlanRecord:
    """Read ``path`` (.xlsx workbook or .csv results, written by `reportgen build`)."""
    suffix = path.suffix.lower()
    if suffix in (".xlsx", ".xlsm"):
        return _read_workbook(path)
    if suffix in (".csv", ".txt"):
        return _read_results_csv(path)
    raise PlanFileError(
        f"{path}: a plan must be the workbook (.xlsx) or the results CSV (-results.csv) that "
        f"`reportgen build` wrote; got a {suffix or 'file without suffix'}."
    )


# --- workbook -------------------------------------------------------------------------------------


def _not_ours(path: Path, why: str) -> PlanFileError:
    return PlanFileError(
        f"{path} is not a workbook written by `reportgen build` ({why}). Give the budget "
        "workbook (outputs/<name>.xlsx) or its results CSV, or build one: `reportgen build "
        "SCENARIOS.csv`."
    )


def _cell_rows(sheet: Any) -> list[tuple[Any, ...]]:
    sheet.reset_dimensions()
    return [tuple(r) for r in sheet.iter_rows(values_only=True)]


def _header_rows(rows: list[tuple[Any, ...]]) -> int:
    """How many header rows a table sheet has: 2 (the reader's labels above the machine names,
    as reportgen writes them now) or 1 (machine names only, as earlier releases wrote them)."""
    return 2 if len(rows) > 1 and rows[0] and rows[1] and rows[0][0] != rows[1][0] and \
        isinstance(rows[1][0], str) and rows[1][0].islower() else 1


def _frame(rows: list[tuple[Any, ...]]) -> pd.DataFrame:
    """A lookup table sheet (name in column A, fields from B) as the frame it was written from:
    a column whose cells are all numbers (or blank) is float, any other text with "" blanks."""
    top = _header_rows(rows)
    header = [str(h) for h in rows[top - 1] if h is not None]
    body = [list(r[: len(header)]) + [None] * (len(header) - len(r)) for r in rows[top:]
            if any(v is not None for v in r)]
    columns: dict[str, Any] = {}
    for j, name in enumerate(header[1:], start=1):
        cells = [r[j] for r in body]
        given = [c for c in cells if c is not None]
        numeric = bool(given) and all(isinstance(c, int | float) and not isinstance(c, bool)
                                      for c in given)
        columns[name] = (np.array([np.nan if c is None else float(c) for c in cells])
                         if numeric else ["" if c is None else str(c) for c in cells])
    index = pd.Index([str(r[0]) for r in body], name=header[0])
    return pd.DataFrame(columns, index=index)


def _provenance(path: Path, summary: list[tuple[Any, ...]]) -> Provenance:
    if not summary or not summary[0] or not isinstance(summary[0][0], str):
        raise _not_ours(path, "Summary!A1 holds no plan title")
    found: dict[str, str] = {}
    for field, row in zip(COVER, summary[1:1 + len(COVER)], strict=False):
        if row and isinstance(row[0], str) and len(row) > 1 and row[1] is not None:
            found[field] = str(row[1])
    if not re.fullmatch(r"[0-9a-f]{64}", found.get("input_sha256", "")) or "version" not in found:
        raise _not_ours(path, "its Summary sheet has no input SHA-256 or reportgen version")
    try:
        generated = dt.date.fromisoformat(found.get("generated", "")[:10])
    except ValueError:
        raise _not_ours(path, "Summary: the Generated date is not a date") from None
    return Provenance(
        title=str(summary[0][0]), input_name=found.get("input_name", ""),
        input_sha256=found["input_sha256"], generated=generated, version=found["version"],
        inputs_digest=found.get("inputs_digest", ""),
        reference_digest=found.get("reference_digest", ""),
    )


def _constants(rows: list[tuple[Any, ...]]) -> dict[str, float | str]:
    values: dict[str, float | str] = {}
    for row in rows[1:]:
        if not row or row[0] not in CONSTANTS:
            continue
        value = row[1] if len(row) > 1 else None
        default = CONSTANTS[str(row[0])].value
        if isinstance(default, str):
            values[str(row[0])] = "" if value is None else str(value)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            values[str(row[0])] = float(value)
    return values


def _recorded(values: list[tuple[Any, ...]], formulas: list[tuple[Any, ...]]
              ) -> tuple[pd.DataFrame, list[str], int]:
    """Plan sheet: cached values per quantity, the cells that are no longer formulas, and the
    sheet row of the first scenario."""
    top = _header_rows(values)
    header = [str(h) for h in values[top - 1] if h is not None]
    body = [r for r in values[top:] if r and r[0] not in (None, "")]  # spare rows read ""
    frame = pd.DataFrame([list(r[: len(header)]) for r in body], columns=header)
    typed_over = []
    for i, row in enumerate(formulas[top : len(body) + top], start=top + 1):
        for j, name in enumerate(header):
            raw = row[j] if j < len(row) else None
            if name in FORMULA_COLUMNS and not (isinstance(raw, str) and raw.startswith("=")):
                typed_over.append(f"Plan!{_col(j)}{i} ({name})")
    return frame, typed_over, top + 1


def _col(j: int) -> str:
    from openpyxl.utils.cell import get_column_letter

    return str(get_column_letter(j + 1))


def _read_workbook(path: Path) -> PlanRecord:
    raw = _scenario_table(path)  # size, zip and encryption checks happen here
    import openpyxl

    data = path.read_bytes()
    try:
        values = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        formulas = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    except Exception as err:  # openpyxl raises many types for a damaged file
        raise PlanFileError(f"{path} cannot be read as a workbook ({type(err).__name__}).") \
            from None
    try:
        missing = [s for s in REQUIRED_SHEETS if s not in values.sheetnames]
        if missing:
            raise _not_ours(path, "no sheet " + ", ".join(missing))
        sheets = {name: _cell_rows(values[name]) for name in REQUIRED_SHEETS}
        plan_formulas = _cell_rows(formulas["Plan"])
    finally:
        values.close()
        formulas.close()
    provenance = _provenance(path, sheets["Summary"])
    tables = Tables(_frame(sheets["GPUs"]), _frame(sheets["Models"]),
                    _frame(sheets["Efficiency"]))
    constants = {**{n: c.value for n, c in CONSTANTS.items()}, **_constants(sheets["Assumptions"])}
    checked = _validate(path, raw, Catalogs(tables.gpus, tables.models), "its Scenarios sheet")
    checked = replace(checked, tables=replace(checked.tables, efficiency=tables.efficiency))
    recorded, typed_over, first_row = _recorded(sheets["Plan"], plan_formulas)
    return _record(path, "workbook", checked, constants, provenance, recorded, "Plan!",
                   typed_over, first_row)


def _scenario_table(path: Path) -> RawTable:
    try:
        raw = read_table(path)
    except InputError as err:
        raise PlanFileError(f"the plan file cannot be read: {err}") from None
    if "(sheet Scenarios)" not in raw.source:
        raise _not_ours(path, "it has no Scenarios sheet")
    return raw


def _validate(path: Path, raw: RawTable, catalogs: Catalogs | None, where: str
              ) -> ValidatedInput:
    try:
        return validate(raw, catalogs=catalogs, base_dir=path.parent)
    except InputError as err:
        raise PlanFileError(
            f"{path}: the plan's inputs ({where}) no longer validate, so the plan cannot be "
            f"re-estimated; was the file edited by hand? {err}"
        ) from None


# --- results CSV ----------------------------------------------------------------------------------


def _read_results_csv(path: Path) -> PlanRecord:
    try:
        text = path.read_text(encoding="utf-8-sig")
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise PlanFileError(f"{path} cannot be read as a results CSV: {err}") from None
    missing = [c for c in (INPUT_ROW, PROVENANCE, "scenario") if c not in frame.columns]
    if missing or frame.empty:
        raise PlanFileError(
            f"{path} is not a results CSV written by `reportgen build` (no column "
            f"{', '.join(missing) or 'rows'}: the provenance columns carry the plan's inputs and "
            "stamp). Give the workbook or <name>-results.csv of a current `reportgen build`."
        )
    try:
        rows = [json.loads(cell) for cell in frame[INPUT_ROW]]
        stamp = json.loads(frame[PROVENANCE].iloc[0])
        provenance = Provenance(
            title=str(stamp["title"]), input_name=str(stamp["input_name"]),
            input_sha256=str(stamp["input_sha256"]),
            generated=dt.date.fromisoformat(str(stamp["generated"])),
            version=str(stamp["reportgen_version"]),
            inputs_digest=str(stamp["inputs_digest"]),
            reference_digest=str(stamp["reference_digest"]),
        )
    except (ValueError, KeyError, TypeError) as err:
        raise PlanFileError(f"{path}: the provenance columns are damaged ({err}); was the file "
                            "edited by hand? Rebuild it with `reportgen build`.") from None
    header = list(dict.fromkeys(k for row in rows for k in row))
    body = [(n, [row.get(k) for k in header]) for n, row in enumerate(rows, start=2)]
    raw = RawTable(f"{path} ({INPUT_ROW} column)", header, body, sha256="")
    # priced as the build priced it: the shipped book, staleness judged at the plan's date
    checked = _validate(path, raw, load_catalogs(provenance.generated), f"its {INPUT_ROW} column")
    constants = {n: c.value for n, c in CONSTANTS.items()}
    recorded = frame[[c for c in frame.columns if c in OUTPUT_COLUMNS]].copy()
    for name in recorded.columns:
        if _kind(name) == "number":
            recorded[name] = pd.to_numeric(recorded[name].replace("", np.nan), errors="coerce")
    return _record(path, "results CSV", checked, constants, provenance, recorded, "", [])


# --- checks ---------------------------------------------------------------------------------------


def _listing(items: list[str]) -> str:
    shown = "; ".join(items[:MAX_SHOWN])
    return shown + (f"; and {len(items) - MAX_SHOWN} more" if len(items) > MAX_SHOWN else "")


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""  # an empty text cell reads back as nothing
    return str(value)


def _same(recorded: Any, engine: Any, kind: str) -> bool:
    if kind == "text":
        return _text(recorded) == _text(engine)
    expected = float(engine)
    if isinstance(recorded, str) and recorded.startswith("#"):  # #DIV/0! cached for inf/NaN
        return not math.isfinite(expected)
    try:
        got = float(recorded)
    except (TypeError, ValueError):
        return False
    if not math.isfinite(expected) or not math.isfinite(got):
        return math.isnan(got) and not math.isfinite(expected)
    return abs(got - expected) <= REL_TOLERANCE * max(abs(expected), 1e-12)


def _kind(name: str) -> str:
    return "text" if unit_of(name) == "text" else "number"


def _mismatches(recorded: pd.DataFrame, engine: pd.DataFrame, prefix: str,
                first_row: int) -> list[str]:
    """Every recorded cell that differs from the re-estimate, headline results first (rows
    numbered from ``first_row``, the file's first data row)."""
    found: list[tuple[int, str]] = []
    for i in range(min(len(recorded), len(engine))):
        scenario = str(engine["scenario"].iloc[i])
        for j, name in enumerate(recorded.columns):
            if name not in engine.columns:
                continue
            got, want = recorded[name].iloc[i], engine[name].iloc[i]
            if not _same(got, want, _kind(name)):
                row = i + first_row
                where = f"{prefix}{_col(j)}{row} " if prefix else f"row {row} "
                rank = HEADLINE.index(name) if name in HEADLINE else len(HEADLINE)
                found.append((rank, f'{where}({name} of "{scenario}") holds {_show(got)}, its '
                                    f"inputs give {_show(want)}"))
    return [text for _, text in sorted(found, key=lambda pair: pair[0])]


def _show(value: Any) -> str:
    if isinstance(value, float | int | np.floating | np.integer) and not isinstance(value, bool):
        return f"{float(value):,.6g}"
    return repr(value)


def _check(checked: ValidatedInput, constants: Mapping[str, float | str],
           provenance: Provenance, recorded: pd.DataFrame, engine: pd.DataFrame, prefix: str,
           kind: str, first_row: int) -> list[str]:
    findings = []
    now = inputs_digest(checked.scenarios, checked.specs)
    if scheme_of(provenance.inputs_digest) != SCHEME:
        findings.append(f"The {kind} carries no inputs digest this reportgen can recompute "
                        f"(written by reportgen {provenance.version}): edits are detected by "
                        "re-estimation only.")
    elif now != provenance.inputs_digest:
        findings.append(f"The inputs differ from those the {kind} was written from (inputs "
                        f"digest stamped {provenance.inputs_digest[:12]}…, now {now[:12]}…): a "
                        "scenario row was edited, added or deleted after reportgen wrote it.")
    if scheme_of(provenance.reference_digest) == SCHEME and (
        reference_digest(checked.tables, constants) != provenance.reference_digest
    ):
        where = ("the Assumptions, GPUs, Models or Efficiency sheet was edited"
                 if kind == "workbook" else
                 f"this reportgen's catalog or constants differ from those of reportgen "
                 f"{provenance.version}, which wrote the file")
        findings.append(f"The reference data differs from what the plan was computed with "
                        f"(reference digest): {where}.")
    rows = recorded["scenario"].astype(str).tolist() if "scenario" in recorded.columns else []
    names = engine["scenario"].astype(str).tolist()
    if sorted(rows) != sorted(names):
        findings.append(f"The results hold {len(rows)} rows for {len(names)} scenarios; rows "
                        "were added to or deleted from the results.")
        return findings
    if recorded.isna().all().all():
        return findings
    ordered = recorded.set_index(recorded["scenario"].astype(str)).loc[names]
    different = _mismatches(ordered.reset_index(drop=True)[list(recorded.columns)],
                            engine.reset_index(drop=True), prefix, first_row)
    if different:
        findings.append(f"{len(different)} recorded result(s) differ from what the file's own "
                        f"inputs give: {_listing(different)}.")
    return findings


def _record(path: Path, kind: str, checked: ValidatedInput, constants: Mapping[str, float | str],
            provenance: Provenance, recorded: pd.DataFrame, prefix: str,
            typed_over: list[str], first_row: int = 2) -> PlanRecord:
    replanned = replan(checked, provenance)
    engine = replanned.results
    findings = _check(checked, constants, provenance, recorded, engine, prefix, kind, first_row)
    if typed_over:
        findings.insert(0, f"{len(typed_over)} Plan cell(s) hold typed values where reportgen "
                        f"wrote formulas: {_listing(typed_over)}.")
    results = engine.copy()
    complete = "scenario" in recorded.columns and not recorded.isna().all().all()
    if complete and sorted(recorded["scenario"].astype(str)) == sorted(
            engine["scenario"].astype(str)):
        by_name = recorded.set_index(recorded["scenario"].astype(str))
        for name in (c for c in recorded.columns if c in engine.columns):
            column = by_name[name].reindex(engine["scenario"].astype(str)).to_numpy()
            if _kind(name) == "number":
                column = pd.to_numeric(pd.Series(column), errors="coerce").to_numpy()
                missing = np.isnan(column.astype(float))
                column = np.where(missing, engine[name].to_numpy(dtype=float), column)
            else:
                column = np.array([_text(v) for v in column], dtype=object)
            results[name] = column
    elif not complete:
        findings.append("The file holds no computed results (saved by a program that does not "
                        "store them); the plan is re-estimated from its inputs.")
    edited = any(not f.startswith("The file holds no computed") and "no inputs digest" not in f
                 for f in findings)  # a file without a digest is not an edited file
    plan = replace(replanned, results=results)
    return PlanRecord(path, kind, plan, dict(constants), PlanCheck(edited, tuple(findings)))
