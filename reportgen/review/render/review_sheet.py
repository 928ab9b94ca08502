"""The Review sheet: what was reviewed, the waterfall from plan to actual cost (formulas over the
Variance sheet's totals) and its chart.

A spreadsheet has no waterfall chart that openpyxl can write, so the chart is a stacked column
chart over four formula columns: an invisible base (the running total before a component, or
after it when the component is negative), the increase, the decrease, and the plan and actual
totals.
"""

from __future__ import annotations

from openpyxl.chart import BarChart, Reference
from openpyxl.chart.data_source import AxDataSource, StrRef
from openpyxl.chart.legend import LegendEntry
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.render.cells import WRAP, set_widths
from reportgen.render.charts import COLOURS
from reportgen.render.layout import sheet_ref
from reportgen.render.xlsx_cache import CachedValue
from reportgen.review import explain
from reportgen.review.build import Review
from reportgen.review.render.sheet import Sheet
from reportgen.review.render.variance_sheet import col
from reportgen.review.variance import COMPONENTS, LABELS
from reportgen.review.workloads import HOURS_PER_MONTH, SECONDS_PER_HOUR

REVIEW = "Review"
VARIANCE = "Variance"
CHART_COLOURS = {"total": COLOURS["line"], "increase": COLOURS["limit"],
                 "decrease": COLOURS["latency"]}


def _name(wb: Workbook, name: str, cell: str) -> None:
    absolute = "$" + cell.rstrip("0123456789") + "$" + cell[len(cell.rstrip("0123456789")):]
    wb.defined_names[name] = DefinedName(name, attr_text=f"{sheet_ref(REVIEW)}{absolute}")


def write_review(ws: Worksheet, wb: Workbook, review: Review, totals_row: int
                 ) -> dict[str, CachedValue]:
    """The sheet; returns its cached values."""
    sheet = Sheet(ws)
    sheet.title(1, review.title)
    record = review.record
    p = record.plan.provenance
    window = review.actuals.window
    facts: list[tuple[str, str]] = [
        ("Plan of record", p.title),
        ("Plan file", f"{record.path.name} ({record.kind}, written {p.generated}, "
                      f"reportgen {p.version})"),
        ("Plan file check", record.check.verdict),
        ("Review window", f"{window[0]} to {window[1].fromordinal(window[1].toordinal() - 1)} "
                          f"(UTC)"),
        ("Actuals", "; ".join(f"{s.name} ({s.kind})" for s in review.actuals.sources)),
        ("Generated", f"{review.generated} by reportgen {review.version}"),
    ]
    r = 2
    for label, text in facts:
        sheet.text(r, 1, label, bold=True)
        sheet.text(r, 2, text)
        r += 1
    for label, name, value, unit in (
        ("Window hours", "WINDOW_HOURS", review.actuals.hours, "h/month"),
        ("Hours per month", "HOURS_PER_MONTH", HOURS_PER_MONTH, "h/month"),
        ("Seconds per hour", "SECONDS_PER_HOUR", SECONDS_PER_HOUR, "s/h"),
    ):
        sheet.text(r, 1, f"{label} ({name})", bold=True)
        _name(wb, name, sheet.value(r, 2, value, unit))
        r += 1
    r += 1
    sheet.title(r, "From plan to actual cost (USD over the window)")
    r += 1
    header = r
    sheet.header(header, ["step", "USD", "share of plan cost", "what happened",
                          "how it is computed"])
    story = explain.portfolio_story(review)
    v = review.variance
    plan_ref = f"{sheet_ref(VARIANCE)}${col('cost_plan')}${totals_row}"
    steps = [("Plan cost", plan_ref, float(v.plan), "", "The plan's monthly cost × window "
              "hours ÷ hours per month.")]
    for c in COMPONENTS:
        steps.append((LABELS[c], f"{sheet_ref(VARIANCE)}${col(c)}${totals_row}",
                      float(v.components[c]), story[c], explain.METHOD[c]))
    steps.append(("Actual cost", f"{sheet_ref(VARIANCE)}${col('cost_actual')}${totals_row}",
                  float(v.actual), "", "Billed cost of the GPU-hours paid."))
    first = header + 1
    for k, (label, ref, value, what, how) in enumerate(steps):
        row = first + k
        sheet.text(row, 1, label, bold=k in (0, len(steps) - 1))
        sheet.formula(row, 2, f"={ref}", value, "USD")
        sheet.formula(row, 3, f"=IF($B${first}=0,0,B{row}/$B${first})",
                      value / float(v.plan) if v.plan else 0.0, "fraction")
        sheet.text(row, 4, what, wrap=True)
        sheet.text(row, 5, how, wrap=True)
    last = first + len(steps) - 1
    check = last + 1
    sheet.text(check, 1, "check: plan + components − actual", bold=True)
    sheet.formula(check, 2, f"=ROUND(SUM(B{first}:B{last - 1})-B{last},2)", 0.0, "USD")
    sheet.text(check + 2, 1, explain.headline(review), wrap=True)
    _chart_data(sheet, first, [label for label, *_ in steps], [value for _, _, value, *_ in steps])
    _chart(ws, first, last)
    set_widths(ws, [38, 16, 14, 48, 60, 2, 16, 14, 14, 14, 14])
    for row in range(first, last + 1):
        ws.row_dimensions[row].height = 42
        for column in range(1, 6):
            ws.cell(row=row, column=column).alignment = WRAP  # top-aligned, wrapped
    ws.cell(row=check + 2, column=1).alignment = WRAP
    ws.merge_cells(start_row=check + 2, start_column=1, end_row=check + 2, end_column=5)
    ws.row_dimensions[check + 2].height = 30
    ws.page_setup.orientation = "landscape"
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    return dict(sheet.cache)


def _chart_data(sheet: Sheet, first: int, labels: list[str], values: list[float]) -> None:
    """Columns G-K: label, base, increase, decrease, total (formulas over columns A-B)."""
    for j, name in enumerate(("chart", "base", "increase", "decrease", "total"), start=7):
        sheet.text(first - 1, j, name, bold=True)
    running = values[0]
    for k in range(len(values)):
        row = first + k
        sheet.formula(row, 7, f"=A{row}", labels[k])
        if k in (0, len(values) - 1):
            sheet.formula(row, 8, "=0", 0.0, "USD")
            sheet.formula(row, 9, "=0", 0.0, "USD")
            sheet.formula(row, 10, "=0", 0.0, "USD")
            sheet.formula(row, 11, f"=B{row}", values[k], "USD")
            continue
        before = f"($B${first}+SUM($B${first + 1}:B{row})-B{row})"
        after = running + values[k]
        sheet.formula(row, 8, f"=MIN({before},{before}+B{row})", min(running, after), "USD")
        sheet.formula(row, 9, f"=MAX(B{row},0)", max(values[k], 0.0), "USD")
        sheet.formula(row, 10, f"=MAX(-B{row},0)", max(-values[k], 0.0), "USD")
        sheet.formula(row, 11, "=0", 0.0, "USD")
        running = after


def _chart(ws: Worksheet, first: int, last: int) -> None:
    chart = BarChart()
    chart.type = "col"
    chart.grouping = "stacked"
    chart.overlap = 100
    chart.gapWidth = 60
    chart.title = "From plan to actual cost"
    chart.y_axis.title = "USD"
    chart.y_axis.numFmt = '"$"#,##0'
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.legend.position = "b"
    chart.legend.legendEntry = [LegendEntry(idx=0, delete=True)]  # the invisible base
    for j in range(8, 12):
        chart.add_data(Reference(ws, min_col=j, min_row=first - 1, max_row=last),
                       titles_from_data=True)
    names = Reference(ws, min_col=7, min_row=first, max_row=last)
    base, increase, decrease, total = chart.series
    for series in chart.series:
        series.cat = AxDataSource(strRef=StrRef(f=str(names)))
    base.graphicalProperties.noFill = True
    base.graphicalProperties.line.noFill = True
    for series, key in ((increase, "increase"), (decrease, "decrease"), (total, "total")):
        series.graphicalProperties.solidFill = CHART_COLOURS[key].lstrip("#")
        series.graphicalProperties.line.noFill = True
    chart.height = 9
    chart.width = 22
    ws.add_chart(chart, f"A{last + 6}")
