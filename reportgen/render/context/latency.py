"""The "Latency under load" section: simulated percentiles of each budgeted row, its knee, the
instances the knee implies, and a day of autoscaling under each policy."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from reportgen.formats import format_value
from reportgen.i18n import N_, _, ngettext
from reportgen.plan import Plan
from reportgen.render.context.models import LegendEntry, Num
from reportgen.render.latency_charts import (
    DEMAND_COLOUR,
    LINE_COLOURS,
    DaySpec,
    LoadCurveSpec,
    day_chart,
    load_curves,
)
from reportgen.simulate.autoscale import COLD_START_MIN, KV_SCALE_IN, KV_SCALE_OUT, POLICIES
from reportgen.simulate.plan_latency import MAX_LATENCY_ROWS
from reportgen.simulate.workload import ROW_REQUESTS, SIMULATION_SEED

# The autoscaling policies (simulate.autoscale.POLICIES) and what sized a row
# (simulate.plan_latency), in words.
POLICY_WORDS: dict[str, str] = {
    "fixed peak fleet": N_("fixed peak fleet"), "KV occupancy": N_("KV occupancy"),
    "QPS": N_("QPS"), "scheduled": N_("scheduled"),
}
SIZED_BY_WORDS: dict[str, str] = {
    "knee of the P99 targets": N_("knee of the P99 targets"), "closed form": N_("closed form"),
    "tutorial": N_("tutorial"),
}


def _words(table: dict[str, str], code: str) -> str:
    """A code in the reader's words (as it is when it has none)."""
    words = table.get(code)
    return _(words) if words else code


@dataclass(frozen=True)
class LatencyRow:
    """One budgeted row under load."""

    scenario: str
    sized_by: str
    targets: str
    rate: Num
    ttft_p50: Num
    ttft_p99: Num
    ttft_closed: Num
    tpot_p99: Num
    tpot_closed: Num
    e2e_p99: Num
    queue_p99: Num
    kv_sim: Num
    kv_closed: Num
    preemptions: Num
    knee: Num
    knee_instances: Num
    planned: Num


@dataclass(frozen=True)
class DayRow:
    """One policy's day for one budgeted row."""

    scenario: str
    policy: str
    instance_hours: Num
    cost: Num
    violation_minutes: Num
    peak: Num
    first_of_scenario: bool


@dataclass(frozen=True)
class LatencySection:
    """Everything the section shows."""

    intro: str
    rows: tuple[LatencyRow, ...]
    chart: str
    legend: tuple[LegendEntry, ...]
    day_intro: str
    day_rows: tuple[DayRow, ...]
    day_chart: str
    day_legend: tuple[LegendEntry, ...]
    day_caption: str
    preemption_note: str
    kv_note: str


def _num(value: object, unit: str) -> Num:
    if isinstance(value, float) and not math.isfinite(value):
        return Num(None, unit)
    return Num(value if isinstance(value, str) else float(str(value)), unit)


def _targets(row: dict[str, object]) -> str:
    statistic = str(row.get("target_statistic") or "")
    return {"P99": "P99", "MEAN": "mean"}.get(statistic, "none")


def _sized_by(row: dict[str, object]) -> str:
    sized = str(row["sized_by"])
    if sized != "closed form":
        return _words(SIZED_BY_WORDS, sized)
    targets = _targets(row)
    if targets == "mean":
        return _("closed form (mean targets)")
    if targets == "none":
        return _("closed form (no target)")
    return _words(SIZED_BY_WORDS, sized)


def _preemption_note(table: pd.DataFrame) -> str:
    preempting = table[table["sim_preemptions_per_1k"] > 0]
    if preempting.empty:
        return _("No sequence was preempted at the planned load: the KV cache never ran out of "
                 "blocks.")
    worst = preempting.sort_values("sim_preemptions_per_1k").iloc[-1]
    return ngettext(
        "{n} row preempts sequences at the planned load (most: {scenario}, {rate} per 1,000 "
        "requests, recomputed when blocks run out).",
        "{n} rows preempt sequences at the planned load (most: {scenario}, {rate} per 1,000 "
        "requests, recomputed when blocks run out).",
        len(preempting)).format(
            n=len(preempting), scenario=worst["scenario"],
            rate=format_value(worst["sim_preemptions_per_1k"], "ratio"))


def _not_simulated(names: tuple[str, ...]) -> str:
    if not names:
        return ""
    shown = ", ".join(names[:10])
    if len(names) > 10:
        shown = _("{names} and {n} more").format(names=shown, n=len(names) - 10)
    return ngettext(
        "Not simulated ({n} budgeted row past the {limit}-row limit, smallest fleets): {names}.",
        "Not simulated ({n} budgeted rows past the {limit}-row limit, smallest fleets): "
        "{names}.", len(names)).format(n=len(names), limit=MAX_LATENCY_ROWS, names=shown)


def _kv_note(curve: pd.DataFrame) -> str:
    at_knee = curve[curve["load_of_capacity"] == 1.0]
    if at_knee.empty:
        return ""
    low = at_knee[at_knee["kv_occupancy_mean"] < KV_SCALE_OUT]
    if low.empty:
        return _("Every row's KV cache is past the scale-out threshold at its capacity: the "
                 "occupancy rule tracks the load.")
    names = ", ".join(str(n) for n in low["scenario"])
    top = float(low["kv_occupancy_mean"].max())
    return _("At capacity the KV cache of {names} is at most {occupancy} occupied, under the "
             "{threshold} scale-out threshold: there the sequence cap or the latency targets "
             "bind before memory, so an occupancy rule scales in past the knee and misses the "
             "targets until queues fill the cache. Occupancy is a good scaling signal only where "
             "KV memory is what binds.").format(names=names,
                                                occupancy=format_value(top, "fraction"),
                                                threshold=f"{KV_SCALE_OUT:.0%}")


def latency_section(plan: Plan) -> LatencySection | None:
    """The section's view model, or None when the plan was not simulated or budgets nothing."""
    latency = plan.latency
    if latency is None or latency.table.empty:
        return None
    rows = []
    for record in latency.table.to_dict(orient="records"):
        r = {str(k): v for k, v in record.items()}
        rows.append(LatencyRow(
            scenario=str(r["scenario"]), sized_by=_sized_by(r), targets=_targets(r),
            rate=_num(r["sim_rate_rps_per_instance"], "req/s"),
            ttft_p50=_num(r["sim_ttft_p50_ms"], "ms"), ttft_p99=_num(r["sim_ttft_p99_ms"], "ms"),
            ttft_closed=_num(r["closed_form_ttft_ms"], "ms"),
            tpot_p99=_num(r["sim_tpot_p99_ms"], "ms"),
            tpot_closed=_num(r["closed_form_tpot_ms"], "ms"),
            e2e_p99=_num(r["sim_e2e_p99_s"], "s"), queue_p99=_num(r["sim_queue_p99_ms"], "ms"),
            kv_sim=_num(r["sim_kv_occupancy_mean"], "fraction"),
            kv_closed=_num(r["closed_form_kv_occupancy"], "fraction"),
            preemptions=_num(r["sim_preemptions_per_1k"], "per 1k requests"),
            knee=_num(r["knee_rps_per_instance"], "req/s"),
            knee_instances=_num(r["knee_instances"], "instances"),
            planned=_num(r["planned_instances"], "instances"),
        ))
    names = list(latency.table["scenario"])
    curve = latency.curve
    spec = LoadCurveSpec(
        loads=tuple(tuple(curve.loc[curve["scenario"] == n, "load_of_capacity"]) for n in names),
        ttft_p99_ms=tuple(tuple(curve.loc[curve["scenario"] == n, "ttft_p99_ms"])
                          for n in names),
    )
    legend = tuple(LegendEntry(n, LINE_COLOURS[k % len(LINE_COLOURS)], "line")
                   for k, n in enumerate(names))
    day_rows = []
    previous = ""
    for record in latency.day.to_dict(orient="records"):
        r = {str(k): v for k, v in record.items()}
        day_rows.append(DayRow(
            scenario=str(r["scenario"]), policy=_words(POLICY_WORDS, str(r["policy"])),
            instance_hours=_num(r["instance_hours"], "instance-hours"),
            cost=_num(r["cost_usd_per_day"], "USD/day"),
            violation_minutes=_num(r["slo_violation_minutes"], "minutes"),
            peak=_num(r["peak_instances"], "instances"),
            first_of_scenario=str(r["scenario"]) != previous,
        ))
        previous = str(r["scenario"])
    day = latency.busiest_day
    chart_day = ""
    if day is not None:
        capacity = float(latency.table.loc[latency.table["scenario"] == latency.busiest,
                                           "knee_rps_per_instance"].iloc[0])
        if not capacity > 0:
            capacity = float("nan")
        demand = (tuple(float(d) / capacity for d in day.demand_rps) if math.isfinite(capacity)
                  else tuple(0.0 for _hour in day.demand_rps))
        chart_day = day_chart(DaySpec(demand, tuple(tuple(map(float, day.instances[p]))
                                                    for p in POLICIES)))
    day_legend = (LegendEntry(_("demand ÷ capacity of one instance"), DEMAND_COLOUR, "shade"),
                  *(LegendEntry(_words(POLICY_WORDS, p), LINE_COLOURS[k], "line")
                    for k, p in enumerate(POLICIES)))
    return LatencySection(
        intro=_(
            "The closed form plans the mean. Here each budgeted row's instance is simulated "
            "serving {requests} requests (random arrivals with the row's arrival_cv, lengths "
            "drawn to its averages and maxima, seed {seed}) with continuous batching, chunked "
            "prefill and paged KV blocks, each step timed by the engine's own decode step and "
            "prefill. Percentiles are at the plan's peak load per instance (peak_qps ÷ "
            "instances). The knee is the highest rate per instance meeting the row's targets "
            "(P99 where given, else its mean targets); rows with P99 targets are sized by it: "
            "instances = ⌈peak_qps × safety ÷ knee⌉. The closed form's KV occupancy reserves "
            "max_prompt + max_output tokens for every sequence (conservative); the simulated "
            "one is what paged blocks hold with the real length mix."
        ).format(requests=f"{ROW_REQUESTS:,}", seed=SIMULATION_SEED),
        rows=tuple(rows), chart=load_curves(spec), legend=legend,
        day_intro=_(
            "A day at each row's 24 hourly rates, the same day \"Demand over time\" prices (the "
            "workload's --profile, else a single-peak day whose busiest hour runs at peak_qps "
            "and whose mean is avg_qps; a flat day when avg_qps is blank): the fixed peak fleet; "
            "KV occupancy scaling out above {scale_out} and in below {scale_in}; QPS-based "
            "(⌈demand × safety ÷ capacity⌉); and scheduled by the hour. New instances bill at "
            "once and serve after {minutes} minutes. A violation minute is one whose demand "
            "exceeds what the ready instances serve within the targets. Dollars are per day at "
            "the row's price."
        ).format(scale_out=f"{KV_SCALE_OUT:.0%}", scale_in=f"{KV_SCALE_IN:.0%}",
                 minutes=f"{COLD_START_MIN:g}"),
        day_rows=tuple(day_rows), day_chart=chart_day, day_legend=day_legend,
        day_caption=_("Instances over the day for {scenario}, the budgeted row with the most "
                      "instances, under each policy.").format(scenario=latency.busiest),
        preemption_note=" ".join(part for part in (
            _preemption_note(latency.table), _not_simulated(latency.not_simulated)) if part),
        kv_note=_kv_note(latency.curve),
    )
