"""The Summary sheet: provenance, fleet totals and one line per scenario, all formulas over Plan,
with a bar chart of the monthly cost by scenario."""

from __future__ import annotations

import math

import pandas as pd
from openpyxl.chart import BarChart, Reference
from openpyxl.chart.data_source import AxDataSource, StrRef
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.columns import unit_of
from reportgen.finance.support import SUPPORTED_PROVIDER, support, support_formula
from reportgen.plan import Provenance
from reportgen.quantities import REGISTRY
from reportgen.render.cells import (
    HEADER_FONT,
    NOTE_FONT,
    TITLE_FONT,
    header_row,
    number_format,
    set_formula,
    set_text,
    set_widths,
    wrap_across,
)
from reportgen.render.checks_block import checks, write_checks
from reportgen.render.layout import PLAN, SCENARIOS, Layout, letter, sheet_ref
from reportgen.render.registry_rows import cached
from reportgen.render.xlsx_cache import CachedValue
from reportgen.units import CONSTANTS

WIDTHS = (40.0, 18.0, 18.0, 22.0, 20.0, 14.0, 22.0)  # columns A-G, in characters
ROW_CM = 0.53  # height of a default row (15 points)
TOTALS_HEADER_ROW = 10  # rows 2-7: the cover (provenance and digests)
TOTALS_FIRST_ROW = TOTALS_HEADER_ROW + 1
TOTALS: tuple[str, ...] = (
    "gpus", "nodes", "monthly_cost", "annual_cost",
    "gpus_low", "gpus_high", "monthly_cost_low", "monthly_cost_high",
)
# Below the totals: the support plan on the spend with its provider, and the total with it.
SUPPORT_LINES: tuple[tuple[str, str, str], ...] = (
    ("supported_spend", "USD/month",
     f"Budgeted monthly cost priced with {SUPPORTED_PROVIDER}: what the support plan charges on."),
    ("support_monthly_cost", "USD/month",
     "Support plan on that spend (Assumptions: SUPPORT_* bands, INCLUDE_SUPPORT switch)."),
    ("total_monthly_cost", "USD/month", "Monthly cost plus support: the plan's monthly total."),
    ("total_annual_cost", "USD/year", "Total monthly cost × MONTHS_PER_YEAR."),
)
SUPPORT_FIRST_ROW = TOTALS_FIRST_ROW + len(TOTALS)
PER_SCENARIO: tuple[str, ...] = (
    "scenario", "gpus", "monthly_cost", "cost_per_million_output_tokens", "bottleneck",
    "status", "budgeted_monthly_cost",
)
FLAG = "counted"
# The chart shows what each row adds to the total: comparisons and unchosen options add 0.
CHARTED = "budgeted_monthly_cost"

STATUS_COUNTS = (
    ("chosen", "budgeted"), ("option", "options not chosen"), ("compare", "for comparison"),
    ("no fit", "not fitting"), ("no price", "without a price"), ("error", "with errors"),
)
TOTALS_NOTE = (
    "Sums of Plan columns over rows with counted = 1: per workload, the cheapest plan row that "
    "meets its targets. Comparison rows (role compare, the tutorial's method), other options "
    "of a workload, rows that do not fit and rows whose formulas fail are not counted; Checks "
    "below names them."
)


def totals(results: pd.DataFrame) -> dict[str, float]:
    """What each total formula computes: the column times the counted flag, summed; then the
    support lines (SUPPORT_LINES)."""
    flag = results[FLAG].astype(float)
    out = {name: float((results[name].astype(float) * flag).sum()) for name in TOTALS}
    plan = support(results)
    months = float(CONSTANTS["MONTHS_PER_YEAR"].value)
    out.update(supported_spend=plan.spend, support_monthly_cost=plan.monthly_cost,
               total_monthly_cost=out["monthly_cost"] + plan.monthly_cost,
               total_annual_cost=(out["monthly_cost"] + plan.monthly_cost) * months)
    return out


def _support_formulas(layout: Layout) -> dict[str, str]:
    def total(name: str) -> str:
        return f"$B${TOTALS_FIRST_ROW + TOTALS.index(name)}"

    row = {name: f"$B${SUPPORT_FIRST_ROW + i}" for i, (name, _, _) in enumerate(SUPPORT_LINES)}
    spend = (f"SUMIFS({layout.plan_range('monthly_cost')},{layout.plan_range(FLAG)},1,"
             f'{layout.plan_range("price_provider")},"={SUPPORTED_PROVIDER}")')
    return {
        "supported_spend": spend,
        "support_monthly_cost": support_formula(row["supported_spend"]),
        "total_monthly_cost": f"{total('monthly_cost')}+{row['support_monthly_cost']}",
        "total_annual_cost": f"{row['total_monthly_cost']}*MONTHS_PER_YEAR",
    }


def _per_scenario_formula(name: str, layout: Layout, plan_row: int) -> str:
    column = layout.plan_cols["chosen_cost" if name == CHARTED else name]
    return (f'=IF(ISBLANK({sheet_ref(SCENARIOS)}$A{plan_row}),"",'
            f"{sheet_ref(PLAN)}{column}{plan_row})")


def _cover(ws: Worksheet, provenance: Provenance) -> None:
    set_text(ws["A1"], provenance.title)
    ws["A1"].font = TITLE_FONT
    rows = (
        ("Generated", provenance.generated.isoformat()),
        ("reportgen version", provenance.version),
        ("Input file", provenance.input_name),
        ("Input SHA-256", provenance.input_sha256),
        ("Inputs digest", provenance.inputs_digest),
        ("Reference digest", provenance.reference_digest),
    )
    for r, (label, value) in enumerate(rows, start=2):
        set_text(ws.cell(row=r, column=1), label)
        ws.cell(row=r, column=1).font = HEADER_FONT
        set_text(ws.cell(row=r, column=2), value)


def write_summary(
    ws: Worksheet, layout: Layout, results: pd.DataFrame, provenance: Provenance,
    bom_total: str,
) -> dict[str, CachedValue]:
    """Cover block, totals, checks (``bom_total``: the BOM's monthly cost total, which must
    equal the Summary's) and the per-scenario table; returns the formulas' cached values."""
    values: dict[str, CachedValue] = {}
    set_widths(ws, WIDTHS)
    _cover(ws, provenance)
    set_text(ws.cell(row=TOTALS_HEADER_ROW - 1, column=1), "Totals")
    ws.cell(row=TOTALS_HEADER_ROW - 1, column=1).font = TITLE_FONT
    header_row(ws, TOTALS_HEADER_ROW, ["quantity", "total", "unit", "meaning"])
    flag = layout.plan_range(FLAG)
    expected = totals(results)
    for r, name in enumerate(TOTALS, start=TOTALS_FIRST_ROW):
        q = REGISTRY[name]
        set_text(ws.cell(row=r, column=1), name)
        cell = ws.cell(row=r, column=2)
        set_formula(cell, f"=SUMIF({flag},1,{layout.plan_range(name)})")
        cell.number_format = number_format(q.unit) or "General"
        values[cell.coordinate] = expected[name]
        set_text(ws.cell(row=r, column=3), q.unit)
        set_text(ws.cell(row=r, column=4), q.doc)
        wrap_across(ws, r, 4, len(WIDTHS), q.doc)
    formulas = _support_formulas(layout)
    for r, (name, unit, meaning) in enumerate(SUPPORT_LINES, start=SUPPORT_FIRST_ROW):
        set_text(ws.cell(row=r, column=1), name)
        cell = ws.cell(row=r, column=2)
        set_formula(cell, "=" + formulas[name])
        cell.number_format = number_format(unit) or "General"
        values[cell.coordinate] = expected[name]
        set_text(ws.cell(row=r, column=3), unit)
        set_text(ws.cell(row=r, column=4), meaning)
        wrap_across(ws, r, 4, len(WIDTHS), meaning)
    note_row = SUPPORT_FIRST_ROW + len(SUPPORT_LINES)
    set_text(ws.cell(row=note_row, column=1), TOTALS_NOTE)
    ws.cell(row=note_row, column=1).font = NOTE_FONT
    wrap_across(ws, note_row, 1, len(WIDTHS), TOTALS_NOTE)
    counts_row = note_row + 1
    set_text(ws.cell(row=counts_row, column=1), "Rows")
    ws.cell(row=counts_row, column=1).font = HEADER_FONT
    cell = ws.cell(row=counts_row, column=2)
    set_formula(cell, "=" + "&".join(
        f'"{"" if k == 0 else " · "}{words}: "&COUNTIF({layout.plan_range("status")},"{status}")'
        for k, (status, words) in enumerate(STATUS_COUNTS)))
    wrap_across(ws, counts_row, 2, len(WIDTHS), "", lines=1)
    counts = results["status"].value_counts()
    values[cell.coordinate] = " · ".join(f"{words}: {int(counts.get(status, 0))}"
                                          for status, words in STATUS_COUNTS)

    checks_row = counts_row + 2
    title_row = checks_row + 3 + len(checks(layout, results, "", "", ""))
    header = title_row + 1
    budgeted = letter(PER_SCENARIO.index(CHARTED))
    shown = [*layout.rows(), *layout.spare()]
    budgeted_sum = f"SUM(${budgeted}${header + 1}:${budgeted}${header + len(shown)})"
    total = f"$B${TOTALS_FIRST_ROW + TOTALS.index('monthly_cost')}"
    found, _ = write_checks(ws, checks_row, layout, results, budgeted_sum, total, bom_total)
    values.update(found)

    set_text(ws.cell(row=title_row, column=1), "By scenario")
    ws.cell(row=title_row, column=1).font = TITLE_FONT
    header_row(ws, header, list(PER_SCENARIO))
    for i, plan_row in enumerate(shown):  # the spare rows read "" until a scenario is typed
        r = header + 1 + i
        for j, name in enumerate(PER_SCENARIO, start=1):
            cell = ws.cell(row=r, column=j)
            set_formula(cell, _per_scenario_formula(name, layout, plan_row))
            fmt = number_format(unit_of(name))
            if fmt:
                cell.number_format = fmt
            value = results.iloc[i][name] if i < len(results) else ""
            values[cell.coordinate] = ("" if i >= len(results) else
                                       cached(value, REGISTRY[name]) if name in REGISTRY
                                       else float(value) if name == CHARTED else str(value))
    last = header + len(shown)
    chart_rows = _chart(ws, header, last)
    ws.print_area = f"A1:{letter(len(WIDTHS) - 1)}{last + 3 + chart_rows}"
    return values


def _chart(ws: Worksheet, header: int, last: int) -> int:
    """The bar chart below the table; returns how many sheet rows it covers."""
    chart = BarChart()
    chart.type = "bar"
    chart.title = "Budgeted monthly cost by scenario"
    chart.y_axis.title = "USD / month"
    chart.y_axis.numFmt = number_format("USD/month") or "General"
    chart.x_axis.scaling.orientation = "maxMin"  # scenarios top-down, as in the table
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.legend = None
    col = PER_SCENARIO.index(CHARTED) + 1
    chart.add_data(Reference(ws, min_col=col, min_row=header, max_row=last), titles_from_data=True)
    names = Reference(ws, min_col=1, min_row=header + 1, max_row=last)
    chart.series[0].cat = AxDataSource(strRef=StrRef(f=str(names)))  # text, not numbers
    chart.height = max(7.5, 0.6 * (last - header) + 3)
    chart.width = 18
    ws.add_chart(chart, f"A{last + 3}")
    return math.ceil(float(chart.height) / ROW_CM)
