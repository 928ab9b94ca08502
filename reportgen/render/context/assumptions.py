"""The assumptions register: constants, the GPU, model and efficiency rows the plan used, GPU
prices, and every value the scenario file gave instead of a catalog value or default."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from reportgen import schema
from reportgen.i18n import N_, _
from reportgen.plan import Plan
from reportgen.render.context.common import Row, blank, cell, num, scalar, text_of
from reportgen.render.context.models import Num, Table
from reportgen.units import CONSTANTS

_OVERRIDE_COLUMNS = (
    *schema.MODEL_OVERRIDES, *schema.GPU_OVERRIDES, "mfu_prefill", "mfu_decode", "mbu",
    "gpu_hour_price", "safety_factor",
)
# The efficiency table's "calibrated" values, in words (anything else is shown as it is).
_CALIBRATED_WORDS = {"yes": N_("yes"), "no": N_("no"), "load test": N_("load test")}


def _t(value: Any) -> Num:
    """A text cell ("—" when blank)."""
    text = text_of(value)
    return Num(text if text else "—", "text")


def _calibrated(value: Any) -> Num:
    """The efficiency row's "calibrated" cell in words."""
    text = text_of(value)
    words = _CALIBRATED_WORDS.get(text.lower())
    return _t(_(words) if words else text)


def _optional(frame: pd.DataFrame, index: str, column: str) -> Num:
    """A text cell of a column the table may lack."""
    return _t(frame.loc[index, column] if column in frame.columns else "")


def _used(rows: Sequence[Row], column: str) -> list[str]:
    """The distinct values of a column, in input order."""
    return list(dict.fromkeys(str(r[column]) for r in rows))


def _constants() -> Table:
    return Table(
        "constants",
        _("Constants and defaults"),
        _("Each is a named cell on the workbook's Assumptions sheet."),
        (_("Name"), _("Value"), _("Unit"), _("Meaning"), _("Source"), _("Date")),
        tuple(
            # a constant's meaning is in the catalog (reportgen.messages collects it)
            (Num(c.name, "text"), Num(scalar(c.value), c.unit), Num(c.unit, "text"),
             Num(_(c.doc) if c.doc else "", "text"), Num(_(c.source) if c.source else "", "text"),
             Num(c.date, "text"))
            for c in CONSTANTS.values()
        ),
        suffix=False,
    )


def _gpus(plan: Plan, rows: Sequence[Row]) -> Table:
    g = plan.tables.gpus

    def value(name: str, column: str, unit: str) -> Num:
        return Num(scalar(g.loc[name, column]), unit)

    return Table(
        "gpus",
        _("GPU specifications used"),
        _("Dense tensor throughput; memory as the driver reports it."),
        ("GPU", _("Memory (GiB)"), _("Bandwidth (TB/s)"), "BF16 (TFLOP/s)", "FP8 (TFLOP/s)",
         "TDP (W)", _("GPUs per node"), _("Source"), _("Date")),
        tuple(
            (Num(name, "text"), value(name, "memory_gib", "GiB"),
             value(name, "bandwidth_tbps", "TB/s"), value(name, "bf16_tflops", "TFLOP/s"),
             value(name, "fp8_tflops", "TFLOP/s"), value(name, "tdp_w", "W"),
             value(name, "gpus_per_node", "GPUs"),
             _optional(g, name, "source"), _optional(g, name, "source_date"))
            for name in _used(rows, "gpu")
        ),
        suffix=False,
    )


def _models(plan: Plan, rows: Sequence[Row]) -> Table:
    m = plan.tables.models

    def value(name: str, column: str, unit: str) -> Num:
        return Num(scalar(m.loc[name, column]), unit)

    return Table(
        "models",
        _("Model architectures used"),
        _("From the model catalog (Hugging Face config.json values)."),
        (_("Model"), _("Params (B)"), _("Active (B)"), _("Layers"), _("Heads"), _("KV heads"),
         _("Head dim"), _("Source"), _("Date")),
        tuple(
            (Num(name, "text"), value(name, "params_b", "B params"),
             value(name, "active_params_b", "B params"), value(name, "layers", "layers"),
             value(name, "attention_heads", "heads"), value(name, "kv_heads", "heads"),
             value(name, "head_dim", "elements"),
             _optional(m, name, "source"), _optional(m, name, "source_date"))
            for name in _used(rows, "model")
        ),
        suffix=False,
    )


def _efficiency(plan: Plan, rows: Sequence[Row]) -> Table:
    e = plan.tables.efficiency

    def value(key: str, column: str, unit: str) -> Num:
        return Num(scalar(e.loc[key, column]), unit)

    def band(key: str, low: str, high: str) -> Num:
        return Num(f"{float(str(e.loc[key, low])):.2f}–{float(str(e.loc[key, high])):.2f}",
                   "text")

    def mdape(key: str) -> Num:  # the table holds a percentage; the report shows fractions
        v = cell(e, key, "fit_mdape_pct")
        return Num(None if blank(v) else float(v) / 100, "fraction")

    return Table(
        "efficiency",
        _("Efficiencies used"),
        _("Per GPU family and compute precision; the 10th–90th percentiles of measured ÷ "
          "predicted throughput of dense and of mixture-of-experts models give each class's "
          "error band (wider on an engine the row was not calibrated on)."),
        (_("Key"), _("MFU prefill"), _("MFU decode"), "MBU", _("Step (ms)"),
         _("Band, dense (×)"), _("Band, MoE (×)"), _("Calibrated"), _("Points"), _("Fit MdAPE"),
         _("Source"), _("Date")),
        tuple(
            (Num(k, "text"), value(k, "mfu_prefill", "fraction"),
             value(k, "mfu_decode", "fraction"), value(k, "mbu", "fraction"),
             value(k, "step_overhead_ms", "ms"),
             band(k, "throughput_ratio_p10", "throughput_ratio_p90"),
             band(k, "moe_ratio_p10", "moe_ratio_p90"), _calibrated(e.loc[k, "calibrated"]),
             value(k, "n_measurements", "sequences"), mdape(k), _t(e.loc[k, "source"]),
             _t(e.loc[k, "date"]))
            for k in _used(rows, "efficiency_key")
        ),
        suffix=False,
    )


def _prices(plan: Plan, rows: Sequence[Row]) -> Table:
    g = plan.tables.gpus
    price_rows: list[tuple[Num, ...]] = []
    for r in rows:
        if blank(r["raw_gpu_hour_price"]):
            source = (_t(cell(g, str(r["gpu"]), "price_source")),
                      _t(cell(g, str(r["gpu"]), "price_date")))
        else:
            source = (Num(_("given in the scenario file ({scenario})").format(
                scenario=r["scenario"]), "text"), Num("—", "text"))
        line = (Num(str(r["gpu"]), "text"), num(r, "gpu_hour_price"), *source)
        if line not in price_rows:
            price_rows.append(line)
    return Table(
        "prices",
        _("GPU prices"),
        _("Per GPU-hour in USD (an instance's price ÷ its GPUs); costs are billed units (whole "
          "instances for instance-hour prices, else GPUs) × price per unit × hours: see the "
          "procurement page for each price's basis, region and unit."),
        ("GPU", _("Price per GPU-hour"), _("Source"), _("Date")),
        tuple(price_rows),
    )


def _help(column: str) -> str:
    """An input column's meaning (reportgen.messages collects it for the catalog)."""
    text = schema.BY_NAME[column].help
    return _(text) if text else ""


def _overrides(rows: Sequence[Row]) -> Table | None:
    overrides = tuple(
        (Num(str(r["scenario"]), "text"), Num(col, "text"),
         Num(scalar(r[f"raw_{col}"]), schema.BY_NAME[col].unit or "text"),
         Num(schema.BY_NAME[col].unit, "text"), Num(_help(col), "text"))
        for r in rows
        for col in _OVERRIDE_COLUMNS
        if not blank(r[f"raw_{col}"])
    )
    if not overrides:
        return None
    return Table(
        "overrides",
        _("Values given in the scenario file instead of the catalog or defaults"),
        _("Source: the input file named on the cover."),
        (_("Scenario"), _("Column"), _("Value"), _("Unit"), _("Meaning")),
        overrides,
    )


def assumptions(plan: Plan, rows: Sequence[Row]) -> tuple[Table, ...]:
    """The register's tables, the overrides last and only when there are any."""
    tables = [_constants(), _gpus(plan, rows), _models(plan, rows), _efficiency(plan, rows),
              _prices(plan, rows)]
    overrides = _overrides(rows)
    if overrides is not None:
        tables.append(overrides)
    return tuple(tables)
