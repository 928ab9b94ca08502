"""The executive page's decision, in plain words: what is asked, the range around it, what the
number includes, the assumptions and risks that move it most, and the savings the plan chose.

Every sentence is computed from the plan (the budgeted rows, the tornado, the Decisions page's
saving, the demand outlook); one that does not apply to this plan is not said.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from reportgen.finance.support import Support
from reportgen.i18n import N_, _, ngettext
from reportgen.plan import Plan
from reportgen.render.context.common import (
    Row,
    as_float,
    blank,
    calibration_kind,
    calibration_of,
    fmt_value,
    hours,
    quote,
    sum_of,
    text_of,
)
from reportgen.render.context.models import Decisions
from reportgen.render.context.outlook import Outlook
from reportgen.render.context.sensitivity import Tornado, TornadoBar
from reportgen.units import CONSTANTS

MOVERS = 3  # assumptions the page names, largest swing first
ENGINE_RISK_NAMES = 2  # more workloads than this are counted, not named (they are on Decisions)
RANGE_SHARE = 0.5  # a workload carrying this share of the cost range is named as a risk
# A price basis of the price book in words.
BASIS_WORDS: dict[str, str] = {
    "on_demand": N_("on-demand"), "reserved_1y": N_("1-year reserved"),
    "reserved_3y": N_("3-year reserved"), "spot": N_("spot"),
    "capacity_block": N_("capacity-block"), "purchase": N_("purchase"), "as typed": N_("typed"),
}
# Serving engines as their projects spell them.
ENGINE_NAMES = {"vllm": "vLLM", "sglang": "SGLang", "tensorrt-llm": "TensorRT-LLM"}
# Price-book providers as they spell themselves.
PROVIDER_NAMES: dict[str, str] = {
    "aws": "AWS", "runpod": "RunPod", "spheron": "Spheron", "tensorwave": "TensorWave",
    "thinkmate": "Thinkmate", "several": N_("several providers"),
}
# The tornado's inputs as a budget reader would name them.
PLAIN_FACTORS: dict[str, str] = {
    "peak and average request rate": N_("Traffic (requests per second)"),
    "efficiency (calibration band)": N_("Real GPU speed (measured spread)"),
    "price": N_("GPU prices"),
    "safety factor": N_("Head-room above peak (safety factor)"),
    "output length": N_("Answer length (output tokens)"),
}


@dataclass(frozen=True)
class Ask:
    """The decision the executive page asks for, and what stands behind it."""

    sentence: str  # the ask: money, hardware, what it serves
    range_sentence: str  # the range and what it means
    includes: tuple[str, ...]  # what the number includes and leaves out
    movers: tuple[TornadoBar, ...]  # the assumptions that move it most, in plain words
    risks: tuple[str, ...]  # what could make it wrong, computed for this plan
    savings: tuple[str, ...]  # savings the plan chose, and those it leaves for later
    left_out: str  # rows shown in the report but not in the number


def _money(value: float) -> str:
    return fmt_value(value, "USD/month")


def _ask_sentence(counted: Sequence[Row], monthly: float, annual: float) -> str:
    workloads = len({str(r["workload_key"]) for r in counted})
    return _("Approve {monthly} a month ({annual} a year) for {gpus} GPUs in {nodes} servers, "
             "serving {workloads} at their latency targets.").format(
        monthly=_money(monthly), annual=fmt_value(annual, "USD/year"),
        gpus=fmt_value(sum_of(counted, "gpus"), "GPUs"),
        nodes=fmt_value(sum_of(counted, "nodes"), "nodes"),
        workloads=ngettext("{n} workload", "{n} workloads", workloads).format(n=workloads))


def _range_sentence(plan: Plan, counted: Sequence[Row], low: float, high: float) -> str:
    yours = any(calibration_kind(plan, str(r["efficiency_key"])) == "load test"
                for r in counted)
    measured = (_("published measurements and your load test") if yours else
                _("published measurements of similar hardware"))
    return _("Expect between {low} and {high} a month: the cost if the GPUs serve as fast as the "
             "slowest or the fastest tenth of {measured} (measured ÷ predicted throughput, 10th "
             "to 90th percentile).").format(low=_money(low), high=_money(high), measured=measured)


def _price_line(counted: Sequence[Row]) -> str:
    providers = sorted({_(PROVIDER_NAMES.get(p, p)) if (p := text_of(r.get("price_provider", "")))
                        else _("prices as typed") for r in counted})
    basis = sorted({_(BASIS_WORDS.get(text_of(r["price_basis"]), text_of(r["price_basis"])))
                    for r in counted})
    return _("GPU servers rented at {basis} prices from {providers}, {hours} hours a month "
             "(each price with its source and date: Procurement hand-off).").format(
        basis=" / ".join(basis), providers=_(", ").join(providers), hours=hours())


def _includes(counted: Sequence[Row], support: Support) -> tuple[str, ...]:
    out = [_price_line(counted)]
    if support.monthly_cost > 0:
        out.append(_("AWS Business Support: {support} a month on the {spend} billed by AWS.")
                   .format(support=_money(support.monthly_cost), spend=_money(support.spend)))
    safety = sorted({float(r["safety_factor"]) for r in counted})
    spares = sum_of(counted, "redundancy_instances")
    headroom = (_("{safety}× head-room above peak traffic").format(safety=f"{safety[0]:g}")
                if len(safety) == 1 else
                _("{low}–{high}× head-room above peak traffic").format(
                    low=f"{safety[0]:g}", high=f"{safety[-1]:g}"))
    extra = (ngettext("{n} replica added for availability, {cost} a month",
                      "{n} replicas added for availability, {cost} a month", int(spares)).format(
        n=int(spares), cost=_money(sum_of(counted, "redundancy_monthly_cost")))
             if spares > 0 else _("none added for availability alone"))
    out.append(_("{headroom}, at least 2 replicas per workload; {extra}.").format(
        headroom=headroom, extra=extra))
    left = [_("storage"), _("data transfer"), _("licences"), _("taxes"), _("staff")]
    if support.unpriced_providers:
        left.insert(2, _("{providers}'s support").format(
            providers=_(", ").join(PROVIDER_NAMES.get(p, p) for p in support.unpriced_providers)))
    out.append(_("Not included: {items}.").format(items=_(", ").join(left)))
    return tuple(out)


def _swing(bar: TornadoBar, base: float) -> float:
    values = [v for v in (bar.low_cost.value, bar.high_cost.value) if isinstance(v, float)]
    return max((abs(v - base) for v in values), default=0.0)


def _movers(tornado: Tornado | None) -> tuple[TornadoBar, ...]:
    if tornado is None or not isinstance(tornado.base.value, float):
        return ()
    base = tornado.base.value
    bars = sorted(tornado.bars, key=lambda b: -_swing(b, base))[:MOVERS]
    return tuple(replace(b, factor=_(PLAIN_FACTORS.get(b.factor, b.factor))) for b in bars)


def _risks(plan: Plan, counted: Sequence[Row], decisions: Decisions) -> tuple[str, ...]:
    out: list[str] = []
    uncal = [quote(str(r["scenario"])) for r in counted
             if not calibration_of(plan, str(r["efficiency_key"]))]
    if uncal:
        out.append(_("No published measurement covers {names}: load-test before committing.")
                   .format(names=_(", ").join(uncal)))
    out.extend(_engine_risk(plan, counted))
    out.extend(_range_risk(counted))
    stale = sorted({str(r["gpu"]) for r in counted
                    if text_of(r["price_status"]) in ("stale", "undated")})
    if stale:
        out.append(_("The price of {gpus} is over 12 months old or undated: re-quote.")
                   .format(gpus=_(", ").join(stale)))
    if any(b.mixed_prices for b in decisions.workloads):
        out.append(_("Providers differ, so part of a GPU choice is a provider's price: price "
                     "the GPUs from one provider before signing."))
    targetless = [quote(str(r["scenario"])) for r in counted
                  if blank(r.get("raw_tpot_slo_ms")) and blank(r.get("raw_ttft_slo_ms"))
                  and blank(r.get("raw_tpot_p99_ms")) and blank(r.get("raw_ttft_p99_ms"))]
    if targetless:
        out.append(_("{names} set no latency target: users get whatever speed a full server "
                     "gives.").format(names=_(", ").join(targetless)))
    return tuple(out)


def _engine_risk(plan: Plan, counted: Sequence[Row]) -> tuple[str, ...]:
    """Workloads whose serving engine is not the one their efficiencies were measured on."""
    measured_on = plan.tables.efficiency.get("engine")
    if measured_on is None:
        return ()
    off: dict[str, dict[str, list[str]]] = {}  # measured on → engine → scenarios
    for r in counted:
        key = str(r["efficiency_key"])
        calibrated_on = text_of(measured_on.get(key, ""))
        engine = text_of(r["engine"])
        if calibration_of(plan, key) and calibrated_on and calibrated_on != engine:
            off.setdefault(calibrated_on, {}).setdefault(engine, []).append(
                quote(str(r["scenario"])))
    out = []
    for measured, by_engine in off.items():
        names = [name for group in by_engine.values() for name in group]
        engines = _(" or ").join(ENGINE_NAMES.get(e, e) for e in by_engine)
        who = (_(", ").join(names) if len(names) <= ENGINE_RISK_NAMES else
               ngettext("{n} workload", "{n} workloads", len(names)).format(n=len(names)))
        out.append(ngettext(
            "{who} runs on {engines}, but its speed was measured on {measured}: its range is "
            "wider; load-test it before committing.",
            "{who} run on {engines}, but their speed was measured on {measured}: their range is "
            "wider; load-test them before committing.", len(names)).format(
                who=who, engines=engines, measured=ENGINE_NAMES.get(measured, measured)))
    return tuple(out)


def _range_risk(counted: Sequence[Row]) -> tuple[str, ...]:
    """The workload that carries most of the plan's cost range, when one does."""
    spans = {str(r["scenario"]): (as_float(r, "monthly_cost_low"), as_float(r, "monthly_cost_high"))
             for r in counted}
    total = sum(high - low for low, high in spans.values())
    if len(spans) < 2 or total <= 0:
        return ()
    name, (low, high) = max(spans.items(), key=lambda kv: kv[1][1] - kv[1][0])
    share = (high - low) / total
    if share < RANGE_SHARE:
        return ()
    return (_("{name} alone spans {low} to {high} a month, {share} of the plan's range: "
              "measure it first.").format(name=quote(name), low=_money(low), high=_money(high),
                                          share=fmt_value(share, "fraction")),)


def _savings(decisions: Decisions, outlook: Outlook | None) -> tuple[str, ...]:
    out: list[str] = []
    saving = decisions.saving.value
    if isinstance(saving, float) and saving > 0:
        out.append(_("Chosen: each workload runs on the cheapest configuration that meets its "
                     "targets, {saving} a month less than the configurations as first typed "
                     "(see Decisions).").format(saving=_money(saving)))
    if outlook is not None:
        peak, scaled = outlook.total.peak_cost.value, outlook.total.autoscaled_cost.value
        mixed = outlook.total.mix_cost.value
        if isinstance(peak, float) and isinstance(scaled, float) and peak > 0:
            out.append(_("Not in the number, for later: autoscaling to each day's traffic "
                         "{scaled} a month ({share} less, before start-up delays); a 1-year "
                         "reserved baseline with on-demand bursts {mixed}.").format(
                scaled=_money(scaled), share=fmt_value(1 - scaled / peak, "fraction"),
                mixed=_money(mixed) if isinstance(mixed, float) else "—"))
    return tuple(out)


def _left_out(rows: Sequence[Row]) -> str:
    compare = sum(1 for r in rows if str(r["status"]) == "compare")
    options = sum(1 for r in rows if str(r["status"]) == "option")
    other = len(rows) - compare - options - sum(1 for r in rows if str(r["status"]) == "chosen")
    parts = []
    if compare:
        parts.append(ngettext("{n} comparison row", "{n} comparison rows", compare).format(
            n=compare))
    if options:
        parts.append(ngettext("{n} option not chosen", "{n} options not chosen", options).format(
            n=options))
    if other:
        parts.append(ngettext("{n} row that does not fit or has no price",
                              "{n} rows that do not fit or have no price", other).format(n=other))
    if not parts:
        return ""
    return _("Not in the number: {parts} (Decisions and the appendices show them).").format(
        parts=_(", ").join(parts))


def ask(plan: Plan, rows: Sequence[Row], support: Support, tornado: Tornado | None,
        decisions: Decisions, outlook: Outlook | None) -> Ask:
    """The executive page's decision for a plan."""
    counted = [r for r in rows if float(r["counted"]) == 1]
    months = float(CONSTANTS["MONTHS_PER_YEAR"].value)
    monthly = sum_of(counted, "monthly_cost") + support.monthly_cost
    if not counted:
        nothing = _("No scenario fits as specified, so the plan has nothing to buy: see "
                    "Decisions for why each row is left out.")
        return Ask(nothing, "", (), (), (), (), _left_out(rows))
    low = sum_of(counted, "monthly_cost_low") + support.monthly_cost_low
    high = sum_of(counted, "monthly_cost_high") + support.monthly_cost_high
    return Ask(
        sentence=_ask_sentence(counted, monthly, monthly * months),
        range_sentence=_range_sentence(plan, counted, low, high),
        includes=_includes(counted, support),
        movers=_movers(tornado),
        risks=_risks(plan, counted, decisions),
        savings=_savings(decisions, outlook),
        left_out=_left_out(rows),
    )

