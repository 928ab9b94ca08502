"""The calibration page: for each of your efficiency rows a scenario uses, the efficiencies
against the shipped row they replace, every load-test run measured against predicted (with your
row and with the shipped one), and a chart of the agreement."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from reportgen.calibration.loadtest_fit import PARAMETERS
from reportgen.calibration.user_rows import UserCalibration
from reportgen.i18n import N_, _, ngettext
from reportgen.plan import Plan
from reportgen.render.charts import COLOURS, AgreementSpec, agreement
from reportgen.render.context.common import blank, text_of
from reportgen.render.context.models import (
    CalibratedStack,
    CalibrationPage,
    LegendEntry,
    Num,
    Table,
)

_LABELS = {
    "mfu_prefill": (N_("MFU in prefill"), "fraction"),
    "mfu_decode": (N_("MFU in decode"), "fraction"),
    "mbu": (N_("Memory-bandwidth utilisation"), "fraction"),
    "step_overhead_ms": (N_("Step overhead (ms)"), "ratio"),
    "throughput_ratio_p10": (N_("Band, low (p10 of measured ÷ predicted)"), "×"),
    "throughput_ratio_p90": (N_("Band, high (p90 of measured ÷ predicted)"), "×"),
}  # fmt: skip
# Labels marked here, translated where the page is built (calibration()).
LEGEND = (
    LegendEntry(N_("predicted with your row"), COLOURS["line"], "marker"),
    LegendEntry(N_("predicted with the shipped row"), COLOURS["tutorial"], "ring"),
    LegendEntry(N_("measured = predicted"), COLOURS["tutorial"], "dash"),
)
# Who set an efficiency, in words.
_YOUR_FILE = N_("your file")
_YOUR_RUNS = N_("your runs")
_NOT_EXERCISED = N_("shipped value: not exercised by your runs")
_SPREAD = N_("your runs' spread")


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _set_by(row: pd.Series) -> dict[str, str]:
    """Which efficiencies the runs set, from the row's ``determined`` text."""
    text = text_of(row.get("determined", ""))
    if not text:
        return dict.fromkeys(PARAMETERS, _(_YOUR_FILE))
    kept = text.split("kept from", 1)[1] if "kept from" in text else ""
    return {n: _(_NOT_EXERCISED) if n in kept else _(_YOUR_RUNS) for n in PARAMETERS}


def _values(key: str, row: pd.Series, shipped: pd.Series, replaces: str) -> Table:
    set_by = _set_by(row)
    rows = []
    for name, (label, unit) in _LABELS.items():
        yours, base = _float(row[name]), _float(shipped[name])
        change = yours / base - 1 if base and not name.startswith("throughput_ratio") else None
        band = name.startswith("throughput_ratio")
        by = set_by.get(name, _(_SPREAD) if band else "")
        if band:  # the row's band_source says it in the calibration's words
            by = text_of(row.get("band_source", "")) or _(_YOUR_FILE)
        rows.append((Num(_(label), "text"), Num(yours, unit), Num(base, unit),
                     Num(change, "fraction"), Num(by, "text")))
    return Table("calibration-values", _("{key}: efficiencies").format(key=key), "",
                 (_("Efficiency"), _("Yours"), _("Shipped ({replaces})").format(replaces=replaces),
                  _("Change"), _("Set by")),
                 tuple(rows), suffix=False)


def _run_rows(runs: pd.DataFrame) -> tuple[tuple[Num, ...], ...]:
    rows = []
    for _row, r in runs.iterrows():
        measured, predicted = _float(r["measured_tokens_per_s_per_gpu"]), _float(
            r["predicted_tokens_per_s_per_gpu"])
        load = text_of(r["load"])
        if text_of(r["queued"]):
            load = _("{load} (queued)").format(load=load)
        rows.append((
            Num(f"{Path(text_of(r['file'])).name} {text_of(r['run'])}", "text"),
            Num(load, "text"),
            Num(_float(r["requests_in_flight"]), "sequences"),
            Num(measured, "tokens/s/GPU"), Num(predicted, "tokens/s/GPU"),
            Num(round(predicted / measured - 1, 4) + 0.0, "fraction"),
            Num(_float(r["measured_ttft_ms"]), "ms"), Num(_float(r["predicted_ttft_ms"]), "ms"),
            Num(_float(r["measured_ttft_p99_ms"]), "ms"),
            Num(_float(r["measured_tpot_ms"]), "ms"), Num(_float(r["predicted_tpot_ms"]), "ms"),
            Num(_float(r["measured_tpot_p99_ms"]), "ms"),
        ))
    return tuple(rows)


def _runs_table(key: str, runs: pd.DataFrame) -> Table:
    return Table(
        "calibration-runs", _("{key}: the runs").format(key=key), "",
        (_("Run"), _("Load"), _("In flight"), _("Output tok/s/GPU"), _("Predicted"), _("Error"),
         _("TTFT mean (ms)"), _("Predicted"), "TTFT p99", _("TPOT mean (ms)"), _("Predicted"),
         "TPOT p99"),
        _run_rows(runs), suffix=False,
    )


def _chart(runs: pd.DataFrame) -> str | None:
    panels = []
    for measured, yours, shipped in (
        ("measured_tokens_per_s_per_gpu", "predicted_tokens_per_s_per_gpu",
         "shipped_tokens_per_s_per_gpu"),
        ("measured_ttft_ms", "predicted_ttft_ms", "shipped_ttft_ms"),
        ("measured_tpot_ms", "predicted_tpot_ms", "shipped_tpot_ms"),
    ):
        columns = [runs[c].map(_float) for c in (measured, yours, shipped)]
        if any(c.isna().any() or (c <= 0).any() for c in columns):
            return None
        panels.append(tuple(tuple(float(v) for v in c) for c in columns))
    return agreement(AgreementSpec(
        tuple(panels),  # type: ignore[arg-type]
        (_("output tok/s per GPU"), _("mean TTFT, ms"), _("mean TPOT, ms"))))


def _tail(runs: pd.DataFrame, column: str, mean: str) -> str:
    ratio = (runs[column].map(_float) / runs[mean].map(_float)).dropna()
    if ratio.empty:
        return ""
    return f"{ratio.min():.1f}–{ratio.max():.1f}×" if len(ratio) > 1 else f"{ratio.iloc[0]:.1f}×"


def _notes(key: str, runs: pd.DataFrame | None, source: str) -> tuple[str, ...]:
    if runs is None:
        return (_("The per-run comparison was not found beside {source}: keep the runs file "
                  "reportgen calibrate wrote (NAME-runs.csv, or the Calibration runs sheet) next "
                  "to the efficiency file to see it here.").format(source=source),)
    notes = []
    queued = runs[runs["queued"].map(lambda v: bool(text_of(v)))]
    for _row, r in queued.iterrows():
        notes.append(f"{Path(text_of(r['file'])).name} {text_of(r['run'])}: "
                     f"{text_of(r['queued'])}.")
    ttft, tpot = (_tail(runs, "measured_ttft_p99_ms", "measured_ttft_ms"),
                  _tail(runs, "measured_tpot_p99_ms", "measured_tpot_ms"))
    if ttft and tpot:
        notes.append(_(
            "The plan's latencies and targets are means: p99 columns are as measured. In these "
            "runs p99 TTFT was {ttft} the mean and p99 TPOT {tpot} the mean, a guide to the mean "
            "targets that keep your p99 in bounds.").format(ttft=ttft, tpot=tpot))
    elif ttft:
        notes.append(_(
            "The plan's latencies and targets are means: p99 columns are as measured. In these "
            "runs p99 TTFT was {ttft} the mean, a guide to the mean targets that keep your p99 "
            "in bounds.").format(ttft=ttft))
    return tuple(notes)


def _stack(cal: UserCalibration, key: str) -> CalibratedStack:
    row = cal.user.rows.loc[key]
    replaces = cal.defaults[key]
    shipped = cal.shipped.loc[replaces]
    assert isinstance(row, pd.Series) and isinstance(shipped, pd.Series)
    runs = cal.user.runs
    mine = runs[runs["key"].astype(str).str.lower() == key] if runs is not None else None
    if mine is not None and mine.empty:
        mine = None
    # the calibration note is the efficiency file's own text (data, as reportgen calibrate wrote it)
    note = (text_of(row.get("calibration_note", ""))
            or _("Your row {key} ({calibrated}).").format(key=key,
                                                         calibrated=text_of(row["calibrated"])))
    errors = ""
    if not blank(row.get("shipped_mdape_pct")):
        errors = _("With the shipped {replaces} the median error over the same figures (every "
                   "run's throughput, mean TTFT and mean TPOT) was {error} %.").format(
                       replaces=replaces, error=f"{_float(row['shipped_mdape_pct']):.1f}")
    replaced = (_("It replaces the shipped row of the same key.") if key in cal.replaced
                else _("Scenarios on this stack use it instead of the shipped {replaces}.").format(
                    replaces=replaces))
    return CalibratedStack(
        key=key, replaces=replaces, headline=" ".join(p for p in (note, replaced, errors) if p),
        values=_values(key, row, shipped, replaces),
        runs=_runs_table(key, mine) if mine is not None else None,
        chart=_chart(mine) if mine is not None else None,
        notes=_notes(key, mine, cal.user.source),
    )


def calibration(plan: Plan) -> CalibrationPage | None:
    """The page, when a scenario uses one of your rows; else None."""
    cal = plan.calibration
    if cal is None or not cal.used:
        return None
    keys = ", ".join(cal.used)
    intro = ngettext(
        "These efficiencies come from {source}, a calibration on your own load test, not from "
        "the shipped table: row {keys}. A row keyed <gpu>-<precision>-<engine> applies to every "
        "scenario on that GPU, compute precision and engine; scenarios on other stacks keep the "
        "shipped defaults (listed in the assumptions register). Predictions are the engine's at "
        "each run's requests in flight per replica.",
        "These efficiencies come from {source}, a calibration on your own load test, not from "
        "the shipped table: rows {keys}. A row keyed <gpu>-<precision>-<engine> applies to "
        "every scenario on that GPU, compute precision and engine; scenarios on other stacks "
        "keep the shipped defaults (listed in the assumptions register). Predictions are the "
        "engine's at each run's requests in flight per replica.",
        len(cal.used)).format(source=cal.user.source, keys=keys)
    legend = tuple(replace(entry, label=_(entry.label)) for entry in LEGEND)
    return CalibrationPage(intro, tuple(_stack(cal, k) for k in cal.used), legend)
