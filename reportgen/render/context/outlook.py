"""The PDF's "Demand over time" page: peak-sized against autoscaled cost per budgeted row, the
cheapest reserved-plus-on-demand mix, and the quarterly ramp."""

from __future__ import annotations

import math
from dataclasses import dataclass

from reportgen.finance.buy_rent import OwnershipTerms, buy_or_rent
from reportgen.finance.outlook import day_fleet, quarterly
from reportgen.i18n import _
from reportgen.plan import Plan
from reportgen.render.context.models import Num


@dataclass(frozen=True)
class DayRow:
    """One budgeted row over a day."""

    scenario: str
    gpu: str
    shape: str
    peak_hours: Num
    autoscaled_hours: Num
    peak_cost: Num
    autoscaled_cost: Num
    mix_cost: Num
    mix_note: str


@dataclass(frozen=True)
class QuarterRow:
    """The budgeted fleet in one quarter."""

    quarter: str
    gpus: Num
    nodes: Num
    monthly_cost: Num
    quarter_cost: Num


@dataclass(frozen=True)
class BuyRow:
    """Owning one GPU type's servers against renting them."""

    gpu: str
    nodes: Num
    capex: Num
    sku: str
    price_date: str
    price_status: str  # current, stale or undated (finance.prices.status)
    depreciation: Num
    power: Num
    own: Num
    rent: Num
    break_even: Num
    note: str


@dataclass(frozen=True)
class Outlook:
    """The demand-over-time page."""

    rows: tuple[DayRow, ...]
    total: DayRow
    quarters: tuple[QuarterRow, ...]
    buy: tuple[BuyRow, ...] = ()
    terms: str = ""


def _money(value: float) -> Num:
    return Num(value if math.isfinite(value) else None, "USD/month")


def outlook(plan: Plan) -> Outlook:
    """The page for a plan (budgeted rows only)."""
    day = day_fleet(plan.results, plan.prices, plan.profiles)
    rows = tuple(DayRow(
        scenario=str(r["scenario"]), gpu=str(r["gpu"]), shape=str(r["shape"]),
        peak_hours=Num(r["peak_replica_hours_per_day"], "count"),
        autoscaled_hours=Num(r["autoscaled_replica_hours_per_day"], "count"),
        peak_cost=_money(r["peak_monthly_cost"]),
        autoscaled_cost=_money(r["autoscaled_monthly_cost"]),
        mix_cost=_money(r["mix_monthly_cost"]), mix_note=str(r["mix_note"]),
    ) for _row, r in day.iterrows())
    peak = float(day["peak_monthly_cost"].sum())
    scaled = float(day["autoscaled_monthly_cost"].sum())
    # the mix where a reserved price exists, else the row's peak-sized on-demand cost
    mixed = float(day["mix_monthly_cost"].fillna(day["peak_monthly_cost"]).sum())
    total = DayRow(_("Total"), "", "", Num(float(day["peak_replica_hours_per_day"].sum()), "count"),
                   Num(float(day["autoscaled_replica_hours_per_day"].sum()), "count"),
                   _money(peak), _money(scaled), _money(mixed), "")
    quarters = tuple(QuarterRow(str(q["quarter"]), Num(q["gpus"], "GPUs"),
                                Num(q["nodes"], "nodes"), _money(q["monthly_cost"]),
                                Num(q["quarter_cost"], "USD/quarter")) for _row, q in
                     quarterly(plan.results, plan.provenance.generated).iterrows())
    terms = OwnershipTerms()
    buy = tuple(BuyRow(
        str(b["gpu"]), Num(b["nodes"], "nodes"), Num(_finite(b["capex"]), "USD one-off"),
        str(b["sku"]),
        str(b["price_date"]), str(b["price_status"]), _money(b["monthly_depreciation"]),
        _money(b["monthly_power"]), _money(b["monthly_own"]), _money(b["monthly_rent"]),
        Num(_finite(b["break_even_month"]), "count"), str(b["note"]))
        for _row, b in buy_or_rent(plan.results, plan.prices, terms,
                                   plan.provenance.generated).iterrows())
    words = _("straight-line over {years} years, residual {residual} (assumptions); power at the "
              "servers' maximum draw × PUE {pue} (Uptime Institute 2024 survey average) × "
              "{cents} ¢/kWh (EIA, industrial, Middle Atlantic, April 2025); colocation, staff, "
              "networking switches and support not included").format(
                  years=f"{terms.depreciation_years:g}", residual=f"{terms.residual_fraction:.0%}",
                  pue=f"{terms.pue:g}", cents=f"{terms.usd_per_kwh * 100:.2f}")
    return Outlook(rows, total, quarters, buy, words)


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(float(value)) else None
