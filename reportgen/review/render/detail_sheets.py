"""The review workbook's detail sheets: Workloads (plan against actual, ratios as formulas),
Latency (status as a formula), Re-forecast and Autoscaling (engine results), Actuals (every
period as read) and Notes (the plan file check and what reading each file noticed)."""

from __future__ import annotations

import math

from openpyxl.worksheet.worksheet import Worksheet

from reportgen.render.cells import set_widths
from reportgen.render.xlsx_cache import CachedValue
from reportgen.review import explain
from reportgen.review.actuals.measures import DEFINITIONS, MEASURES, STACK
from reportgen.review.build import Review
from reportgen.review.render.sheet import Sheet


def _nan(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def write_workloads(ws: Worksheet, review: Review) -> dict[str, CachedValue]:
    """Plan against actual per workload; actual rates and ratios are formulas."""
    sheet = Sheet(ws)
    header = ["workload", "plan_avg_qps", "actual_requests", "actual_avg_qps", "plan_peak_qps",
              "actual_peak_qps", "plan_prompt_tokens", "actual_prompt_tokens",
              "actual_prompt_per_request", "plan_output_tokens", "actual_output_tokens",
              "actual_output_per_request", "plan_gpus", "actual_gpu_hours", "actual_avg_gpus",
              "plan_price_per_gpu_hour", "actual_cost", "actual_price_per_gpu_hour",
              "achieved_efficiency", "calibration_factor"]
    notes = ["", "[req/s] The plan's average request rate.", "[requests] Requests in the window.",
             "[req/s] actual_requests ÷ (WINDOW_HOURS × SECONDS_PER_HOUR).",
             "[req/s] The plan's peak.", "[req/s] p99 of 1-minute rates (highest period).",
             "[tokens] Planned prompt tokens per request.",
             "[tokens] Prompt tokens in the window.", "[tokens] Prompt tokens ÷ requests.",
             "[tokens] Planned output tokens per request.",
             "[tokens] Output tokens in the window.", "[tokens] Output tokens ÷ requests.",
             "[GPUs] GPUs the plan provisions.", "[GPU-h] GPU-hours paid.",
             "[GPUs] GPU-hours ÷ WINDOW_HOURS.",
             "[USD/GPU-h] The plan's monthly cost ÷ (GPUs × HOURS_PER_MONTH).",
             "[USD] Cost billed.", "[USD/GPU-h] Cost ÷ GPU-hours.",
             "[fraction] Engine TPOT at the batch that ran ÷ measured TPOT (1 = as modelled).",
             "[×] Multiplier on MFU and MBU that makes the engine's TPOT match (re-forecast)."]
    sheet.header(1, header, notes)
    hours = review.actuals.hours
    for i, (name, w) in enumerate(review.workloads.items()):
        r = 2 + i
        a, p = w.actual.values, w.plan
        sheet.text(r, 1, name)
        sheet.value(r, 2, p.avg_qps, "req/s")
        sheet.value(r, 3, a["requests"], "requests")
        sheet.formula(r, 4, f"=C{r}/(WINDOW_HOURS*SECONDS_PER_HOUR)",
                      a["requests"] / (hours * 3600), "req/s")
        sheet.value(r, 5, p.peak_qps, "req/s")
        sheet.value(r, 6, _nan(a["peak_qps"]), "req/s")
        sheet.value(r, 7, p.prompt_tokens, "tokens")
        sheet.value(r, 8, a["prompt_tokens"], "tokens")
        sheet.formula(r, 9, f"=IF(C{r}>0,H{r}/C{r},0)",
                      a["prompt_tokens"] / a["requests"] if a["requests"] > 0 else 0, "tokens")
        sheet.value(r, 10, p.output_tokens, "tokens")
        sheet.value(r, 11, a["output_tokens"], "tokens")
        sheet.formula(r, 12, f"=IF(C{r}>0,K{r}/C{r},0)",
                      a["output_tokens"] / a["requests"] if a["requests"] > 0 else 0, "tokens")
        sheet.value(r, 13, p.gpus, "GPUs")
        sheet.value(r, 14, a["gpu_hours"], "GPU-h")
        sheet.formula(r, 15, f"=N{r}/WINDOW_HOURS", a["gpu_hours"] / hours, "ratio")
        sheet.value(r, 16, p.price_per_gpu_hour, "USD/GPU-h")
        sheet.value(r, 17, a["billed_cost"], "USD")
        sheet.formula(r, 18, f"=IF(N{r}>0,Q{r}/N{r},0)", w.price_paid, "USD/GPU-h")
        sheet.value(r, 19, w.speed.efficiency if w.speed.measured else None, "fraction")
        sheet.value(r, 20, w.speed.calibration if w.speed.measured else None, "×")
    ws.freeze_panes = "B2"
    set_widths(ws, [24.0] + [max(13.0, len(h) + 2.0) for h in header[1:]])
    return dict(sheet.cache)


def write_latency(ws: Worksheet, review: Review) -> dict[str, CachedValue]:
    """Targets, predictions and measurements; the status is a formula."""
    sheet = Sheet(ws)
    sheet.header(1, ["workload", "metric", "target_mean_ms", "plan_predicted_ms", "mean_ms",
                     "p50_ms", "p99_ms", "status"],
                 ["", "", "[ms] The plan's target (a mean; blank: none).",
                  "[ms] The engine's mean at the plan's operating batch.",
                  "[ms] Measured mean.", "[ms] Measured median.",
                  "[ms] Measured 99th percentile (highest period).",
                  "met when the mean (the median if no mean) is at or under the target"])
    r = 2
    for w in review.workloads.values():
        for row in w.latency:
            sheet.text(r, 1, row.workload)
            sheet.text(r, 2, row.metric)
            sheet.value(r, 3, _nan(row.target_ms), "ms")
            sheet.value(r, 4, row.predicted_ms, "ms")
            sheet.value(r, 5, _nan(row.mean_ms), "ms")
            sheet.value(r, 6, _nan(row.p50_ms), "ms")
            sheet.value(r, 7, _nan(row.p99_ms), "ms")
            sheet.formula(r, 8, f'=IF(ISBLANK(C{r}),"no target",IF(AND(ISBLANK(E{r}),'
                          f'ISBLANK(F{r})),"not measured",IF(IF(ISBLANK(E{r}),F{r},E{r})'
                          f'<=C{r},"met","missed")))', row.status)
            r += 1
    set_widths(ws, [24, 8, 16, 18, 12, 12, 12, 14])
    ws.freeze_panes = "C2"
    return dict(sheet.cache)


def write_reforecast(ws: Worksheet, review: Review) -> dict[str, CachedValue]:
    """Next window per workload, from the engine; the window cost is a formula."""
    sheet = Sheet(ws)
    f = review.reforecast
    sheet.title(1, f"Re-forecast for {f.label} ({f.window[0]} to "
                   f"{f.window[1].fromordinal(f.window[1].toordinal() - 1)})")
    sheet.text(2, 1, "Engine estimates of the plan rows carried forward with the measured "
               "tokens, growth, efficiency, stack and price; the scenario file "
               "<plan>-reforecast.csv builds the budget workbook.", note=True)
    next_hours = (f.window[1] - f.window[0]).days * 24.0
    sheet.text(3, 1, "Next window hours", bold=True)
    sheet.value(3, 2, next_hours, "h/month")
    header = ["workload", "monthly_growth", "observed_avg_qps", "next_avg_qps", "next_peak_qps",
              "peak_basis", "prompt_tokens", "output_tokens", "calibration_factor",
              "price_per_gpu_hour", "gpus", "monthly_cost", "window_cost", "actual_cost_now",
              "notes"]
    sheet.header(5, header)
    r = 6
    for name, w in f.workloads.items():
        actual = review.workloads[name].actual.values["billed_cost"]
        sheet.text(r, 1, name)
        sheet.value(r, 2, w.growth.monthly if w.growth.known else None, "%/month")
        sheet.value(r, 3, w.growth.observed_qps, "req/s")
        sheet.value(r, 4, w.growth.next_qps, "req/s")
        sheet.value(r, 5, w.peak_qps, "req/s")
        sheet.text(r, 6, w.peak_basis)
        sheet.value(r, 7, w.prompt_tokens, "tokens")
        sheet.value(r, 8, w.output_tokens, "tokens")
        sheet.value(r, 9, w.calibration, "×")
        sheet.value(r, 10, w.price_per_gpu_hour, "USD/GPU-h")
        sheet.value(r, 11, w.gpus, "GPUs")
        sheet.value(r, 12, w.monthly_cost, "USD/month")
        sheet.formula(r, 13, f"=L{r}*$B$3/HOURS_PER_MONTH", w.window_cost, "USD")
        sheet.value(r, 14, actual, "USD")
        sheet.text(r, 15, " ".join(w.notes))
        r += 1
    set_widths(ws, [24, 14, 16, 14, 14, 44, 14, 14, 16, 16, 8, 14, 14, 16, 50])
    return dict(sheet.cache)


def write_autoscaling(ws: Worksheet, review: Review) -> dict[str, CachedValue]:
    """KV-occupancy thresholds per workload and what they would have saved."""
    sheet = Sheet(ws)
    sheet.header(1, ["workload", "scale_out_above", "scale_in_below", "engine_limit_occupancy",
                     "observed_max_occupancy", "typical_replicas", "gpu_hours_saved",
                     "cost_saved", "tutorial_70pct_gpu_hours_saved", "evidence"])
    r = 2
    for w in review.workloads.values():
        a = w.advice
        if a is None:
            continue
        sheet.text(r, 1, a.workload)
        sheet.value(r, 2, a.scale_out, "fraction")
        sheet.value(r, 3, a.scale_in, "fraction")
        sheet.value(r, 4, a.engine_occupancy, "fraction")
        sheet.value(r, 5, a.observed_max, "fraction")
        sheet.value(r, 6, _nan(a.replicas_typical), "ratio")
        sheet.value(r, 7, a.gpu_hours_saved, "GPU-h")
        sheet.value(r, 8, a.cost_saved, "USD")
        sheet.value(r, 9, a.tutorial_gpu_hours_saved, "GPU-h")
        sheet.text(r, 10, a.evidence)
        r += 1
    set_widths(ws, [24, 16, 16, 22, 22, 16, 16, 14, 28, 100])
    return dict(sheet.cache)


def write_actuals(ws: Worksheet, review: Review) -> None:
    """Every period row of every file, as read (units normalised)."""
    sheet = Sheet(ws)
    columns = ["source", "workload", "first_day", "last_day", *MEASURES, *STACK]
    sheet.header(1, columns, ["", "", "", "", *(f"[{DEFINITIONS[m].unit}] {DEFINITIONS[m].doc}"
                                                 for m in MEASURES), *([""] * len(STACK))])
    units = {m: DEFINITIONS[m].unit for m in MEASURES}
    units.update({"requests": "requests", "gpu_hours": "GPU-h"})
    for i, row in enumerate(review.actuals.periods.to_dict(orient="records")):
        r = 2 + i
        sheet.text(r, 1, str(row["source"]))
        sheet.text(r, 2, str(row["workload"]))
        sheet.text(r, 3, str(row["start"]))
        sheet.text(r, 4, str(row["end"].fromordinal(row["end"].toordinal() - 1)))
        for j, m in enumerate(MEASURES, start=5):
            sheet.value(r, j, _nan(float(row[m])), units[m])
        for j, s in enumerate(STACK, start=5 + len(MEASURES)):
            sheet.value(r, j, str(row[s]))
    ws.freeze_panes = "C2"
    set_widths(ws, [34, 22, 12, 12] + [16.0] * (len(MEASURES) + len(STACK)))


def write_notes(ws: Worksheet, review: Review) -> None:
    """The plan file check and what reading each file noticed."""
    sheet = Sheet(ws)
    r = 1
    sheet.title(r, "Plan file check")
    r += 1
    sheet.text(r, 1, review.record.check.verdict)
    r += 1
    for finding in review.record.check.findings:
        sheet.text(r, 1, finding, wrap=True)
        r += 1
    r += 1
    for source in review.actuals.sources:
        sheet.title(r, f"{source.name} ({source.kind})")
        r += 1
        for note in source.notes or ("Nothing to note.",):
            sheet.text(r, 1, note, wrap=True)
            r += 1
        r += 1
    sheet.title(r, "Engine figures per workload")
    r += 1
    for name, w in review.workloads.items():
        for line in (*w.speed.notes, *explain.findings(w, review.actuals.hours)):
            sheet.text(r, 1, f"{name}: {line}", wrap=True)
            r += 1
    set_widths(ws, [160])
