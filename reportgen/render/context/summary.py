"""The executive summary's figures: the headline totals and the table of the workloads in the
number, kept to one page (the decision in words is :mod:`.ask`)."""

from __future__ import annotations

from collections.abc import Sequence

from reportgen.finance.support import Support, support
from reportgen.i18n import N_, _, ngettext
from reportgen.plan import Plan
from reportgen.render.context.common import (
    Row,
    bottleneck_label,
    fmt,
    fmt_value,
    is_counted,
    num,
    replica,
    status_text,
    sum_of,
)
from reportgen.render.context.models import Headline, Num, Summary, SummaryRow
from reportgen.units import CONSTANTS

SUMMARY_ROWS = 7  # rows of the summary's table that still fit its one page
# What sets a budgeted workload's size, in a budget reader's words ({field}: the row's value).
PLAIN_SIZE: dict[str, str] = {
    "kv_memory": N_("Memory for requests in flight"),
    "tpot_slo": N_("Per-token target ({tpot_slo_ms})"),
    "ttft_slo": N_("First-token target ({ttft_slo_ms})"),
    "batch_cap": N_("Batch limit ({max_batch} requests)"),
    "queueing": N_("Queueing at P99 targets"),
}


# --- headlines ---------------------------------------------------------------------


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


# --- the scenario table --------------------------------------------------------------------------


def _summary_row(i: int, r: Row) -> SummaryRow:
    return SummaryRow(
        number=str(i + 1),
        anchor=f"scenario-{i + 1}",
        name=str(r["scenario"]),
        model=str(r["model"]),
        gpu=(str(r["gpu"]) if float(r["pp"]) <= 1 else
             _("{replica} per replica").format(replica=replica(r))),
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


def summary(plan: Plan, rows: Sequence[Row]) -> Summary:
    """The one-page executive summary."""
    counted = [r for r in rows if is_counted(r)]
    plan_support = support(plan.results)
    headlines = _headlines(counted, plan_support)
    return Summary(
        headlines=headlines,
        rows=_table(rows),
        total_gpus=headlines[0].value,
        total_monthly_cost=headlines[2].value,
        gpu_monthly_cost=Num(sum_of(counted, "monthly_cost"), "USD/month"),
        support_monthly_cost=Num(plan_support.monthly_cost, "USD/month"),
    )
