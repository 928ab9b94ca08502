"""The executive summary: headline totals, where the range comes from, the scenario table kept
to one page, and three or four findings in sentences."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reportgen.finance.support import Support, support
from reportgen.i18n import N_, _, ngettext
from reportgen.plan import Plan
from reportgen.render.context.bottleneck import size_sentence
from reportgen.render.context.common import (
    CALIBRATED,
    Row,
    blank,
    bottleneck_label,
    calibration_of,
    fmt,
    fmt_value,
    is_counted,
    is_tutorial,
    listing,
    num,
    plural,
    quote,
    replica,
    status_text,
    sum_of,
)
from reportgen.render.context.costing import (
    pricing_sentence,
    redundancy_sentence,
    scope_sentence,
)
from reportgen.render.context.models import Headline, Num, Summary, SummaryRow
from reportgen.units import CONSTANTS

SUMMARY_ROWS = 7  # rows of the summary's table that still fit its one page beside the tornado
_INFEASIBLE = ("weights_do_not_fit", "slo_unreachable")
# What sets a budgeted workload's size, in a budget reader's words ({field}: the row's value).
PLAIN_SIZE: dict[str, str] = {
    "kv_memory": N_("Memory for requests in flight"),
    "tpot_slo": N_("Per-token target ({tpot_slo_ms})"),
    "ttft_slo": N_("First-token target ({ttft_slo_ms})"),
    "batch_cap": N_("Batch limit ({max_batch} requests)"),
    "queueing": N_("Queueing at P99 targets"),
}


# --- findings ------------------------------------------------------------------------------------


def _biggest_cost(counted: Sequence[Row]) -> list[str]:
    if not counted:
        return []
    out: list[str] = []
    total = sum_of(counted, "monthly_cost")
    top = max(counted, key=lambda r: float(r["monthly_cost"]))
    if len(counted) > 1 and total > 0:
        share = fmt_value(float(top["monthly_cost"]) / total, "fraction")
        out.append(
            f"The biggest cost is {quote(str(top['scenario']))}: {fmt(top, 'gpus')} "
            f"{top['gpu']} GPUs, {fmt(top, 'monthly_cost')} a month, {share} of the plan."
        )
    out.append(size_sentence(top))
    return out


def _no_fit_reason(row: Row) -> str:
    if str(row["bottleneck"]) == "weights_do_not_fit":
        return (
            f"{fmt(row, 'weights_gib')} of weights leave no room for one sequence on "
            f"{replica(row)} ({fmt(row, 'gpu_memory_gib')} each)"
        )
    return (
        f"even one sequence misses the latency target (TPOT {fmt(row, 'tpot_ms')}, "
        f"TTFT {fmt(row, 'ttft_ms')} at batch 1)"
    )


def _no_fit(rows: Sequence[Row]) -> list[str]:
    no_fit = [r for r in rows if not is_tutorial(r) and str(r["bottleneck"]) in _INFEASIBLE]
    if not no_fit:
        return []
    parts = listing([f"{quote(str(r['scenario']))}: {_no_fit_reason(r)}" for r in no_fit])
    verb = "does" if len(no_fit) == 1 else "do"
    return [
        f"{plural(len(no_fit), 'scenario')} {verb} not fit and "
        f"{'is' if len(no_fit) == 1 else 'are'} left out of the totals — {parts}."
    ]


def _no_target(counted: Sequence[Row]) -> list[str]:
    no_target = [
        r for r in counted if blank(r["raw_tpot_slo_ms"]) and blank(r["raw_ttft_slo_ms"])
    ]
    if not no_target:
        return []
    names = listing(
        [f"{quote(str(r['scenario']))} ({fmt(r, 'tpot_ms')} per token)" for r in no_target]
    )
    return [
        f"{plural(len(no_target), 'scenario')} set no latency target, so "
        f"{'it runs' if len(no_target) == 1 else 'they run'} as full as memory or the "
        f"batch cap allows and users get whatever latency that gives: {names}. Add "
        "tpot_slo_ms to plan for a latency."
    ]


def _tutorial_findings(rows: Sequence[Row], matches: Mapping[int, int]) -> list[str]:
    out: list[str] = []
    for t_index, r_index in matches.items():
        t, r = rows[t_index], rows[r_index]
        out.append(
            f"The tutorial's own arithmetic for {quote(str(t['scenario']))} gives "
            f"{fmt(t, 'gpus')} GPUs at tensor parallelism 1, where its weights cannot even be "
            f"loaded; the roofline plan {quote(str(r['scenario']))} needs {fmt(r, 'gpus')} "
            "(see the tutorial comparison)."
        )
    return out


def findings(rows: Sequence[Row], matches: Mapping[int, int]) -> tuple[str, ...]:
    """At most four sentences, most important first."""
    counted = [r for r in rows if is_counted(r)]
    out = [
        *_biggest_cost(counted),
        *_no_fit(rows),
        *_no_target(counted),
        *_tutorial_findings(rows, matches),
    ]
    return tuple(out[:4])


# --- headlines and the range ---------------------------------------------------------------------


def _headlines(counted: Sequence[Row], support: Support) -> tuple[Headline, ...]:
    def total(name: str, unit: str) -> Num:
        return Num(sum_of(counted, name), unit)

    def monthly(name: str, extra: float) -> Num:
        return Num(sum_of(counted, name) + extra, "USD/month")

    months = float(CONSTANTS["MONTHS_PER_YEAR"].value)
    note = (_("incl. support {cost}").format(
        cost=fmt_value(support.monthly_cost * months, "USD/year"))
            if support.monthly_cost > 0 else "")
    return (
        Headline(_("GPUs"), total("gpus", "GPUs"), total("gpus_low", "GPUs"),
                 total("gpus_high", "GPUs")),
        Headline(_("Servers (nodes)"), total("nodes", "nodes")),
        Headline(_("Monthly cost"), monthly("monthly_cost", support.monthly_cost),
                 monthly("monthly_cost_low", support.monthly_cost_low),
                 monthly("monthly_cost_high", support.monthly_cost_high)),
        Headline(_("Annual cost"), Num(sum_of(counted, "annual_cost")
                                       + support.monthly_cost * months, "USD/year"), note=note),
    )


def _band_sentence(plan: Plan, counted: Sequence[Row]) -> str:
    if not counted:
        return "No scenario fits as specified, so the plan has nothing to buy."
    keys = list(dict.fromkeys(str(r["efficiency_key"]) for r in counted))
    yours = [k for k in keys if calibration_of(plan, k) == CALIBRATED["load test"]]
    fitted_on = (f"on the public benchmarks and your load test (for {', '.join(yours)})"
                 if yours else "on the public load tests the model was fitted to")
    return (
        "Range: the fleet if real throughput is at the 90th or 10th percentile of measured ÷ "
        f"predicted {fitted_on} (per GPU family and precision; see Calibration)."
    )


def _calibration_sentence(plan: Plan, counted: Sequence[Row]) -> str:
    uncal = [r for r in counted if not calibration_of(plan, str(r["efficiency_key"]))]
    if not uncal:
        return "Every planned scenario uses calibrated efficiencies."
    if len(uncal) == len(counted):
        return (
            f"All {plural(len(counted), 'planned scenario')} use uncalibrated efficiencies "
            "(engineering priors), so the band is a prior, not a measurement: load-test "
            "before committing."
        )
    names = ", ".join(quote(str(r["scenario"])) for r in uncal)
    return (
        f"Uncalibrated efficiencies (engineering priors) for {names}: their band is a "
        "prior, not a measurement; load-test them before committing."
    )


# --- the scenario table --------------------------------------------------------------------------


def _summary_row(i: int, r: Row) -> SummaryRow:
    return SummaryRow(
        number=str(i + 1),
        anchor=f"scenario-{i + 1}",
        name=str(r["scenario"]),
        model=str(r["model"]),
        gpu=str(r["gpu"]) if float(r["pp"]) <= 1 else f"{replica(r)} per replica",
        gpus=num(r, "gpus"),
        monthly_cost=num(r, "monthly_cost") if r["priced"] == 1 else Num("no price", "text"),
        cost_per_million=(num(r, "cost_per_million_output_tokens") if r["priced"] == 1
                          else Num("no price", "text")),
        cost_per_million_total=(num(r, "cost_per_million_total_tokens") if r["priced"] == 1
                                else Num("no price", "text")),
        bottleneck=str(r["bottleneck"]),
        bottleneck_label=plain_size(r),
        counted=is_counted(r),
        status=status_text(r),
    )


def plain_size(r: Row) -> str:
    """What sets a row's size in plain words, with the target or limit that binds."""
    code = str(r["fleet_bottleneck"]) if str(r["fleet_bottleneck"]) == "queueing" else str(
        r["bottleneck"])
    words = PLAIN_SIZE.get(code)
    if words is None:
        return bottleneck_label(r)
    return _(words).format(tpot_slo_ms=fmt_value(r["raw_tpot_slo_ms"], "ms", with_unit=True),
                           ttft_slo_ms=fmt_value(r["raw_ttft_slo_ms"], "ms", with_unit=True),
                           max_batch=fmt(r, "max_batch"))


def _rest_row(rest: Sequence[Row]) -> SummaryRow:
    """One line for the scenarios that do not fit on the page."""
    rest_counted = [r for r in rest if is_counted(r)]
    return SummaryRow(
        number="",
        anchor="",
        name=ngettext("{n} more workload", "{n} more workloads", len(rest)).format(n=len(rest)),
        model="",
        gpu="",
        gpus=Num(sum_of(rest_counted, "gpus"), "GPUs"),
        monthly_cost=Num(sum_of(rest_counted, "monthly_cost"), "USD/month"),
        cost_per_million=Num(None, "text"),
        cost_per_million_total=Num(None, "text"),
        bottleneck="",
        bottleneck_label=_("see their sections"),
        counted=True,
        status="",
    )


def _table(rows: Sequence[Row]) -> tuple[SummaryRow, ...]:
    """The budgeted rows (the others are counted in a line under the table); past
    SUMMARY_ROWS, the costliest in input order and the rest in one line."""
    budgeted = [i for i, r in enumerate(rows) if is_counted(r)]
    if len(budgeted) <= SUMMARY_ROWS:
        return tuple(_summary_row(i, rows[i]) for i in budgeted)
    order = sorted(budgeted, key=lambda i: -float(rows[i]["monthly_cost"]))
    keep = set(order[: SUMMARY_ROWS - 1])
    rest = [rows[i] for i in budgeted if i not in keep]
    return (*(_summary_row(i, rows[i]) for i in budgeted if i in keep), _rest_row(rest))


def summary(plan: Plan, rows: Sequence[Row], matches: Mapping[int, int]) -> Summary:
    """The one-page executive summary."""
    counted = [r for r in rows if is_counted(r)]
    plan_support = support(plan.results)
    headlines = _headlines(counted, plan_support)
    return Summary(
        headlines=headlines,
        band_sentence=_band_sentence(plan, counted),
        calibration_sentence=_calibration_sentence(plan, counted),
        rows=_table(rows),
        total_gpus=headlines[0].value,
        total_monthly_cost=headlines[2].value,
        findings=findings(rows, matches),
        scope_sentence=scope_sentence(counted, plan_support),
        pricing_sentence=pricing_sentence(counted),
        redundancy_sentence=redundancy_sentence(counted),
        gpu_monthly_cost=Num(sum_of(counted, "monthly_cost"), "USD/month"),
        support_monthly_cost=Num(plan_support.monthly_cost, "USD/month"),
    )
