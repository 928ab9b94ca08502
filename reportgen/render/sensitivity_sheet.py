"""The Sensitivity sheet: the tornado of the PDF summary. The price and efficiency-band lines are
live formulas over the Summary's totals; the lines that need the plan re-estimated (request
rate, output length, safety factor) hold the values reportgen computed when it wrote the file,
and say so."""

from __future__ import annotations

import pandas as pd
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.i18n import N_, _
from reportgen.render.cells import (
    NOTE_FONT,
    labelled_header,
    number_format,
    set_formula,
    set_text,
    set_value,
    set_widths,
)
from reportgen.render.layout import FIRST_ROW, SUMMARY, sheet_ref
from reportgen.render.summary_sheet import TOTALS, TOTALS_FIRST_ROW
from reportgen.render.xlsx_cache import CachedValue

HEADER = ("factor", "low", "high", "low_monthly_cost", "high_monthly_cost", "how")
# Keyed by the tornado's English factor (finance.sensitivity marks it and the low and high
# labels with N_(); they are translated where written).
_LIVE = {
    "price": ("{total}*0.8", "{total}*1.2",
              N_("live: the Summary's monthly_cost × 0.8 and × 1.2")),
    "efficiency (calibration band)": (
        "{low}", "{high}", N_("live: the Summary's monthly_cost_low and monthly_cost_high")),
}
COMPUTED = N_("value computed by reportgen when the file was written (the plan re-estimated)")
NOTE = N_("Budgeted monthly cost with one input changed on every budgeted row, its "
          "configuration held. Blank: a row would no longer meet its targets (a new plan is "
          "needed).")


def _total(name: str) -> str:
    return f"{sheet_ref(SUMMARY)}$B${TOTALS_FIRST_ROW + TOTALS.index(name)}"


def write_sensitivity(ws: Worksheet, frame: pd.DataFrame) -> dict[str, CachedValue]:
    """The tornado's lines (:func:`reportgen.finance.sensitivity.tornado`); returns the cached
    values of its formula cells."""
    labelled_header(ws, list(HEADER))
    refs = {"total": _total("monthly_cost"), "low": _total("monthly_cost_low"),
            "high": _total("monthly_cost_high")}
    values: dict[str, CachedValue] = {}
    money = number_format("USD/month") or "General"
    for i, (_index, row) in enumerate(frame.iterrows()):
        r = FIRST_ROW + i
        for j, name in enumerate(("factor", "low_label", "high_label"), start=1):
            set_text(ws.cell(row=r, column=j), _(str(row[name])))
        live = _LIVE.get(str(row["factor"]))
        for j, (name, template) in enumerate(
                (("low_cost", live[0] if live else ""), ("high_cost", live[1] if live else "")),
                start=4):
            cell = ws.cell(row=r, column=j)
            if template:
                set_formula(cell, "=" + template.format(**refs))
                values[cell.coordinate] = float(row[name])
            else:
                set_value(cell, float(row[name]))
            cell.number_format = money
        set_text(ws.cell(row=r, column=6), _(live[2] if live else COMPUTED))
    note = FIRST_ROW + len(frame) + 1
    set_text(ws.cell(row=note, column=1), _(NOTE))
    ws.cell(row=note, column=1).font = NOTE_FONT
    set_widths(ws, [30, 14, 14, 18, 18, 60])
    return values
