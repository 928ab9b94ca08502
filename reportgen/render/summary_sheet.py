"""The Summary sheet: provenance, fleet totals and one line per scenario, all formulas over Plan,
with a bar chart of the monthly cost by scenario."""

from __future__ import annotations

import math

import pandas as pd
from openpyxl.chart import BarChart, Reference
from openpyxl.chart.data_source import AxDataSource, StrRef
from openpyxl.comments import Comment
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.columns import unit_of
from reportgen.finance.support import SUPPORTED_PROVIDER, support, support_formula
from reportgen.i18n import N_, _
from reportgen.labels import label
from reportgen.plan import Provenance
from reportgen.quantities import REGISTRY
from reportgen.render.cells import (
    COMMENT_AUTHOR,
    HEADER_FONT,
    NOTE_FONT,
    TITLE_FONT,
    header_row,
    labelled_header,
    number_format,
    set_formula,
    set_text,
    set_widths,
    wrap_across,
)
from reportgen.render.checks_block import checks, write_checks
from reportgen.render.layout import FIRST_ROW, PLAN, SCENARIOS, Layout, letter, sheet_ref
from reportgen.render.registry_rows import cached
from reportgen.render.xlsx_cache import CachedValue
from reportgen.units import CONSTANTS

WIDTHS = (40.0, 18.0, 18.0, 22.0, 20.0, 14.0, 22.0)  # columns A-G, in characters
# The cover's rows 2-7, as `reportgen review` reads them back (in any language).
COVER_LABELS = (N_("Generated"), N_("reportgen version"), N_("Input file"), N_("Input SHA-256"),
                N_("Inputs digest"), N_("Reference digest"))
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
     N_("Budgeted monthly cost priced with aws: what the support plan charges on.")),
    ("support_monthly_cost", "USD/month",
     N_("Support plan on that spend (Assumptions: SUPPORT_* bands, INCLUDE_SUPPORT switch).")),
    ("total_monthly_cost", "USD/month", N_("Monthly cost plus support: the plan's monthly total.")),
    ("total_annual_cost", "USD/year", N_("Total monthly cost × MONTHS_PER_YEAR.")),
)
SUPPORT_FIRST_ROW = TOTALS_FIRST_ROW + len(TOTALS)
PER_SCENARIO: tuple[str, ...] = (
    "scenario", "gpus", "monthly_cost", "cost_per_million_output_tokens", "bottleneck",
    "status", "budgeted_monthly_cost",
)
FLAG = "counted"
# What each row adds to the total: comparisons and unchosen options add 0.
CHARTED = "budgeted_monthly_cost"
# The chart lists the budgeted rows only, in table order: each budgeted row's slot (its place
# among the budgeted rows) is a column right of the table, and the chart's own small table
# (scenario, budgeted cost) picks slot 1, 2, ... with MATCH.
SLOT = "chart_slot"
CHART_COLUMNS = ("charted_scenario", CHARTED)

STATUS_COUNTS = (
    ("chosen", N_("budgeted")), ("option", N_("options not chosen")),
    ("compare", N_("for comparison")), ("no fit", N_("not fitting")),
    ("no price", N_("without a price")), ("error", N_("with errors")),
)
TOTALS_NOTE = N_(
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
    set_text(ws["A1"], provenance.shown_title())
    ws["A1"].font = TITLE_FONT
    rows = (
        (COVER_LABELS[0], provenance.generated.isoformat()),
        (COVER_LABELS[1], provenance.version),
        (COVER_LABELS[2], provenance.input_name),
        (COVER_LABELS[3], provenance.input_sha256),
        (COVER_LABELS[4], provenance.inputs_digest),
        (COVER_LABELS[5], provenance.reference_digest),
    )
    for r, (name, value) in enumerate(rows, start=2):
        set_text(ws.cell(row=r, column=1), _(name))
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
    set_text(ws.cell(row=TOTALS_HEADER_ROW - 1, column=1), _("Totals"))
    ws.cell(row=TOTALS_HEADER_ROW - 1, column=1).font = TITLE_FONT
    header_row(ws, TOTALS_HEADER_ROW, [label(n) for n in ("quantity", "total", "unit",
                                                          "meaning")])
    flag = layout.plan_range(FLAG)
    expected = totals(results)
    for r, name in enumerate(TOTALS, start=TOTALS_FIRST_ROW):
        q = REGISTRY[name]
        _name_cell(ws, r, name)
        cell = ws.cell(row=r, column=2)
        set_formula(cell, f"=SUMIF({flag},1,{layout.plan_range(name)})")
        cell.number_format = number_format(q.unit) or "General"
        values[cell.coordinate] = expected[name]
        set_text(ws.cell(row=r, column=3), q.unit)
        set_text(ws.cell(row=r, column=4), _(q.doc))
        wrap_across(ws, r, 4, len(WIDTHS), _(q.doc))
    formulas = _support_formulas(layout)
    for r, (name, unit, meaning) in enumerate(SUPPORT_LINES, start=SUPPORT_FIRST_ROW):
        _name_cell(ws, r, name)
        cell = ws.cell(row=r, column=2)
        set_formula(cell, "=" + formulas[name])
        cell.number_format = number_format(unit) or "General"
        values[cell.coordinate] = expected[name]
        set_text(ws.cell(row=r, column=3), unit)
        set_text(ws.cell(row=r, column=4), _(meaning))
        wrap_across(ws, r, 4, len(WIDTHS), _(meaning))
    note_row = SUPPORT_FIRST_ROW + len(SUPPORT_LINES)
    set_text(ws.cell(row=note_row, column=1), _(TOTALS_NOTE))
    ws.cell(row=note_row, column=1).font = NOTE_FONT
    wrap_across(ws, note_row, 1, len(WIDTHS), _(TOTALS_NOTE))
    counts_row = note_row + 1
    set_text(ws.cell(row=counts_row, column=1), _("Rows"))
    ws.cell(row=counts_row, column=1).font = HEADER_FONT
    cell = ws.cell(row=counts_row, column=2)
    set_formula(cell, "=" + "&".join(
        f'"{"" if k == 0 else " · "}{_(words)}: "&COUNTIF({layout.plan_range("status")},"{status}")'
        for k, (status, words) in enumerate(STATUS_COUNTS)))
    wrap_across(ws, counts_row, 2, len(WIDTHS), "", lines=1)
    counts = results["status"].value_counts()
    values[cell.coordinate] = " · ".join(f"{_(words)}: {int(counts.get(status, 0))}"
                                          for status, words in STATUS_COUNTS)

    checks_row = counts_row + 2
    title_row = checks_row + 3 + len(checks(layout, results, "", "", ""))
    header = title_row + 2  # the machine names' row: data starts below it
    budgeted = letter(PER_SCENARIO.index(CHARTED))
    shown = [*layout.rows(), *layout.spare()]
    budgeted_sum = f"SUM(${budgeted}${header + 1}:${budgeted}${header + len(shown)})"
    total = f"$B${TOTALS_FIRST_ROW + TOTALS.index('monthly_cost')}"
    found, _next_row = write_checks(ws, checks_row, layout, results, budgeted_sum, total, bom_total)
    values.update(found)

    set_text(ws.cell(row=title_row, column=1), _("By scenario"))
    ws.cell(row=title_row, column=1).font = TITLE_FONT
    labelled_header(ws, [*PER_SCENARIO, SLOT], row=header - 1)
    slot = letter(len(PER_SCENARIO))
    counted = layout.plan_cols[FLAG]
    slots = _slots(results)
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
        cell = ws.cell(row=r, column=len(PER_SCENARIO) + 1)
        first = f"{sheet_ref(PLAN)}${counted}${FIRST_ROW}"
        set_formula(cell, f"=IFERROR(IF({sheet_ref(PLAN)}{counted}{plan_row}=1,"
                          f'COUNTIF({first}:${counted}${plan_row},1),""),"")')
        values[cell.coordinate] = float(slots[i]) if i < len(slots) and slots[i] else ""
    last = header + len(shown)
    chart_top = last + 2
    lines = max(len([k for k in slots if k]), 1)
    values.update(_chart_table(ws, results, chart_top, header, last, slot, lines))
    chart_rows = _chart(ws, chart_top, chart_top + lines)
    ws.print_area = f"A1:{letter(len(WIDTHS) - 1)}{chart_top + max(lines + 2, chart_rows)}"
    return values


def _name_cell(ws: Worksheet, row: int, name: str) -> None:
    """Column A of a totals line: the reader's label, the machine name in its comment."""
    cell = ws.cell(row=row, column=1)
    set_text(cell, label(name))
    cell.comment = Comment(name, COMMENT_AUTHOR, height=40, width=200)


def _slots(results: pd.DataFrame) -> list[int]:
    """Each row's place among the budgeted rows (1, 2, ...; 0 when not budgeted)."""
    counted = results[FLAG].to_numpy(dtype=float) == 1
    return [int(counted[: i + 1].sum()) if c else 0 for i, c in enumerate(counted)]


def _chart_table(ws: Worksheet, results: pd.DataFrame, top: int, header: int, last: int,
                 slot: str, lines: int) -> dict[str, CachedValue]:
    """The chart's data below the By scenario table: slot k's scenario and budgeted cost (the
    k-th budgeted row), one line per budgeted row of the plan as built, and a live note when
    an edit budgets more rows than the chart has lines."""
    values: dict[str, CachedValue] = {}
    set_text(ws.cell(row=top, column=1), label("charted_scenario"))
    set_text(ws.cell(row=top, column=2), label(CHARTED))
    for c in (1, 2):
        ws.cell(row=top, column=c).font = HEADER_FONT
    budgeted = results[results[FLAG].astype(float) == 1]
    n = lines
    cost = letter(PER_SCENARIO.index(CHARTED))
    for k in range(1, n + 1):
        r = top + k
        where = f"MATCH({k},${slot}${header + 1}:${slot}${last},0)"
        name, money = ws.cell(row=r, column=1), ws.cell(row=r, column=2)
        set_formula(name, f'=IFERROR(INDEX($A${header + 1}:$A${last},{where}),"")')
        set_formula(money, f"=IFERROR(INDEX(${cost}${header + 1}:${cost}${last},{where}),0)")
        money.number_format = number_format("USD/month") or "General"
        row = budgeted.iloc[k - 1] if k <= len(budgeted) else None
        values[name.coordinate] = "" if row is None else str(row["scenario"])
        values[money.coordinate] = 0.0 if row is None else float(row["monthly_cost"])
    note = ws.cell(row=top + n + 1, column=1)
    more = f"COUNTIF(${slot}${header + 1}:${slot}${last},\">{n}\")"
    text = _("more budgeted scenarios than the chart has lines: see the table above")
    set_formula(note, f'=IF({more}>0,{more}&" {text}","")')
    note.font = NOTE_FONT
    values[note.coordinate] = ""
    return values


def _chart(ws: Worksheet, header: int, last: int) -> int:
    """The bar chart of the chart table (header row ``header``, data to ``last``), beside it
    from column D; returns how many sheet rows it covers."""
    chart = BarChart()
    chart.type = "bar"
    chart.title = _("Budgeted monthly cost by scenario")
    chart.y_axis.title = _("USD / month")
    chart.y_axis.numFmt = number_format("USD/month") or "General"
    chart.x_axis.scaling.orientation = "maxMin"  # scenarios top-down, as in the table
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.legend = None
    chart.add_data(Reference(ws, min_col=2, min_row=header, max_row=last), titles_from_data=True)
    names = Reference(ws, min_col=1, min_row=header + 1, max_row=last)
    chart.series[0].cat = AxDataSource(strRef=StrRef(f=str(names)))  # text, not numbers
    chart.height = max(7.5, 0.6 * (last - header) + 3)
    chart.width = 16
    ws.add_chart(chart, f"D{header}")
    return math.ceil(float(chart.height) / ROW_CM)
