"""What the budget workbook contains, checked with openpyxl (no recalculation): sheets, names,
validations, charts, formats, panes, conditional formats, headers, the portable formula subset,
text that looks like a formula, cached values and deterministic output."""

from __future__ import annotations

import zipfile
from pathlib import Path

import openpyxl
import pytest
from openpyxl.workbook.workbook import Workbook

from reportgen import schema
from reportgen.engine import RESULT_COLUMNS
from reportgen.labels import label
from reportgen.pipeline import make_plan
from reportgen.plan import Plan
from reportgen.quantities import REGISTRY
from reportgen.readers import read_table
from reportgen.render.layout import FIRST_ROW, NAME_ROW
from reportgen.render.plan_sheet import EXTRA_COLUMNS
from reportgen.render.workbook import SPARE_ROWS, write_workbook
from reportgen.units import CONSTANTS
from reportgen.validate import validate
from tests.helpers import build_plan, lint_workbook

SHEETS = [
    "Summary", "BOM", "Sensitivity", "Scenarios", "Plan", "Options", "Levers", "Batch curve",
    "Latency", "Assumptions", "GPUs", "Models", "Efficiency", "Method",
]
TRICKY_NAMES = ('=HYPERLINK("http://x","y")', "+1+1", "@SUM(1)", "-2")
BASE = dict(model="Llama-3.1-70B", gpu="H100-SXM", peak_qps=20, avg_prompt_tokens=2000,
            avg_output_tokens=500)
ROWS = (
    dict(BASE, scenario="chat-70b", tpot_slo_ms=40),
    dict(BASE, scenario=TRICKY_NAMES[0], gpu="L4", model="Llama-3.1-405B"),  # does not fit
    dict(BASE, scenario=TRICKY_NAMES[1], engine="sglang", tp=8),
    dict(BASE, scenario=TRICKY_NAMES[2], method="tutorial", gpu="H200-SXM"),
    dict(BASE, scenario=TRICKY_NAMES[3], weight_dtype="fp8", kv_dtype="fp8", max_batch=32),
)


@pytest.fixture(scope="module")
def plan() -> Plan:
    return build_plan(ROWS)


@pytest.fixture(scope="module")
def path(plan: Plan, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wb") / "plan.xlsx"
    write_workbook(plan, out)
    return out


@pytest.fixture(scope="module")
def wb(path: Path) -> Workbook:
    return openpyxl.load_workbook(path)


@pytest.fixture(scope="module")
def cached(path: Path) -> Workbook:
    return openpyxl.load_workbook(path, data_only=True)


def header(ws: object, row: int = NAME_ROW) -> list[object]:
    return [c.value for c in ws[row]]  # type: ignore[index]


def test_sheets_present_and_ordered(wb: Workbook) -> None:
    assert wb.sheetnames == SHEETS
    assert wb.active.title == "Summary"


def test_header_rows_are_the_column_names(wb: Workbook) -> None:
    assert header(wb["Scenarios"]) == [c.name for c in schema.COLUMNS]
    assert header(wb["Plan"]) == [*RESULT_COLUMNS, *EXTRA_COLUMNS]
    assert header(wb["Plan"], 1) == [label(n) for n in [*RESULT_COLUMNS, *EXTRA_COLUMNS]]
    for name, col in zip(RESULT_COLUMNS, wb["Plan"][1], strict=False):
        assert col.comment.text.startswith(name) and REGISTRY[name].doc in col.comment.text
    peak = wb["Scenarios"]["D1"]
    assert peak.value == "Peak requests (req/s)" and "[req/s]" in peak.comment.text
    assert wb["Scenarios"]["D2"].value == "peak_qps"


def test_every_constant_is_a_named_cell(wb: Workbook) -> None:
    assert set(CONSTANTS) <= set(wb.defined_names)
    for name, constant in CONSTANTS.items():
        (sheet, ref), = wb.defined_names[name].destinations
        assert sheet == "Assumptions"
        cell = wb[sheet][ref.replace("$", "")]
        assert cell.value == constant.value
        assert cell.offset(column=-1).value == name
        assert cell.fill.fgColor.rgb == ("FFFFF2CC" if constant.editable else "FFEDEDED")


def test_dropdowns_reject_unknown_values(wb: Workbook, plan: Plan) -> None:
    ws = wb["Scenarios"]
    columns = {c.value: c.column_letter for c in ws[NAME_ROW]}
    lists = {}
    for dv in ws.data_validations.dataValidation:
        assert dv.showErrorMessage and dv.error
        for rng in dv.sqref.ranges:
            lists[rng.coord] = (dv.type, dv.formula1)
    n = len(plan.scenarios) + SPARE_ROWS + FIRST_ROW - 1  # validation covers the spare rows

    def validation(column: str) -> tuple[str, str]:
        return lists[f"{columns[column]}{FIRST_ROW}:{columns[column]}{n}"]

    models = len(plan.tables.models) + FIRST_ROW - 1
    assert validation("model") == ("list", f"Models!$A${FIRST_ROW}:$A${models}")
    gpus = len(plan.tables.gpus) + FIRST_ROW - 1
    assert validation("gpu") == ("list", f"GPUs!$A${FIRST_ROW}:$A${gpus}")
    for column, choices in (("weight_dtype", schema.DTYPES), ("kv_dtype", schema.DTYPES),
                            ("engine", schema.ENGINES), ("method", schema.METHODS)):
        assert validation(column) == ("list", '"' + ",".join(choices) + '"')
    assert validation("peak_qps")[0] == "decimal"
    # "> 0" columns refuse 0 in the sheet as the CLI does (0 would divide by zero downstream)
    for column in (c.name for c in schema.COLUMNS if c.above_minimum and c.name in columns):
        floor = float(validation(column)[1])
        assert 0 < floor <= 1e-6, column
    switches = [dv for dv in wb["Assumptions"].data_validations.dataValidation
                if dv.formula1 == '"0,1"']
    flags = [c.name for c in CONSTANTS.values() if c.unit == "flag"]
    assert flags and len(switches) == len(flags) and all(dv.showErrorMessage for dv in switches)
    (curve,) = wb["Batch curve"].data_validations.dataValidation
    assert curve.type == "list" and curve.showErrorMessage
    assert curve.formula1 == f"Plan!$A${FIRST_ROW}:$A${n}" and str(curve.sqref) == "B2"


def test_only_assumptions_are_signposted_as_editable(wb: Workbook) -> None:
    ws = wb["Assumptions"]
    fills = {ws.cell(row=r, column=1).value: ws.cell(row=r, column=2).fill.fgColor.rgb
             for r in range(FIRST_ROW, ws.max_row + 1)}
    fixed = {c.name for c in CONSTANTS.values() if not c.editable}
    assert {"BYTES_PER_GIB", "CURRENCY", "SECONDS_PER_HOUR"} <= fixed
    assert {fills[name] for name in fixed} == {"FFEDEDED"}  # grey: a definition
    assert {fills[c.name] for c in CONSTANTS.values() if c.editable} == {"FFFFF2CC"}  # yellow


def test_inputs_look_editable_and_blank_stays_blank(wb: Workbook, plan: Plan) -> None:
    ws = wb["Scenarios"]
    columns = {c.value: c.column_letter for c in ws[NAME_ROW]}
    for r in range(FIRST_ROW, len(plan.scenarios) + FIRST_ROW):
        for letter in columns.values():
            assert ws[f"{letter}{r}"].fill.fgColor.rgb == "FFFFF2CC"
    assert ws[f"{columns['tp']}{FIRST_ROW}"].value is None  # auto
    assert ws[f"{columns['tp']}{FIRST_ROW + 2}"].value == 8
    assert ws[f"{columns['tpot_slo_ms']}{FIRST_ROW + 1}"].value is None


def test_charts(wb: Workbook, path: Path) -> None:
    assert [c.tagname for c in wb["Summary"]._charts] == ["barChart"]
    assert [c.tagname for c in wb["Batch curve"]._charts] == ["lineChart"]
    with zipfile.ZipFile(path) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    bar = [c for c in charts if "<barChart>" in c]
    line = [c for c in charts if "<lineChart>" in c]
    # over formula cells: the chart's table of budgeted rows (scenario, budgeted monthly cost)
    assert len(bar) == 1 and "<val><numRef><f>'Summary'!$B$" in bar[0]
    assert "<cat><strRef><f>'Summary'!$A$" in bar[0]
    assert len(line) == 1 and line[0].count("<ser>") == 3  # throughput, TPOT, TPOT target


def test_number_formats_frozen_panes_and_conditional_formats(wb: Workbook) -> None:
    plan = wb["Plan"]
    columns = {c.value: c.column_letter for c in plan[NAME_ROW]}
    r = FIRST_ROW
    assert plan[f"{columns['monthly_cost']}{r}"].number_format == '"$"#,##0'
    assert plan[f"{columns['utilization_at_avg_load']}{r}"].number_format == "0.0%"
    assert plan[f"{columns['gpus']}{r}"].number_format == "#,##0"
    assert plan[f"{columns['instance_flops_prefill']}{r}"].number_format == "#,##0.0,,,,"
    assert wb["Scenarios"][f"D{r}"].number_format == "#,##0.00"
    assert plan.freeze_panes == f"B{r}" and wb["Scenarios"].freeze_panes == f"B{r}"
    rules = [(str(cf.sqref), r) for cf in plan.conditional_formatting for r in cf.rules]
    formulas = " ".join(f for _, r in rules for f in r.formula)
    assert "weights_do_not_fit" in formulas and "slo_unreachable" in formulas
    kind = columns["bottleneck"]
    for name in ("kv_memory", "tpot_slo", "ttft_slo", "batch_cap"):
        assert any(s.startswith(f"{kind}{FIRST_ROW}:") and f'"{name}"' in r.formula
                   for s, r in rules)


def test_every_formula_is_portable(path: Path) -> None:
    checked, findings = lint_workbook(path)
    assert checked > len(RESULT_COLUMNS) * len(ROWS)
    assert findings == []


def test_plan_cells_are_formulas_from_the_registry(wb: Workbook) -> None:
    plan = wb["Plan"]
    planned = {c.column_letter for c in plan[NAME_ROW] if str(c.value).startswith("planned_")}
    for col in plan.iter_cols(min_row=FIRST_ROW):
        if col[0].column_letter not in planned:
            assert all(c.data_type == "f" for c in col)
    blank = 'IF(ISBLANK(Scenarios!$A{r}),"",{formula})'  # a cleared or spare row reads blank
    r = FIRST_ROW
    assert plan[f"A{r}"].value == "=" + blank.format(r=r, formula=f"Scenarios!A{r}")
    columns = {c.value: c.column_letter for c in plan[NAME_ROW]}
    assert (plan[f"{columns['gpus']}{r + 1}"].value == "=" + blank.format(
        r=r + 1, formula=f"{columns['instances']}{r + 1}*{columns['gpus_per_instance']}{r + 1}"))
    assert "INDEX(GPUs!$" in plan[f"{columns['gpu_memory_gib']}{r}"].value


def test_text_that_looks_like_a_formula_stays_text(wb: Workbook, cached: Workbook) -> None:
    for r, name in enumerate(TRICKY_NAMES, start=FIRST_ROW + 1):
        cell = wb["Scenarios"][f"A{r}"]
        assert (cell.value, cell.data_type, cell.quotePrefix) == (name, "s", True)
        assert cached["Plan"][f"A{r}"].value == name
        assert wb["Plan"][f"A{r}"].value == f'=IF(ISBLANK(Scenarios!$A{r}),"",Scenarios!A{r})'
    assert wb["Batch curve"]["B2"].data_type == "s"


def test_method_lists_every_quantity_with_its_template_as_text(wb: Workbook) -> None:
    ws = wb["Method"]
    top = next(r for r in range(1, 30) if ws[f"A{r}"].value == "name")
    rows = list(ws.iter_rows(min_row=top + 1, values_only=False))
    assert [r[0].value for r in rows] == list(REGISTRY)
    for row, q in zip(rows, REGISTRY.values(), strict=True):
        assert row[3].value == q.excel and row[3].data_type == "s"
    text = " ".join(str(c.value) for c in ws["A"][:8])
    assert "Recalculat" in text and "LibreOffice" in text


def test_cached_values_are_the_engine_results(cached: Workbook, plan: Plan, path: Path) -> None:
    ws = cached["Plan"]
    for i in range(len(plan.results)):
        for j, name in enumerate(RESULT_COLUMNS, start=1):
            got, expected = ws.cell(row=i + FIRST_ROW, column=j).value, plan.results.iloc[i][name]
            if isinstance(expected, str):
                assert (got or "") == expected
            else:
                assert got == pytest.approx(float(expected), rel=1e-12, abs=1e-12)
    with zipfile.ZipFile(path) as z:
        assert 'fullCalcOnLoad="1"' in z.read("xl/workbook.xml").decode()
        core = z.read("docProps/core.xml").decode()
    assert "2026-01-15T00:00:00Z" in core


def test_scenarios_sheet_reads_back_as_the_same_input(path: Path, plan: Plan) -> None:
    again = validate(read_table(path))
    results = make_plan(again, path.name).results
    assert list(results["gpus"]) == list(plan.results["gpus"])
    assert list(results["scenario"]) == list(plan.results["scenario"])


def test_same_plan_same_workbook(plan: Plan, tmp_path: Path) -> None:
    first, second = tmp_path / "a.xlsx", tmp_path / "b.xlsx"
    write_workbook(plan, first)
    write_workbook(plan, second)
    with zipfile.ZipFile(first) as a, zipfile.ZipFile(second) as b:
        assert a.namelist() == b.namelist()
        for name in a.namelist():
            assert a.read(name) == b.read(name), name
            assert a.getinfo(name).date_time == b.getinfo(name).date_time


def test_every_unit_has_a_number_format() -> None:
    from reportgen.formats import FORMATS

    units = {q.unit for q in REGISTRY.values()} | {c.unit for c in CONSTANTS.values()}
    units |= {c.unit for c in schema.COLUMNS if c.unit}
    assert units - set(FORMATS) == set()


def _width(ws: object, index: int) -> float | None:
    """The width a column is written with (a grouped range's entry covers its columns)."""
    for dim in ws.column_dimensions.values():  # type: ignore[attr-defined]
        if dim.min is not None and dim.min <= index <= dim.max and dim.customWidth:
            return float(dim.width)
    return None


def test_variant_sheets_are_as_wide_as_the_plan(wb: Workbook) -> None:
    """Options and Levers show a seven-digit monthly cost as the Plan does, never as ###: every
    named column is written at least 12 characters wide (a column left at the default shows
    $1,020,774 as ### in print and on screen)."""
    for title in ("Plan", "Options", "Levers"):
        ws = wb[title]
        names = [c for c in ws[NAME_ROW] if c.value]
        assert len(names) > 20, title
        narrow = [c.value for c in names if (_width(ws, c.column) or 0) < 12]
        assert narrow == [], (title, narrow[:5])
