"""The Review workbook: Review (the waterfall and its chart), Variance (the chain as live
formulas), Workloads, Latency, Re-forecast, Autoscaling, Actuals and Notes. Formula cells carry
the values reportgen computed (see reportgen.render.xlsx_cache)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from openpyxl.workbook.workbook import Workbook

from reportgen.render.xlsx_cache import CachedValue, package
from reportgen.review.build import Review
from reportgen.review.render import detail_sheets
from reportgen.review.render.review_sheet import REVIEW, VARIANCE, write_review
from reportgen.review.render.variance_sheet import write_variance

SHEET_ORDER = (REVIEW, VARIANCE, "Workloads", "Latency", "Re-forecast", "Autoscaling",
               "Actuals", "Notes")


def build_workbook(review: Review) -> tuple[Workbook, dict[str, dict[str, CachedValue]]]:
    """The workbook and, per sheet, the cached value of every formula cell."""
    wb = Workbook()
    wb.remove(wb.active)
    sheets = {name: wb.create_sheet(name) for name in SHEET_ORDER}
    variance, totals_row = write_variance(sheets[VARIANCE], review)
    cache = {
        VARIANCE: variance,
        REVIEW: write_review(sheets[REVIEW], wb, review, totals_row),
        "Workloads": detail_sheets.write_workloads(sheets["Workloads"], review),
        "Latency": detail_sheets.write_latency(sheets["Latency"], review),
        "Re-forecast": detail_sheets.write_reforecast(sheets["Re-forecast"], review),
        "Autoscaling": detail_sheets.write_autoscaling(sheets["Autoscaling"], review),
    }
    detail_sheets.write_actuals(sheets["Actuals"], review)
    detail_sheets.write_notes(sheets["Notes"], review)
    wb.active = 0
    wb.properties.title = review.title
    wb.properties.creator = f"reportgen {review.version}"
    wb.properties.lastModifiedBy = wb.properties.creator
    wb.calculation.fullCalcOnLoad = True
    return wb, cache


def write_review_workbook(review: Review, path: Path) -> None:
    """Write the Review workbook to exactly ``path`` (same review, same bytes)."""
    wb, cache = build_workbook(review)
    when = dt.datetime.combine(review.generated, dt.time(0, 0))
    path.write_bytes(package(wb, cache, when))
