"""The BOM sheet: the bill of materials per GPU type and price basis, live SUMIFS over the Plan
sheet's counted rows, with a total that equals the Summary's.

One row per GPU and price basis that any Plan row uses (rows nothing budgets show 0, so an edit
that moves the choice to another GPU of the plan still adds up); each figure is
SUMIFS(Plan!<column>, Plan!gpu_row, GPU's row, Plan!price_basis, basis, Plan!counted, 1), which
skips rows whose formulas fail (the Summary's Checks names them). The PDF's procurement page
groups the same rows the same way.
"""

from __future__ import annotations

import pandas as pd
from openpyxl.worksheet.worksheet import Worksheet

from reportgen.i18n import N_, _
from reportgen.quantities import REGISTRY
from reportgen.render.cells import (
    NOTE_FONT,
    labelled_header,
    number_format,
    set_formula,
    set_text,
    set_widths,
)
from reportgen.render.layout import BOM, FIRST_ROW, PLAN, SUMMARY, Layout, letter, sheet_ref
from reportgen.render.summary_sheet import SUPPORT_FIRST_ROW, SUPPORT_LINES, totals
from reportgen.render.xlsx_cache import CachedValue
from reportgen.units import CONSTANTS

KEYS: tuple[str, ...] = ("gpu", "price_basis")
# Read from the key's first Plan row (the same for every row of one GPU and basis).
LABELS: tuple[str, ...] = ("price_region", "price_sku", "price_unit", "price_per_unit",
                           "price_date", "price_status")
SUMS: tuple[str, ...] = (
    "billed_units", "gpus", "billed_gpus", "nodes", "power_kw", "redundancy_instances",
    "redundancy_monthly_cost", "monthly_cost", "annual_cost",
)
FLAG = "counted"
NOTE = N_(
    "Sums over Plan rows with counted = 1, per GPU and price basis; the total row equals the "
    "Summary's totals. Billed units are whole instances for node-hour prices, GPUs for "
    "GPU-hour prices."
)


def bom_keys(results: pd.DataFrame) -> dict[tuple[str, str], int]:
    """Every GPU and price basis the Plan rows use, in first-seen order, with the position of
    the first row that uses it."""
    seen: dict[tuple[str, str], int] = {}
    for i, (gpu, basis) in enumerate(zip(results["gpu"], results["price_basis"], strict=True)):
        seen.setdefault((str(gpu), str(basis)), i)
    return seen


def bom_values(results: pd.DataFrame) -> pd.DataFrame:
    """What the sheet's formulas compute: per key, the counted rows' sums."""
    flag = results[FLAG].astype(float)
    rows = []
    for gpu, basis in bom_keys(results):
        mask = (results["gpu"] == gpu) & (results["price_basis"] == basis)
        first = results[mask].iloc[0]
        rows.append({"gpu": gpu, "price_basis": basis,
                     **{name: first[name] for name in LABELS},
                     **{name: float((results.loc[mask, name].astype(float)
                                     * flag[mask]).sum()) for name in SUMS}})
    return pd.DataFrame(rows, columns=[*KEYS, *LABELS, *SUMS])


def _match(layout: Layout, gpu_row: float, basis: str) -> str:
    """SUMIFS criteria of one BOM line: the GPU by its row on the GPUs sheet (a number, so no
    name is read as a wildcard or an operator) and the price basis (one of schema's choices)."""
    return (f"{layout.plan_range('gpu_row')},{gpu_row:g},"
            f'{layout.plan_range("price_basis")},"={basis}"')


def _support_rows(ws: Worksheet, total: int, results: pd.DataFrame) -> dict[str, CachedValue]:
    """Below the total: the support plan (the Summary's line) and the total with it."""
    expected = totals(results)
    names = [name for name, _unit, _meaning in SUPPORT_LINES]
    support = f"{sheet_ref(SUMMARY)}$B${SUPPORT_FIRST_ROW + names.index('support_monthly_cost')}"
    cols = {name: letter(len(KEYS) + len(LABELS) + SUMS.index(name))
            for name in ("monthly_cost", "annual_cost")}
    lines = (
        (total + 1, _("Support plan"), f"={support}", f"={support}*MONTHS_PER_YEAR",
         expected["support_monthly_cost"],
         expected["support_monthly_cost"] * float(CONSTANTS["MONTHS_PER_YEAR"].value)),
        (total + 2, _("Total with support"),
         f"={cols['monthly_cost']}{total}+{cols['monthly_cost']}{total + 1}",
         f"={cols['annual_cost']}{total}+{cols['annual_cost']}{total + 1}",
         expected["total_monthly_cost"], expected["total_annual_cost"]),
    )
    values: dict[str, CachedValue] = {}
    for r, label, monthly, annual, monthly_value, annual_value in lines:
        set_text(ws.cell(row=r, column=1), label)
        for name, formula, value in (("monthly_cost", monthly, monthly_value),
                                     ("annual_cost", annual, annual_value)):
            cell = ws[f"{cols[name]}{r}"]
            set_formula(cell, formula)
            values[cell.coordinate] = float(value)
            cell.number_format = number_format(REGISTRY[name].unit) or "General"
    return values


def bom_total_cell(results: pd.DataFrame) -> str:
    """The BOM sheet's cell of the monthly cost total (the Summary checks it)."""
    column = letter(len(KEYS) + len(LABELS) + SUMS.index("monthly_cost"))
    return f"{sheet_ref(BOM)}${column}${FIRST_ROW + len(bom_values(results))}"


def write_bom(ws: Worksheet, layout: Layout, results: pd.DataFrame) -> dict[str, CachedValue]:
    """The bill of materials as formulas over Plan; returns the cells' cached values."""
    columns = [*KEYS, *LABELS, *SUMS]
    labelled_header(ws, columns, [_(REGISTRY[c].doc) for c in columns])
    expected = bom_values(results)
    values: dict[str, CachedValue] = {}
    flag = layout.plan_range(FLAG)
    firsts = list(bom_keys(results).values())
    for i, (_index, row) in enumerate(expected.iterrows()):
        r = FIRST_ROW + i
        for j, name in enumerate(KEYS, start=1):
            set_text(ws.cell(row=r, column=j), str(row[name]))
        match = _match(layout, float(results["gpu_row"].iloc[firsts[i]]), str(row["price_basis"]))
        plan_row = FIRST_ROW + firsts[i]
        for j, name in enumerate(LABELS, start=len(KEYS) + 1):
            cell = ws.cell(row=r, column=j)
            set_formula(cell, f"={sheet_ref(PLAN)}{layout.plan_cols[name]}{plan_row}")
            value = row[name]
            values[cell.coordinate] = value if isinstance(value, str) else float(value)
            fmt = number_format(REGISTRY[name].unit)
            if fmt and REGISTRY[name].kind == "number":
                cell.number_format = fmt
        for j, name in enumerate(SUMS, start=len(KEYS) + len(LABELS) + 1):
            cell = ws.cell(row=r, column=j)
            set_formula(cell, f"=SUMIFS({layout.plan_range(name)},{match},{flag},1)")
            values[cell.coordinate] = float(row[name])
            cell.number_format = number_format(REGISTRY[name].unit) or "General"
    total = FIRST_ROW + len(expected)
    set_text(ws.cell(row=total, column=1), _("Total"))
    last = total - 1
    for j, name in enumerate(SUMS, start=len(KEYS) + len(LABELS) + 1):
        col = letter(j - 1)
        cell = ws.cell(row=total, column=j)
        set_formula(cell, f"=SUM({col}{FIRST_ROW}:{col}{max(last, FIRST_ROW)})")
        values[cell.coordinate] = float(expected[name].sum())
        cell.number_format = number_format(REGISTRY[name].unit) or "General"
    values.update(_support_rows(ws, total, results))
    set_text(ws.cell(row=total + 4, column=1), _(NOTE))
    ws.cell(row=total + 4, column=1).font = NOTE_FONT
    ws.freeze_panes = f"C{FIRST_ROW}"
    set_widths(ws, [16, 14, 12, 14, 11, 12, 12, 12, *([13.0] * len(SUMS))])
    return values
