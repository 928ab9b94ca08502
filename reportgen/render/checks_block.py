"""The Summary's Checks block: live counts of what the totals leave out and why, so that nothing
a reviewer types is dropped or substituted without a line saying so.

Each check is a count (a formula over Plan and Scenarios), a verdict (OK, or CHECK on a red
fill) and what to do, naming the first row it concerns. The engine plans validated inputs
only, so a freshly built workbook shows what the plan itself leaves out (rows that do not fit,
rows without a price); the other checks turn to CHECK when an edit breaks a row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd
from openpyxl.formatting.rule import CellIsRule
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.i18n import N_, _
from reportgen.labels import label
from reportgen.render.cells import (
    HEADER_FONT,
    TITLE_FONT,
    header_row,
    set_formula,
    set_text,
    wrap_across,
)
from reportgen.render.layout import FIRST_ROW, SCENARIOS, Layout, column_range
from reportgen.render.xlsx_cache import CachedValue

# How a check names the first row it concerns (its {row} and {name} filled live in the sheet).
FIRST_ROW_WORDS = N_("first: Plan row {row} ({name}).")
# Rows below the last scenario that the "typed below" check looks at.
BELOW_ROWS = 1000
CHECK_FILL = PatternFill("solid", fgColor="FFFFC7CE")
CHECK_FONT = Font(color="FF9C0006", bold=True)


@dataclass(frozen=True)
class Check:
    """One line of the block: ``count`` is a formula; ``advice`` what to do, after the first
    Plan row of ``status`` when the check counts rows of a status; ``value`` what the engine's
    results give for the count."""

    label: str
    count: str
    advice: str
    value: float
    status: str = ""


def checks(layout: Layout, results: pd.DataFrame, budgeted_sum: str, total: str,
           bom_total: str) -> list[Check]:
    """The checks of a workbook laid out by ``layout`` whose engine results are ``results``;
    ``budgeted_sum``, ``bom_total`` and ``total`` are references that must agree."""
    status = layout.plan_range("status")
    counts = results["status"].value_counts()
    below = column_range(SCENARIOS, "A", layout.last_row + 1, layout.last_row + BELOW_ROWS)
    spare = layout.spare()
    added = column_range(SCENARIOS, "A", spare.start, max(spare.start, spare.stop - 1))

    def of_status(label: str, name: str, advice: str) -> Check:
        return Check(label, f'COUNTIF({status},"{name}")', advice, float(counts.get(name, 0)),
                     name)

    first_spare, last_spare = spare.start, spare.stop - 1

    return [
        of_status(_("Rows whose formulas fail (not counted)"), "error",
                  _("A GPU, model or efficiency key that no row of the GPUs, Models or "
                    "Efficiency sheet has is #N/A in Plan columns gpu_row, model_row or "
                    "efficiency_row: type the name as that sheet spells it.")),
        of_status(_("Plan rows that do not fit (not counted)"), "no fit",
                  _("Nothing searched meets its targets: see its why and bottleneck on Plan.")),
        of_status(_("Plan rows without a price (not counted)"), "no price",
                  _("Type a gpu_hour_price on Scenarios.")),
        Check(_("Added in spare rows {first}-{last}").format(first=first_spare, last=last_spare),
              f"COUNTA({added})",
              _("Planned and counted as typed: a list or auto is searched, and a new GPU type "
                "gets a BOM line, only when reportgen builds the workbook from your input "
                "file."), 0.0),
        Check(_("Typed below row {row} (not planned)").format(row=layout.last_row),
              f"COUNTA({below})",
              _("Plan has no formulas there: add the scenarios to the input file and build "
                "again."), 0.0),
        Check(_("Totals that do not reconcile"),
              f"IF(AND(ABS({budgeted_sum}-{total})<0.005,ABS({bom_total}-{total})<0.005),0,1)",
              _("The By scenario budgeted_monthly_cost and the BOM total both equal the "
                "monthly_cost total; a budgeted row on a GPU or price basis the BOM has no "
                "line for breaks that: build again."), 0.0),
    ]


def _detail_formula(check: Check, layout: Layout) -> str:
    advice = check.advice.replace('"', '""')
    if not check.status:
        return f'"{advice}"'
    where = f'MATCH("{check.status}",{layout.plan_range("status")},0)'
    name = f"INDEX({layout.plan_range('scenario')},{where})"
    # the sentence's words as Excel text, its {row} and {name} as the formulas that find them
    words = re.split(r"(\{row\}|\{name\})", _(FIRST_ROW_WORDS) + " " + check.advice)
    parts = {"{row}": f"({where}+{FIRST_ROW - 1})", "{name}": name}
    return "&".join(parts.get(w) or '"' + w.replace('"', '""') + '"' for w in words if w)


def _detail_value(check: Check, results: pd.DataFrame) -> str:
    if not check.value:
        return ""
    if not check.status:
        return check.advice
    position = int((results["status"] == check.status).to_numpy().argmax())
    name = str(results["scenario"].iloc[position])
    first = _(FIRST_ROW_WORDS).format(row=position + FIRST_ROW, name=name)
    return f"{first} {check.advice}"


def write_checks(ws: Worksheet, first: int, layout: Layout, results: pd.DataFrame,
                 budgeted_sum: str, total: str,
                 bom_total: str) -> tuple[dict[str, CachedValue], int]:
    """The block from sheet row ``first``; returns the cached values and the next free row."""
    set_text(ws.cell(row=first, column=1), _("Checks"))
    ws.cell(row=first, column=1).font = TITLE_FONT
    header_row(ws, first + 1, [label(n) for n in ("check", "count", "verdict", "what to do")])
    values: dict[str, CachedValue] = {}
    lines = checks(layout, results, budgeted_sum, total, bom_total)
    for r, check in enumerate(lines, start=first + 2):
        set_text(ws.cell(row=r, column=1), check.label)
        ws.cell(row=r, column=1).font = HEADER_FONT
        count, verdict, detail = (ws.cell(row=r, column=c) for c in (2, 3, 4))
        set_formula(count, "=" + check.count)
        count.number_format = "0"
        ok, check_word = _("OK"), _("CHECK")
        set_formula(verdict, f'=IF({count.coordinate}=0,"{ok}","{check_word}")')
        set_formula(detail, f'=IF({count.coordinate}=0,"",{_detail_formula(check, layout)})')
        values[count.coordinate] = check.value
        values[verdict.coordinate] = ok if check.value == 0 else check_word
        values[detail.coordinate] = _detail_value(check, results)
        wrap_across(ws, r, 4, 7, "", lines=2)
    verdicts = f"C{first + 2}:C{first + 1 + len(lines)}"
    ws.conditional_formatting.add(verdicts, CellIsRule(operator="equal",
                                                       formula=[f'"{_("CHECK")}"'],
                                                       fill=CHECK_FILL, font=CHECK_FONT))
    return values, first + 2 + len(lines)
