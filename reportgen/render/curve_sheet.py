"""The Batch curve sheet: how latency and throughput move with the batch for one scenario.

The scenario is picked from a dropdown; each row pins ``batch`` and evaluates the registry's
quantities downstream of it (found by walking the registry, not listed by hand, up to the
tutorial's batching gain 2B/(B+1)), every other input read from the selected scenario's Plan row.
Beside them: the roofline's batching gain throughput(B)/throughput(1) and the TPOT target.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from openpyxl.chart import LineChart, Reference
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.engine import Tables, estimate
from reportgen.i18n import N_, _
from reportgen.render.cells import (
    HEADER_FONT,
    INPUT_FILL,
    NOTE_FONT,
    TITLE_FONT,
    header_row,
    number_format,
    set_formula,
    set_text,
    set_value,
    set_widths,
)
from reportgen.render.layout import Layout, downstream_chain, letter, refs
from reportgen.render.registry_rows import cached, quantity_note
from reportgen.render.xlsx_cache import CachedValue, XlError

# Starts at 1: the roofline gain divides by the first row.
BATCHES: tuple[int, ...] = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
PINNED = "batch"
LAST = "tutorial_batching_gain"  # the chain runs through throughput to the tutorial's gain
THROUGHPUT = "output_tokens_per_s_per_gpu"
LATENCY = "tpot_ms"
SLO = "tpot_slo_ms"
SELECTED = "$B$2"
HEADER = 5
FIRST = HEADER + 1
EXTRA = (
    ("roofline_gain", "×",
     N_("Throughput at this batch ÷ throughput at batch 1 (the roofline).")),
    (SLO, "ms", N_("TPOT target of the selected scenario (no value when it has none).")),
)
NOTE = N_(
    "Pick a scenario in B2. Each row pins the batch and recomputes every quantity that depends "
    "on it; all other inputs come from the scenario's Plan row. The Plan's own operating batch "
    "is the batch column there."
)


def curve_values(scenarios: pd.DataFrame, tables: Tables, batches: tuple[int, ...],
                 row: int = 0) -> pd.DataFrame:
    """The engine's results for scenario ``row`` at each batch (``overrides={"batch": B}``)."""
    shown = scenarios.iloc[[row] * len(batches)].reset_index(drop=True)
    return estimate(shown, tables, overrides={PINNED: np.array(batches, dtype=float)})


def write_curve(
    ws: Worksheet, layout: Layout, scenarios: pd.DataFrame, tables: Tables, row: int = 0
) -> dict[str, CachedValue]:
    """The selector (opened on scenario ``row``), one row per batch, and the line chart;
    returns cached values."""
    chain = downstream_chain(PINNED, LAST)
    names = [PINNED, *(q.name for q in chain), *(e[0] for e in EXTRA)]
    cols = {name: letter(i) for i, name in enumerate(names)}
    set_text(ws["A1"], _("Batch curve"))
    ws["A1"].font = TITLE_FONT
    set_text(ws["A2"], _("Scenario"))
    ws["A2"].font = HEADER_FONT
    selected = ws[SELECTED.replace("$", "")]
    set_text(selected, str(scenarios["scenario"].iloc[row]))
    selected.fill = INPUT_FILL
    dv = DataValidation(type="list", formula1=layout.plan_range("scenario"), allow_blank=False)
    dv.showErrorMessage = True
    dv.errorTitle = _("Unknown scenario")[:32]  # Excel's limits: 32 characters, 255
    dv.error = _("Pick a scenario of the Plan sheet from the list.")[:255]
    dv.add(selected.coordinate)
    ws.add_data_validation(dv)
    set_text(ws["A3"], _(NOTE))
    ws["A3"].font = NOTE_FONT

    notes = ["[sequences] " + _("Batch pinned on this row."), *(quantity_note(q) for q in chain)]
    notes += [f"[{unit}] {_(doc)}" for _name, unit, doc in EXTRA]
    header_row(ws, HEADER, names, notes)

    expected = curve_values(scenarios, tables, BATCHES, row)
    slo_given = scenarios[SLO].iloc[row]
    slo_lookup = layout.selected_resolver(SELECTED, {})("raw_" + SLO)
    values: dict[str, CachedValue] = {}
    for i, batch in enumerate(BATCHES):
        r = FIRST + i
        set_value(ws[f"{cols[PINNED]}{r}"], batch)
        local = {name: f"{cols[name]}{r}" for name in (PINNED, *(q.name for q in chain))}
        resolve = layout.selected_resolver(SELECTED, local)
        for q in chain:
            cell = ws[f"{cols[q.name]}{r}"]
            set_formula(cell, q.formula(refs(q, resolve)))
            fmt = number_format(q.unit)
            if fmt:
                cell.number_format = fmt
            values[cell.coordinate] = cached(expected[q.name].iloc[i], q)
        slo = ws[f"{cols[SLO]}{r}"]
        set_formula(slo, f"=IF(ISBLANK({slo_lookup}),NA(),{slo_lookup})")
        slo.number_format = number_format("ms") or "General"
        values[slo.coordinate] = XlError("#N/A") if pd.isna(slo_given) else float(slo_given)
        gain = ws[f"{cols['roofline_gain']}{r}"]
        set_formula(gain, f"={cols[THROUGHPUT]}{r}/{cols[THROUGHPUT]}${FIRST}")
        gain.number_format = number_format("×") or "General"
        ratio = expected[THROUGHPUT].iloc[i] / expected[THROUGHPUT].iloc[0]
        values[gain.coordinate] = float(ratio)
    _chart(ws, cols, FIRST + len(BATCHES) - 1)
    set_widths(ws, [max(12.0, len(n) + 3.0) for n in names])
    ws.freeze_panes = f"B{FIRST}"
    return values


def _chart(ws: Worksheet, cols: dict[str, str], last: int) -> None:
    def column(name: str) -> int:
        return list(cols).index(name) + 1

    throughput = LineChart()
    throughput.title = _("Throughput and TPOT vs batch")
    throughput.x_axis.title = _("batch (sequences)")
    throughput.y_axis.title = _("output tokens/s per GPU")
    throughput.add_data(
        Reference(ws, min_col=column(THROUGHPUT), min_row=HEADER, max_row=last),
        titles_from_data=True,
    )
    batches = Reference(ws, min_col=1, min_row=FIRST, max_row=last)
    throughput.set_categories(batches)
    latency = LineChart()
    for name in (LATENCY, SLO):
        latency.add_data(
            Reference(ws, min_col=column(name), min_row=HEADER, max_row=last),
            titles_from_data=True,
        )
    latency.set_categories(batches)
    latency.y_axis.axId = 200
    latency.y_axis.majorGridlines = None
    latency.y_axis.title = "ms"
    latency.y_axis.crosses = "max"
    for axis in (throughput.x_axis, throughput.y_axis, latency.y_axis):
        axis.delete = False
    throughput += latency
    throughput.height = 9
    throughput.width = 20
    ws.add_chart(throughput, f"A{last + 3}")
