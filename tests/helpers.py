"""Shared test helpers: build a Plan from rows, recalculate a workbook (pure-Python `formulas`
and LibreOffice headless), edit workbook XML without losing cached values, and lint formulas
against the portable subset.

Recalculation results have one shape, ``{sheet: {"B7": value}}``: numbers as float, text as
str, errors as their Excel text ("#N/A"), empty cells left out.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import math
import os
import re
import shutil
import signal
import subprocess
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import openpyxl

from reportgen.pipeline import make_plan
from reportgen.plan import Plan
from reportgen.xlfuncs import PORTABLE_FUNCTIONS
from tests.scenarios import validated

Values = dict[str, dict[str, Any]]

GENERATED = dt.date(2026, 1, 15)


# --- plans ---------------------------------------------------------------------------------------


def build_plan(rows: Sequence[Mapping[str, object]], title: str = "Test plan") -> Plan:
    """Validate rows given as dicts (as if read from scenarios.csv) and estimate them."""
    return make_plan(validated(rows), "scenarios.csv", title, GENERATED)


# --- comparing -----------------------------------------------------------------------------------


def rel_diff(got: float, expected: float) -> float:
    """Relative difference; absolute when the expected value is 0."""
    if expected == 0:
        return abs(got)
    return abs(got - expected) / abs(expected)


def same_value(got: Any, expected: Any, tol: float = 1e-9) -> bool:
    """Numbers within ``tol`` (relative; absolute for zeros), text exactly ("" == empty)."""
    if isinstance(expected, str):
        return (got if got is not None else "") == expected
    if isinstance(got, bool) or not isinstance(got, int | float):
        return False
    return rel_diff(float(got), float(expected)) <= tol


# --- recalculation: formulas --------------------------------------------------------------------

_KEY = re.compile(r"^'\[(?P<book>[^\]]*)\](?P<sheet>.*)'!(?P<ref>\$?[A-Z]{1,3}\$?[0-9]+)$")
_MODELS: dict[tuple[str, int, int], Any] = {}


def _scalar(value: Any) -> Any:
    import numpy as np
    import schedula as sh  # type: ignore[import-untyped]
    from formulas.tokens.operand import XlError

    if hasattr(value, "value"):
        value = value.value
    if isinstance(value, np.ndarray):
        value = value.ravel()[0] if value.size else None
    if value is sh.EMPTY:
        return None
    if isinstance(value, XlError):
        return str(value)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return float(value)
    return value


def _compiled(path: Path) -> Any:
    import formulas

    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _MODELS:
        with contextlib.redirect_stderr(io.StringIO()):  # progress bars
            _MODELS[key] = formulas.ExcelModel().loads(str(path)).finish()
    return _MODELS[key]


def _split_ref(ref: str) -> tuple[str, str]:
    sheet, _, cell = ref.rpartition("!")
    return sheet.strip("'"), cell.replace("$", "").upper()


def recalc_with_formulas(path: Path, set_cells: Mapping[str, Any] | None = None,
                         sheets: Sequence[str] | None = None) -> Values:
    """Every cell's value after the `formulas` package recalculates ``path``.

    ``set_cells`` maps "Sheet!A1" to a new input value. The compiled model is kept per file
    version, so further calls with other inputs only pay for the calculation. ``sheets``: only
    the cells of these sheets are wanted (then only what they depend on is calculated, and
    only they are returned).
    """
    model = _compiled(path)
    book = path.name.upper()
    for key in model.dsp.data_nodes:
        match = isinstance(key, str) and _KEY.match(key)
        if match:
            book = match["book"]
            break
    overrides = {_split_ref(ref): value for ref, value in (set_cells or {}).items()}
    inputs = {f"'[{book}]{s.upper()}'!{c}": v for (s, c), v in overrides.items()}
    wanted = {s.upper() for s in sheets} if sheets is not None else None
    outputs = None if wanted is None else [
        key for key in model.dsp.data_nodes
        if isinstance(key, str) and (m := _KEY.match(key)) and m["sheet"].upper() in wanted]
    with contextlib.redirect_stderr(io.StringIO()):
        solution = (model.calculate(inputs=inputs or None) if outputs is None else
                    model.calculate(inputs=inputs or None, outputs=outputs, shrink=True))
    computed: dict[tuple[str, str], Any] = {}
    for key, value in solution.items():
        match = _KEY.match(key) if isinstance(key, str) else None
        if match:
            computed[(match["sheet"].upper(), match["ref"].replace("$", ""))] = _scalar(value)
    wb = openpyxl.load_workbook(path)
    result: Values = {}
    for ws in wb.worksheets:
        if wanted is not None and ws.title.upper() not in wanted:
            continue
        cells: dict[str, Any] = {}
        for row in ws.iter_rows():
            for cell in row:
                if (ws.title, cell.coordinate) in overrides:
                    value = overrides[(ws.title, cell.coordinate)]
                elif cell.data_type == "f":
                    value = computed.get((ws.title.upper(), cell.coordinate))
                else:
                    value = _scalar(cell.value) if cell.value is not None else None
                if value is not None:
                    cells[cell.coordinate] = value
        result[ws.title] = cells
    return result


# --- recalculation: LibreOffice -----------------------------------------------------------------

_ALWAYS_RECALC = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" \
xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">\
<prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">\
<prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""
LIBREOFFICE_TIMEOUT_S = 180


def soffice() -> str | None:
    """The LibreOffice binary, or None when it is not installed."""
    return shutil.which("soffice") or shutil.which("libreoffice")


def recalc_with_libreoffice(path: Path, tmp_dir: Path, *, always_recalc: bool = False) -> Values:
    """Every cell's value after LibreOffice headless opens ``path`` and saves it as .xlsx.

    LibreOffice computes formula cells that have no cached value; cells with one keep it unless
    ``always_recalc`` (a fresh profile with OOXMLRecalcMode = 0 "always recalculate").
    """
    binary = soffice()
    if binary is None:
        raise RuntimeError("LibreOffice (soffice) is not installed")
    runs = sorted(tmp_dir.glob("lo-run-*"))
    work = tmp_dir / f"lo-run-{len(runs):03d}"
    (work / "in").mkdir(parents=True)
    (work / "out").mkdir()
    profile = work / "profile"
    if always_recalc:
        (profile / "user").mkdir(parents=True)
        (profile / "user" / "registrymodifications.xcu").write_text(_ALWAYS_RECALC)
    source = work / "in" / path.name
    shutil.copyfile(path, source)
    command = [
        binary, f"-env:UserInstallation={profile.resolve().as_uri()}", "--headless",
        "--norestore", "--nolockcheck", "--convert-to", "xlsx:Calc MS Excel 2007 XML",
        "--outdir", str(work / "out"), str(source),
    ]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=LIBREOFFICE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # our own process group only
        proc.communicate()
        raise
    converted = work / "out" / path.name
    if not converted.exists():
        raise RuntimeError(f"LibreOffice did not convert {path.name}: {out!r} {err!r}")
    wb = openpyxl.load_workbook(converted, data_only=True)
    result: Values = {}
    for ws in wb.worksheets:
        result[ws.title] = {
            c.coordinate: (float(c.value) if isinstance(c.value, int | float)
                           and not isinstance(c.value, bool) else c.value)
            for row in ws.iter_rows() for c in row if c.value is not None
        }
    return result


# --- editing the package without openpyxl (keeps cached values) ---------------------------------

_CACHED = re.compile(
    r'(<c r="[A-Z]+[0-9]+"[^>]*?)(?: t="(?:str|e|b|n)")?(>)(<f>[^<]*</f>)<v>[^<]*</v>'
)


def _sheet_parts(archive: zipfile.ZipFile) -> dict[str, str]:
    from reportgen.render.xlsx_cache import sheet_parts

    return sheet_parts(archive)


def _rewrite(src: Path, dst: Path, edit: Mapping[str, Any]) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename in edit:
                data = edit[info.filename](data.decode("utf-8")).encode("utf-8")
            zout.writestr(info, data)


def strip_cached_values(src: Path, dst: Path) -> int:
    """Copy ``src`` to ``dst`` with every formula cell's cached value removed; return how many."""
    count = 0

    def strip(xml: str) -> str:
        nonlocal count
        new, n = _CACHED.subn(r"\1\2\3", xml)
        count += n
        return new

    with zipfile.ZipFile(src) as archive:
        parts = list(_sheet_parts(archive).values())
    _rewrite(src, dst, {part: strip for part in parts})
    return count


def patch_number_cell(src: Path, dst: Path, ref: str, value: float) -> None:
    """Copy ``src`` to ``dst`` with the constant number cell ``ref`` ("Sheet!D2") set to
    ``value`` directly in the XML, so every cached formula value stays (now stale)."""
    sheet, cell = _split_ref(ref)
    pattern = re.compile(rf'(<c r="{cell}"[^>]*>)<v>[^<]*</v>(</c>)')

    def patch(xml: str) -> str:
        new, n = pattern.subn(rf"\g<1><v>{value!r}</v>\g<2>", xml)
        if n != 1:
            raise ValueError(f"{ref} is not a number cell")
        return new

    with zipfile.ZipFile(src) as archive:
        part = _sheet_parts(archive)[sheet]
    _rewrite(src, dst, {part: patch})


# --- portable-subset lint -----------------------------------------------------------------------

LINT_ALLOWED = PORTABLE_FUNCTIONS
EXCEL_MAX_FORMULA_CHARS = 8192
_STRING = re.compile(r'"(?:[^"]|"")*"')
_FUNC = re.compile(r"((?:_xlfn\.|_xlws\.)?[A-Za-z][A-Za-z0-9_.]*)\s*\(")
_WHOLE = re.compile(
    r"(?<![A-Za-z0-9_$])\$?[A-Z]{1,3}:\$?[A-Z]{1,3}(?![0-9A-Za-z_(])"
    r"|(?<![A-Za-z0-9_$:])\$?[0-9]+:\$?[0-9]+(?![0-9])"
)
_SCI = re.compile(r"(?<![A-Za-z0-9_$.])[0-9]+(?:\.[0-9]*)?[eE][+-]?[0-9]")
_UNARY_POWER = re.compile(r"(?:^|[(,=<>*/^&+-])\s*-\s*[0-9A-Za-z_.$!]+\s*\^")


def lint_formula(formula: str) -> list[str]:
    """Problems that take a formula outside the portable subset (empty list: fine)."""
    body = _STRING.sub('""', formula.removeprefix("="))
    problems = [f"function {name}" for name in _FUNC.findall(body)
                if name.upper() not in LINT_ALLOWED]
    if "[" in body:
        problems.append("structured or external reference")
    if _WHOLE.search(body):
        problems.append("whole-column or whole-row range")
    if _SCI.search(body):
        problems.append("exponent literal")
    if _UNARY_POWER.search(body):
        problems.append("unary minus before ^")
    if len(formula) > EXCEL_MAX_FORMULA_CHARS:
        problems.append(f"longer than {EXCEL_MAX_FORMULA_CHARS} characters")
    return problems


def lint_workbook(path: Path) -> tuple[int, list[str]]:
    """Number of formulas checked and every finding as "Sheet!A1: problem"."""
    wb = openpyxl.load_workbook(path)
    checked, findings = 0, []
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type == "f" and isinstance(cell.value, str):
                    checked += 1
                    findings += [f"{ws.title}!{cell.coordinate}: {p}"
                                 for p in lint_formula(cell.value)]
    for name, dn in wb.defined_names.items():
        findings += [f"defined name {name}: {p}" for p in lint_formula(dn.attr_text or "")]
    return checked, findings


def is_number(value: Any) -> bool:
    """A finite number (not bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
