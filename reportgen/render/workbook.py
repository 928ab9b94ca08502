"""The budget workbook: the plan as live Excel formulas generated from the quantity registry.

Sheets, in order: Summary (provenance, totals, per-scenario lines and a bar chart, all formulas
over Plan), BOM (the bill of materials per GPU and price basis, sums over Plan), Sensitivity
(the tornado), Scenarios (the inputs, editable), Plan (one formula per quantity and scenario),
Options (the best configurations of every row that searches, ranked live; Plan reads rank 1),
Levers (each budgeted row with one change applied, live, with its difference to the plan),
Batch curve (a scenario's latency and throughput against the batch, with a line chart),
Assumptions (every constant as a named cell), GPUs, Models, Efficiency (the lookup tables) and
Method (the registry: unit, meaning and template of every quantity).

Formula cells also carry the engine's values as cached results (see xlsx_cache.py), so viewers
that do not recalculate still show the numbers; Excel recalculates on open.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pandas as pd
from openpyxl.workbook.workbook import Workbook

from reportgen import schema
from reportgen.engine import RESULT_COLUMNS
from reportgen.finance.sensitivity import tornado
from reportgen.levers import with_levers
from reportgen.plan import Plan
from reportgen.render import layout as lay
from reportgen.render.bom_sheet import bom_total_cell, write_bom
from reportgen.render.calibration_sheet import write_calibration
from reportgen.render.curve_sheet import write_curve
from reportgen.render.input_sheets import (
    table_fields,
    write_assumptions,
    write_scenarios,
    write_table,
)
from reportgen.render.latency_sheet import write_latency
from reportgen.render.levers_sheet import lever_rows, write_levers
from reportgen.render.method_sheet import write_method
from reportgen.render.options_sheet import option_rows, planned_reader, write_options
from reportgen.render.plan_sheet import EXTRA_COLUMNS, write_plan
from reportgen.render.print_setup import set_print
from reportgen.render.sensitivity_sheet import write_sensitivity
from reportgen.render.summary_sheet import write_summary
from reportgen.render.xlsx_cache import CachedValue, package

# Blank rows after the scenarios with every formula, validation and total: a scenario typed
# there is planned as typed (a list or auto is searched only when reportgen builds the file).
SPARE_ROWS = 10
# Catalog columns a reviewer edits (signposted, with what follows) and those that follow them.
TABLE_EDITS: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "gpu": ({"price_usd": "Edit me: the price the plan bills, in USD per price_unit (of "
                          "price_unit_gpus GPUs) at price_basis. Plan, Options, BOM and Summary "
                          "follow."},
            {"price_per_gpu_hour": "{price_usd}/{price_unit_gpus}"}),
}


def curve_row(results: pd.DataFrame) -> int:
    """The scenario the Batch curve opens on: the first budgeted row (the first row when none
    is), so it does not open on a comparison row whose weights may not fit."""
    budgeted = np.flatnonzero(results["counted"].to_numpy(dtype=float) == 1)
    return int(budgeted[0]) if len(budgeted) else 0


def build_workbook(plan: Plan) -> tuple[Workbook, dict[str, dict[str, CachedValue]]]:
    """The workbook and, per sheet, the cached value of every formula cell."""
    plan = with_levers(plan)
    missing = [c.name for c in schema.COLUMNS if c.name not in plan.scenarios.columns]
    if missing:
        raise ValueError(f"scenarios lack input columns {missing}")
    if len(plan.results) != len(plan.scenarios):
        raise ValueError("results and scenarios differ in length")
    frames = {"gpu": plan.tables.gpus, "model": plan.tables.models, "eff": plan.tables.efficiency}
    layout = lay.make_layout(
        n_scenarios=len(plan.scenarios),
        scenario_columns=[c.name for c in schema.COLUMNS],
        result_columns=[*RESULT_COLUMNS, *EXTRA_COLUMNS],
        tables=table_fields(frames),
        table_rows={prefix: len(frame) for prefix, frame in frames.items()},
        spare_rows=SPARE_ROWS,
    )
    wb = Workbook()
    wb.remove(wb.active)
    sheets = {name: wb.create_sheet(name) for name in lay.SHEET_ORDER}
    write_scenarios(sheets[lay.SCENARIOS], plan.typed, plan.specs, layout)
    options = option_rows(plan)
    cache = {
        lay.PLAN: write_plan(sheets[lay.PLAN], layout, plan.results, plan.search.searched,
                             plan.scenarios, planned_reader(options, layout)),
        lay.OPTIONS: write_options(sheets[lay.OPTIONS], layout, plan, options),
        lay.LEVERS: write_levers(sheets[lay.LEVERS], layout, plan, lever_rows(plan)),
        lay.SUMMARY: write_summary(sheets[lay.SUMMARY], layout, plan.results, plan.provenance,
                                   bom_total_cell(plan.results)),
        lay.BOM: write_bom(sheets[lay.BOM], layout, plan.results),
        lay.SENSITIVITY: write_sensitivity(sheets[lay.SENSITIVITY], tornado(plan)),
        lay.CURVE: write_curve(sheets[lay.CURVE], layout, plan.scenarios, plan.tables,
                               curve_row(plan.results)),
    }
    write_assumptions(sheets[lay.ASSUMPTIONS], wb)
    for prefix, frame in frames.items():
        sheet = lay.LOOKUP_SHEETS[prefix]
        edits = TABLE_EDITS.get(prefix, ({}, {}))
        cache[sheet] = write_table(sheets[sheet], frame, str(frame.index.name or "name"),
                                   *edits)
    write_calibration(sheets[lay.EFFICIENCY], plan)
    write_latency(sheets[lay.LATENCY], plan)
    write_method(sheets[lay.METHOD])
    for ws in wb.worksheets:
        set_print(ws)
    wb.active = 0
    wb.properties.title = plan.provenance.shown_title()
    wb.properties.creator = f"reportgen {plan.provenance.version}"
    wb.properties.lastModifiedBy = wb.properties.creator
    wb.calculation.fullCalcOnLoad = True
    return wb, cache


def workbook_bytes(plan: Plan) -> bytes:
    """The .xlsx file's bytes: same plan, same bytes (dates pinned to the provenance date)."""
    wb, cache = build_workbook(plan)
    when = dt.datetime.combine(plan.provenance.generated, dt.time(0, 0))
    return package(wb, cache, when)


def write_workbook(plan: Plan, path: Path) -> None:
    """Write the budget workbook to exactly ``path``."""
    path.write_bytes(workbook_bytes(plan))
