"""The Variance sheet: the six-component chain per workload as live formulas.

Plan and actual figures and the two engine factors are inputs (values); every stage and every
component is a formula over them, so a reviewer who corrects an actual (a billed cost, the
GPU-hours) sees the components and the waterfall recompute. Stage costs are rounded to the cent
(ROUND(x, 2)) and components are their differences, as in reportgen.review.variance.
"""

from __future__ import annotations

from dataclasses import dataclass

from openpyxl.worksheet.worksheet import Worksheet

from reportgen.render.cells import INPUT_FILL, set_widths
from reportgen.render.layout import letter
from reportgen.render.xlsx_cache import CachedValue
from reportgen.review.build import Review
from reportgen.review.render.sheet import Sheet
from reportgen.review.variance import COMPONENTS

FIRST = 2  # first workload row; row 1 is the header


@dataclass(frozen=True)
class Col:
    """One column: its name, unit and meaning (the header comment)."""

    name: str
    unit: str
    note: str


COLUMNS: tuple[Col, ...] = (
    Col("workload", "", "The plan's workload (or scenario) name."),
    Col("plan_monthly_cost", "USD/month", "The plan's monthly cost (sum of its counted rows)."),
    Col("plan_gpus", "GPUs", "GPUs the plan provisions."),
    Col("plan_avg_qps", "req/s", "The plan's average request rate."),
    Col("plan_cost", "USD", "Plan cost over the window: monthly cost × WINDOW_HOURS ÷ "
        "HOURS_PER_MONTH."),
    Col("plan_gpu_hours", "GPU-h", "GPUs × WINDOW_HOURS."),
    Col("plan_requests", "requests", "Average rate × SECONDS_PER_HOUR × WINDOW_HOURS."),
    Col("actual_requests", "requests", "Requests served in the window (actuals; edit to "
        "correct)."),
    Col("actual_gpu_hours", "GPU-h", "GPU-hours paid in the window (actuals)."),
    Col("actual_cost", "USD", "Cost billed in the window (actuals)."),
    Col("tokens_factor", "×", "Engine: GPU time per request at the measured prompt and output "
        "lengths ÷ at the planned ones (the plan's stack)."),
    Col("efficiency_factor", "×", "Engine and measurement: GPU time per request at the achieved "
        "speed on the stack that ran ÷ the engine's on the plan's stack (1 ÷ achieved "
        "efficiency, times any change of stack)."),
    Col("volume_ratio", "×", "All workloads' actual requests ÷ planned requests."),
    Col("gpu_h_volume", "GPU-h", "Stage 1: plan GPU-hours × volume_ratio."),
    Col("gpu_h_mix", "GPU-h", "Stage 2: plan GPU-hours × this workload's actual ÷ planned "
        "requests."),
    Col("gpu_h_tokens", "GPU-h", "Stage 3: stage 2 × tokens_factor."),
    Col("gpu_h_efficiency", "GPU-h", "Stage 4: stage 3 × efficiency_factor: the GPU-hours the "
        "traffic needed at the achieved speed, with the plan's own head-room."),
    Col("gpu_h_paid", "GPU-h", "Stage 5: the GPU-hours actually paid."),
    Col("cost_plan", "USD", "Stage 0 cost: ROUND(plan_cost, 2)."),
    Col("cost_volume", "USD", "Stage 1 cost at the plan's price: ROUND(plan_cost × stage 1 ÷ "
        "plan GPU-hours, 2)."),
    Col("cost_mix", "USD", "Stage 2 cost at the plan's price."),
    Col("cost_tokens", "USD", "Stage 3 cost at the plan's price."),
    Col("cost_efficiency", "USD", "Stage 4 cost at the plan's price."),
    Col("cost_paid_hours", "USD", "Stage 5 cost: the GPU-hours paid at the plan's price."),
    Col("cost_actual", "USD", "Stage 6: ROUND(actual_cost, 2)."),
    *(Col(c, "USD", f"Component: the change from the stage before to the {c} stage.")
      for c in COMPONENTS),
    Col("variance", "USD", "Actual − plan cost; equals the sum of the six components."),
)
INDEX = {c.name: i for i, c in enumerate(COLUMNS)}


def col(name: str) -> str:
    """Column letter of a Variance column."""
    return letter(INDEX[name])


def write_variance(ws: Worksheet, review: Review) -> tuple[dict[str, CachedValue], int]:
    """The sheet; returns its cached values and the totals row."""
    sheet = Sheet(ws)
    sheet.header(1, [c.name for c in COLUMNS], [f"[{c.unit}] {c.note}" if c.unit else c.note
                                                 for c in COLUMNS])
    n = len(review.workloads)
    last = FIRST + n - 1
    total_row = last + 1

    def rng(name: str) -> str:
        return f"${col(name)}${FIRST}:${col(name)}${last}"

    v = review.variance
    for i, (name, w) in enumerate(review.workloads.items()):
        r = FIRST + i
        d, wv = w.drivers, w.variance

        def c(name: str, row: int = r) -> str:
            return f"{col(name)}{row}"

        def put(column: str, formula: str, value: object, row: int = r) -> None:
            sheet.formula(row, INDEX[column] + 1, formula, value, COLUMNS[INDEX[column]].unit)

        sheet.text(r, 1, name)
        for column, value in (("plan_monthly_cost", w.plan.monthly_cost),
                              ("plan_gpus", w.plan.gpus), ("plan_avg_qps", w.plan.avg_qps),
                              ("actual_requests", d.actual_requests),
                              ("actual_gpu_hours", d.actual_gpu_hours),
                              ("actual_cost", d.actual_cost),
                              ("tokens_factor", d.tokens_factor),
                              ("efficiency_factor", d.efficiency_factor)):
            sheet.value(r, INDEX[column] + 1, value, COLUMNS[INDEX[column]].unit)
            ws.cell(row=r, column=INDEX[column] + 1).fill = INPUT_FILL
        put("plan_cost", f"={c('plan_monthly_cost')}*WINDOW_HOURS/HOURS_PER_MONTH", d.plan_cost)
        put("plan_gpu_hours", f"={c('plan_gpus')}*WINDOW_HOURS", d.plan_gpu_hours)
        put("plan_requests", f"={c('plan_avg_qps')}*SECONDS_PER_HOUR*WINDOW_HOURS",
            d.plan_requests)
        put("volume_ratio", f"=SUM({rng('actual_requests')})/SUM({rng('plan_requests')})",
            v.volume_ratio)
        g = wv.gpu_hours
        put("gpu_h_volume", f"={c('plan_gpu_hours')}*{c('volume_ratio')}", g[1])
        put("gpu_h_mix", f"={c('plan_gpu_hours')}*({c('actual_requests')}/"
            f"{c('plan_requests')})", g[2])
        put("gpu_h_tokens", f"={c('gpu_h_mix')}*{c('tokens_factor')}", g[3])
        put("gpu_h_efficiency", f"={c('gpu_h_tokens')}*{c('efficiency_factor')}", g[4])
        put("gpu_h_paid", f"={c('actual_gpu_hours')}", g[5])
        put("cost_plan", f"=ROUND({c('plan_cost')},2)", float(wv.stages[0]))
        stages = ("gpu_h_volume", "gpu_h_mix", "gpu_h_tokens", "gpu_h_efficiency", "gpu_h_paid")
        costs = ("cost_volume", "cost_mix", "cost_tokens", "cost_efficiency", "cost_paid_hours")
        for k, (stage, cost) in enumerate(zip(stages, costs, strict=True), start=1):
            put(cost, f"=ROUND({c('plan_cost')}*({c(stage)}/{c('plan_gpu_hours')}),2)",
                float(wv.stages[k]))
        put("cost_actual", f"=ROUND({c('actual_cost')},2)", float(wv.stages[6]))
        chain = ("cost_plan", *costs, "cost_actual")
        for k, component in enumerate(COMPONENTS):
            put(component, f"={c(chain[k + 1])}-{c(chain[k])}",
                float(wv.components[component]))
        put("variance", f"={c('cost_actual')}-{c('cost_plan')}", float(wv.total))
    sheet.text(total_row, 1, "total", bold=True)
    totals = {
        "plan_cost": sum(w.drivers.plan_cost for w in review.workloads.values()),
        "plan_gpu_hours": sum(w.drivers.plan_gpu_hours for w in review.workloads.values()),
        "plan_requests": sum(w.drivers.plan_requests for w in review.workloads.values()),
        "actual_requests": sum(w.drivers.actual_requests for w in review.workloads.values()),
        "actual_gpu_hours": sum(w.drivers.actual_gpu_hours for w in review.workloads.values()),
        "actual_cost": sum(w.drivers.actual_cost for w in review.workloads.values()),
        "cost_plan": float(v.plan), "cost_actual": float(v.actual),
        **{c: float(a) for c, a in v.components.items()}, "variance": float(v.total),
    }
    for column, value in totals.items():
        sheet.formula(total_row, INDEX[column] + 1, f"=SUM({rng(column)})", value,
                      COLUMNS[INDEX[column]].unit)
    ws.freeze_panes = "B2"
    set_widths(ws, [24.0] + [max(13.0, len(c.name) + 2.0) for c in COLUMNS[1:]])
    return dict(sheet.cache), total_row
