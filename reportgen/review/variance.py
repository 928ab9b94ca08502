"""The cost variance of the quarter, split into six additive components.

Cost over the window is written as paid GPU-hours × price per GPU-hour, and the paid GPU-hours
of a workload as a chain the actuals replace one link at a time (sequential substitution):

    GPU-hours = plan GPU-hours × (requests ÷ planned requests)          volume, then mix
                               × (GPU time per request ÷ planned)     tokens per request
                               × (time at the achieved speed ÷ engine's) efficiency
                then the GPU-hours actually paid                       idle capacity
    cost      = GPU-hours × price per GPU-hour                         price

Stage k's cost is the cost with the first k links at their actual values and the rest at the
plan's; each component is the change from one stage to the next:

=================  ===========================================================================
volume             total requests of all workloads, at the plan's mix: plan cost × (R_a/R_p − 1)
mix                the workload's share of those requests: plan cost × (r_a/r_p − R_a/R_p)
tokens / request   GPU time per request at the measured prompt and output lengths (engine)
efficiency         measured TPOT against the engine's at the batch that ran (and the stack)
idle capacity      GPU-hours paid against those the traffic needed at that speed, with the
                   plan's own head-room (peak-to-average and safety factor) not counted
price              price paid per GPU-hour against the plan's (cost ÷ GPU-hours)
=================  ===========================================================================

Stage costs are rounded to the cent and components are their differences in exact decimal
arithmetic, so the components of a workload sum exactly to its variance (actual − plan cost)
and the workloads' to the total.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal

COMPONENTS: tuple[str, ...] = (
    "volume", "mix", "tokens_per_request", "efficiency", "idle_capacity", "price",
)
LABELS = {
    "volume": "Volume", "mix": "Mix", "tokens_per_request": "Tokens per request",
    "efficiency": "Efficiency", "idle_capacity": "Idle capacity", "price": "Price",
}
CENT = Decimal("0.01")
EXACT = Context(prec=1000, rounding=ROUND_HALF_UP)  # any double in cents, with no rounding


def cents(value: float) -> Decimal:
    """A dollar amount rounded to the cent as a spreadsheet's ROUND(x, 2) does (half away from
    zero, on the shortest decimal that reads back as the same double), exactly."""
    return Decimal(repr(float(value))).quantize(CENT, context=EXACT)


def _sum(amounts: Iterable[Decimal]) -> Decimal:
    total = Decimal(0)
    for amount in amounts:
        total = EXACT.add(total, amount)
    return total


@dataclass(frozen=True)
class Drivers:
    """One workload's plan and actual figures over the window, as the chain uses them."""

    plan_cost: float  # USD
    plan_gpu_hours: float
    plan_requests: float
    actual_requests: float
    tokens_factor: float  # GPU time per request at measured lengths ÷ planned (engine)
    efficiency_factor: float  # GPU time per request at achieved speed ÷ engine's
    actual_gpu_hours: float
    actual_cost: float  # USD


@dataclass(frozen=True)
class WorkloadVariance:
    """Stage costs and components of one workload."""

    name: str
    stages: tuple[Decimal, ...]  # 7 costs: plan, after each component; the last = actual
    gpu_hours: tuple[float, ...]  # paid GPU-hours at stages 0-5

    @property
    def components(self) -> dict[str, Decimal]:
        """Each component's USD."""
        return {name: EXACT.subtract(self.stages[k + 1], self.stages[k])
                for k, name in enumerate(COMPONENTS)}

    @property
    def plan(self) -> Decimal:
        return self.stages[0]

    @property
    def actual(self) -> Decimal:
        return self.stages[-1]

    @property
    def total(self) -> Decimal:
        """Actual − plan cost."""
        return EXACT.subtract(self.actual, self.plan)


@dataclass(frozen=True)
class Variance:
    """Every workload's variance and the totals."""

    workloads: tuple[WorkloadVariance, ...]
    volume_ratio: float  # R_a / R_p over all workloads

    @property
    def plan(self) -> Decimal:
        return _sum(w.plan for w in self.workloads)

    @property
    def actual(self) -> Decimal:
        return _sum(w.actual for w in self.workloads)

    @property
    def total(self) -> Decimal:
        return EXACT.subtract(self.actual, self.plan)

    @property
    def components(self) -> dict[str, Decimal]:
        """Each component summed over workloads."""
        return {c: _sum(w.components[c] for w in self.workloads) for c in COMPONENTS}


def _safe(factor: float) -> float:
    return factor if factor == factor and factor not in (float("inf"), float("-inf")) else 1.0


def workload_variance(name: str, d: Drivers, volume_ratio: float) -> WorkloadVariance:
    """The chain for one workload, given the portfolio's volume ratio."""
    share = d.actual_requests / d.plan_requests if d.plan_requests > 0 else 0.0
    g1 = d.plan_gpu_hours * volume_ratio
    g2 = d.plan_gpu_hours * share
    g3 = g2 * _safe(d.tokens_factor)
    g4 = g3 * _safe(d.efficiency_factor)
    g5 = d.actual_gpu_hours
    hours = (d.plan_gpu_hours, g1, g2, g3, g4, g5)

    def cost(gpu_hours: float) -> Decimal:
        if d.plan_gpu_hours <= 0:
            return Decimal(0)
        return cents(d.plan_cost * (gpu_hours / d.plan_gpu_hours))

    stages = (cents(d.plan_cost), *(cost(h) for h in hours[1:]), cents(d.actual_cost))
    return WorkloadVariance(name, stages, hours)


def variance(drivers: Mapping[str, Drivers]) -> Variance:
    """The variance of every workload (the plan's order)."""
    planned = sum(d.plan_requests for d in drivers.values())
    actual = sum(d.actual_requests for d in drivers.values())
    ratio = actual / planned if planned > 0 else 0.0
    return Variance(tuple(workload_variance(n, d, ratio) for n, d in drivers.items()), ratio)


def waterfall(v: Variance) -> Sequence[tuple[str, Decimal]]:
    """(label, USD) from the plan's cost through each component to the actual cost."""
    parts = [(LABELS[c], amount) for c, amount in v.components.items()]
    return [("Plan", v.plan), *parts, ("Actual", v.actual)]
