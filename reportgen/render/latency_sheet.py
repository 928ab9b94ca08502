"""The Latency sheet: simulated latency under load of each budgeted row, its knee, and a day of
autoscaling under each policy.

Every number here comes from the discrete-event simulation (reportgen.simulate), not from a
formula: the cells are values and do not follow edits on Scenarios. Where a knee sized a row
(P99 targets), that knee is also the row's knee_rps input on Scenarios, which the Plan sheet's
instances formula reads, live.
"""

from __future__ import annotations

import math

import pandas as pd
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.i18n import N_, _
from reportgen.plan import Plan
from reportgen.render.cells import (
    NOTE_FONT,
    TITLE_FONT,
    header_row,
    number_format,
    set_text,
    set_value,
    set_widths,
)
from reportgen.render.context.latency import POLICY_WORDS, SIZED_BY_WORDS
from reportgen.simulate.autoscale import COLD_START_MIN, KV_SCALE_IN, KV_SCALE_OUT
from reportgen.simulate.plan_latency import DAY_TABLE_COLUMNS, LATENCY_COLUMNS, MAX_LATENCY_ROWS
from reportgen.simulate.workload import ROW_REQUESTS, SIMULATION_SEED

LATENCY_NOTE = N_(
    "Simulated values, not formulas: each budgeted row's instance is simulated serving "
    "{requests} requests (seed {seed}; random arrivals with the row's "
    "arrival_cv, lengths drawn to its averages and maxima) with continuous batching, chunked "
    "prefill and paged KV blocks, each step timed by the Plan sheet's own decode step and "
    "prefill. They do not recalculate when Scenarios change: rebuild the workbook. Rows with "
    "P99 targets are sized by the knee, written into Scenarios' knee_rps (an input)."
)
DAY_NOTE = N_(
    "A day at the row's hourly rates, the same day the Demand over time figures price (the "
    "workload's --profile, else a single-peak day at peak_qps with mean avg_qps): KV-occupancy "
    "policy scales out above {scale_out} and in below {scale_in}; new "
    "instances bill at once and serve after {minutes} minutes. A violation minute is "
    "one whose demand exceeds what the ready instances serve within the targets."
)
# Words written as cell values, by column (the simulation's codes, in the reader's words).
VALUE_WORDS: dict[str, dict[str, str]] = {
    "policy": POLICY_WORDS,
    "sized_by": SIZED_BY_WORDS,
    # TRANSLATORS: the statistic latency targets bound (the other is P99)
    "target_statistic": {"MEAN": N_("MEAN")},
}


def _words(name: str, value: object) -> object:
    """A cell value of column ``name`` in the reader's words (as it is when it has none)."""
    words = VALUE_WORDS.get(name, {}).get(value) if isinstance(value, str) else None
    return _(words) if words else value


def _table(ws: Worksheet, top: int, frame: pd.DataFrame,
           columns: dict[str, tuple[str, str]]) -> int:
    """Write ``frame``'s ``columns`` with a header at row ``top``; returns the next free row."""
    names = list(columns)
    # the meanings come from simulate.plan_latency, translated here
    header_row(ws, top, names, [f"{unit}: {_(doc) if doc else doc}"
                                for unit, doc in columns.values()])
    for i, (_index, row) in enumerate(frame.iterrows()):
        for j, name in enumerate(names, start=1):
            cell = ws.cell(row=top + 1 + i, column=j)
            value = _words(name, row[name])
            if isinstance(value, float) and not math.isfinite(value):
                value = None
            set_value(cell, value)
            fmt = number_format(columns[name][0])
            if fmt:
                cell.number_format = fmt
    return top + 2 + len(frame)


def write_latency(ws: Worksheet, plan: Plan) -> None:
    """The sheet: a note, the latency table, then the day table."""
    set_text(ws.cell(row=1, column=1), _("Latency under load (simulated)"))
    ws.cell(row=1, column=1).font = TITLE_FONT
    set_text(ws.cell(row=2, column=1), _(LATENCY_NOTE).format(
        requests=f"{ROW_REQUESTS:,}", seed=SIMULATION_SEED))
    ws.cell(row=2, column=1).font = NOTE_FONT
    if plan.latency is None:
        set_text(ws.cell(row=4, column=1), _("Not simulated for this workbook."))
        return
    below = _table(ws, 4, plan.latency.table, LATENCY_COLUMNS)
    if plan.latency.not_simulated:
        set_text(ws.cell(row=below, column=1),
                 _("Not simulated ({limit}-row limit, smallest fleets): {scenarios}").format(
                     limit=MAX_LATENCY_ROWS, scenarios=", ".join(plan.latency.not_simulated)))
        ws.cell(row=below, column=1).font = NOTE_FONT
        below += 1
    set_text(ws.cell(row=below + 1, column=1), _("A day of autoscaling (simulated)"))
    ws.cell(row=below + 1, column=1).font = TITLE_FONT
    set_text(ws.cell(row=below + 2, column=1), _(DAY_NOTE).format(
        scale_out=f"{KV_SCALE_OUT:.0%}", scale_in=f"{KV_SCALE_IN:.0%}",
        minutes=f"{COLD_START_MIN:g}"))
    ws.cell(row=below + 2, column=1).font = NOTE_FONT
    _table(ws, below + 4, plan.latency.day, DAY_TABLE_COLUMNS)
    set_widths(ws, [26.0, 26.0, *([16.0] * (len(LATENCY_COLUMNS) - 2))])
