"""The PDF "Quarter in review": everything its templates show, built once from a Review.

Numbers stay numbers (:class:`Num`) until the templates format them with the report's ``num`` and
``qty`` filters (reportgen.formats), as the budget report does; sentences come from
:mod:`reportgen.review.explain`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from reportgen.render.charts import WaterfallSpec, waterfall
from reportgen.render.context.models import Num
from reportgen.review import explain
from reportgen.review.build import Review, WorkloadReview
from reportgen.review.variance import COMPONENTS, LABELS


@dataclass(frozen=True)
class Step:
    """One bar of the waterfall, as a table row."""

    label: str
    usd: Num
    share: Num
    what: str
    how: str
    kind: str  # "total", "up", "down", "zero"


@dataclass(frozen=True)
class WorkloadRow:
    """One workload in the plan-against-actual table."""

    name: str
    requests_plan: Num
    requests_actual: Num
    requests_change: Num
    prompt_plan: Num
    prompt_actual: Num
    output_plan: Num
    output_actual: Num
    gpu_hours_plan: Num
    gpu_hours_actual: Num
    cost_plan: Num
    cost_actual: Num
    variance: Num
    latency: str


@dataclass(frozen=True)
class Change:
    """What changed for one workload and why."""

    name: str
    anchor: str
    components: tuple[tuple[str, Num], ...]
    total: Num
    total_text: str  # signed, e.g. "+$16,762"
    findings: tuple[str, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class LatencyLine:
    workload: str
    metric: str
    target: Num
    predicted: Num
    mean: Num
    p50: Num
    p99: Num
    status: str


@dataclass(frozen=True)
class ForecastLine:
    workload: str
    growth: Num
    next_qps: Num
    peak_qps: Num
    peak_basis: str
    prompt: Num
    output: Num
    calibration: Num
    price: Num
    gpus: Num
    window_cost: Num
    actual_cost: Num
    scale_out: Num
    scale_in: Num
    saved: Num
    evidence: str


@dataclass(frozen=True)
class Source:
    name: str
    kind: str
    span: str
    workloads: str
    notes: tuple[str, ...]


@dataclass(frozen=True)
class ReviewReport:
    """The whole PDF."""

    title: str
    date: str
    version: str
    plan_title: str
    plan_file: str
    plan_digest: str
    window: str
    hours: Num
    check_verdict: str
    check_findings: tuple[str, ...]
    edited: bool
    headline: str
    plan_cost: Num
    actual_cost: Num
    variance: Num
    variance_text: str
    variance_share: Num
    chart: str
    steps: tuple[Step, ...]
    rows: tuple[WorkloadRow, ...]
    total_row: WorkloadRow
    changes: tuple[Change, ...]
    latency: tuple[LatencyLine, ...]
    forecast_label: str
    forecast_window: str
    forecast: tuple[ForecastLine, ...]
    forecast_total: Num
    sources: tuple[Source, ...]
    methods: tuple[tuple[str, str], ...]


def _n(value: float | None, unit: str) -> Num:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return Num(None, unit)
    return Num(float(value), unit)


def _day_before(day: object) -> object:
    return day.fromordinal(day.toordinal() - 1)  # type: ignore[attr-defined]


def _latency_word(w: WorkloadReview) -> str:
    words = [f"{row.metric} {row.status}" for row in w.latency if row.status != "no target"]
    return ", ".join(words) or "no targets"


def _row(name: str, values: list[WorkloadReview]) -> WorkloadRow:
    def total(get: object) -> float:
        return float(sum(get(w) for w in values))  # type: ignore[operator]

    def per_request(measure: str) -> float:
        requests = sum(w.actual.values["requests"] for w in values)
        return sum(w.actual.values[measure] for w in values) / requests if requests else math.nan

    planned = sum(w.drivers.plan_requests for w in values)
    served = total(lambda w: w.drivers.actual_requests)
    return WorkloadRow(
        name, _n(planned, "requests"), _n(served, "requests"),
        _n(served / planned - 1 if planned else None, "fraction"),
        _n(sum(w.plan.prompt_tokens * w.drivers.plan_requests for w in values) / planned,
           "tokens"), _n(per_request("prompt_tokens"), "tokens"),
        _n(sum(w.plan.output_tokens * w.drivers.plan_requests for w in values) / planned,
           "tokens"), _n(per_request("output_tokens"), "tokens"),
        _n(total(lambda w: w.drivers.plan_gpu_hours), "GPU-h"),
        _n(total(lambda w: w.drivers.actual_gpu_hours), "GPU-h"),
        _n(total(lambda w: float(w.variance.plan)), "USD/window"),
        _n(total(lambda w: float(w.variance.actual)), "USD/window"),
        _n(total(lambda w: float(w.variance.total)), "USD/window"),
        _latency_word(values[0]) if len(values) == 1 else "",
    )


def build_report(review: Review) -> ReviewReport:
    """The PDF's view model."""
    v = review.variance
    record = review.record
    story = explain.portfolio_story(review)
    steps = [Step("Plan cost", _n(float(v.plan), "USD/window"), _n(1.0, "fraction"), "",
                  "The plan's monthly cost prorated to the window's hours.", "total")]
    for c in COMPONENTS:
        amount = float(v.components[c])
        kind = "up" if amount > 0 else "down" if amount < 0 else "zero"
        steps.append(Step(LABELS[c], _n(amount, "USD/window"),
                          _n(amount / float(v.plan) if v.plan else 0.0, "fraction"), story[c],
                          explain.METHOD[c], kind))
    steps.append(Step("Actual cost", _n(float(v.actual), "USD/window"),
                      _n(float(v.actual) / float(v.plan) if v.plan else 0.0, "fraction"), "",
                      "The billed cost of the GPU-hours paid.", "total"))
    chart = waterfall(WaterfallSpec(
        tuple(s.label.replace(" per ", "\nper ").replace(" capacity", "\ncapacity")
              for s in steps),
        tuple(float(s.usd.value or 0.0) for s in steps)))
    workloads = list(review.workloads.values())
    changes = []
    for i, w in enumerate(workloads, start=1):
        changes.append(Change(
            w.name, f"w{i}",
            tuple((LABELS[c], _n(float(a), "USD/window"))
                  for c, a in w.variance.components.items()),
            _n(float(w.variance.total), "USD/window"), explain.signed_usd(w.variance.total),
            tuple(explain.findings(w, review.actuals.hours)), w.speed.notes))
    latency = tuple(
        LatencyLine(row.workload, row.metric, _n(row.target_ms, "ms"), _n(row.predicted_ms, "ms"),
                    _n(row.mean_ms, "ms"), _n(row.p50_ms, "ms"), _n(row.p99_ms, "ms"), row.status)
        for w in workloads for row in w.latency)
    f = review.reforecast
    forecast = []
    for name, fw in f.workloads.items():
        w = review.workloads[name]
        a = w.advice
        forecast.append(ForecastLine(
            name, _n(fw.growth.monthly if fw.growth.known else None, "%/month"),
            _n(fw.growth.next_qps, "req/s"), _n(fw.peak_qps, "req/s"), fw.peak_basis,
            _n(fw.prompt_tokens, "tokens"), _n(fw.output_tokens, "tokens"),
            _n(fw.calibration, "×"), _n(fw.price_per_gpu_hour, "USD/GPU-h"), _n(fw.gpus, "GPUs"),
            _n(fw.window_cost, "USD/window"), _n(w.drivers.actual_cost, "USD/window"),
            _n(a.scale_out if a else None, "fraction"),
            _n(a.scale_in if a else None, "fraction"),
            _n(a.cost_saved if a else None, "USD/window"), a.evidence if a else ""))
    window = review.actuals.window
    p = record.plan.provenance
    return ReviewReport(
        title=review.title, date=review.generated.isoformat(), version=review.version,
        plan_title=p.title,
        plan_file=f"{record.path.name} ({record.kind}, written {p.generated} by reportgen "
                  f"{p.version})",
        plan_digest=p.inputs_digest or "(none stamped)",
        window=f"{window[0]} to {_day_before(window[1])} (UTC)",
        hours=_n(review.actuals.hours, "h/month"),
        check_verdict=record.check.verdict, check_findings=record.check.findings,
        edited=record.check.edited, headline=explain.headline(review),
        plan_cost=_n(float(v.plan), "USD/window"), actual_cost=_n(float(v.actual), "USD/window"),
        variance=_n(float(v.total), "USD/window"), variance_text=explain.signed_usd(v.total),
        variance_share=_n(float(v.total) / float(v.plan) if v.plan else 0.0, "fraction"),
        chart=chart, steps=tuple(steps),
        rows=tuple(_row(w.name, [w]) for w in workloads), total_row=_row("Total", workloads),
        changes=tuple(changes), latency=latency,
        forecast_label=f.label, forecast_window=f"{f.window[0]} to {_day_before(f.window[1])}",
        forecast=tuple(forecast),
        forecast_total=_n(sum(fw.window_cost for fw in f.workloads.values()), "USD/window"),
        sources=tuple(Source(s.name, s.kind, f"{s.span[0]} to {_day_before(s.span[1])}",
                             ", ".join(s.workloads), s.notes) for s in review.actuals.sources),
        methods=tuple((LABELS[c], explain.METHOD[c]) for c in COMPONENTS),
    )
