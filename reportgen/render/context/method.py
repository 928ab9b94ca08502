"""The method appendix: every registry quantity with its formula, grouped by module, and the
tutorial's pitfalls with evidence from this plan."""

from __future__ import annotations

from collections.abc import Sequence

from reportgen.i18n import N_, _
from reportgen.quantities import REGISTRY
from reportgen.render.context.common import Row, bottleneck_label, fmt, is_counted, quote
from reportgen.render.context.models import Formula, FormulaGroup, Pitfall

_SECTION_TITLES: dict[str, str] = {
    "inputs": N_("Inputs as the plan uses them"),
    "memory": N_("Memory"),
    "timing": N_("Time on the roofline"),
    "batch": N_("The operating batch"),
    "latency": N_("Latency and throughput of one instance"),
    "breakdown": N_("Memory and time at the operating batch"),
    "fleet": N_("Fleet size and cost"),
    "band": N_("Error band"),
    "notes": N_("Notes"),
}

# (title, what the plan does instead); the evidence comes from the plan's costliest scenario.
_PITFALLS: tuple[tuple[str, str], ...] = (
    (
        N_("A theoretical number is not a promise"),
        N_("The compute ceiling F·MFU/2P is an upper bound for a kitchen that never waits. "
           "The plan discounts both ceilings (compute and memory bandwidth) by efficiencies "
           "listed in the assumptions register with whether they are calibrated, and carries "
           "their spread into the GPU range."),
    ),
    (
        N_("KV cache from the input length only"),
        N_("A sequence's KV cache grows to prompt + output while it runs, so memory is "
           "reserved for the maximum prompt plus the maximum output."),
    ),
    (
        N_("QPS is not concurrency"),
        N_("Concurrency = request rate × response time (Little's Law); with responses "
           "lasting seconds, requests in flight far exceed requests per second."),
    ),
    (
        N_("The largest batch is not the best batch"),
        N_("Throughput flattens while latency keeps rising; the plan takes the largest batch "
           "that meets the latency targets, memory and the scheduler cap, and says which one "
           "binds."),
    ),
    (
        N_("Copying someone else's optimisations"),
        N_("Benchmarks from other workloads, hardware and engine versions do not transfer. "
           "The plan is an estimate to be calibrated with your own load test; every "
           "efficiency it uses is listed with its source and whether it was calibrated."),
    ),
)


def formulas() -> tuple[FormulaGroup, ...]:
    """The registry's quantities in registry order, one group per module."""
    groups: dict[str, list[Formula]] = {}
    for q in REGISTRY.values():
        groups.setdefault(q.section, []).append(
            Formula(q.name, q.unit, _(q.doc) if q.doc else "", "=" + q.excel))
    return tuple(
        FormulaGroup(_(_SECTION_TITLES[section]) if section in _SECTION_TITLES else section,
                     tuple(items))
        for section, items in groups.items()
    )


def _evidence(top: Row) -> tuple[str, ...]:
    """One sentence per pitfall from the costliest scenario (the last pitfall has none)."""
    name = quote(str(top["scenario"]))
    return (
        _("In {name}, the ceiling would be {ceiling}; the plan counts on {tokens}.").format(
            name=name, ceiling=fmt(top, "compute_ceiling_tokens_per_s_per_gpu"),
            tokens=fmt(top, "output_tokens_per_s_per_gpu")),
        _("{name} reserves {tokens} per sequence.").format(
            name=name, tokens=fmt(top, "reserved_tokens_per_seq")),
        _("{name}: {peak} × {response} = {concurrency} requests in flight.").format(
            name=name, peak=fmt(top, "peak_qps"), response=fmt(top, "response_time_s"),
            concurrency=fmt(top, "concurrency")),
        _("{name}: B* = {batch}, set by {bottleneck}.").format(
            name=name, batch=fmt(top, "batch"), bottleneck=bottleneck_label(top)),
        "",
    )


def pitfalls(rows: Sequence[Row]) -> tuple[Pitfall, ...]:
    """The tutorial's misconceptions, with evidence when the plan has a scenario to cite."""
    counted = [r for r in rows if is_counted(r)]
    if counted:
        evidence = _evidence(max(counted, key=lambda r: float(r["monthly_cost"])))
    else:
        evidence = ("",) * len(_PITFALLS)
    return tuple(
        Pitfall(_(title), _(text), ev)
        for (title, text), ev in zip(_PITFALLS, evidence, strict=True)
    )
