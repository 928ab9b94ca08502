"""The procurement hand-off: the bill of materials per GPU type and price, its total, and where
each price comes from."""

from __future__ import annotations

from collections.abc import Sequence

from reportgen.finance.buy_rent import SERVER_KW, OwnershipTerms
from reportgen.finance.outlook import quarter_label
from reportgen.finance.support import support
from reportgen.i18n import N_, _
from reportgen.plan import Plan
from reportgen.render.context.common import (
    Row,
    as_float,
    blank,
    fmt_value,
    gpu_field,
    hours,
    is_counted,
    sum_of,
    text_of,
)
from reportgen.render.context.models import BomRow, Num, PriceRow, Procurement
from reportgen.units import CONSTANTS

_NODES_NOTE = N_(
    "Nodes are counted per scenario (replicas of different scenarios are not packed onto "
    "shared servers; a replica spans nodes only with pipeline stages); node-hour prices bill "
    "whole instances, so billed GPUs can exceed the GPUs replicas use; power is GPU board "
    "power at TDP, without host, cooling or network."
)
_TOTAL = "Total"  # the bill's total line (a key: its label is translated where it is shown)
PriceKey = tuple[str, str, str, float, str]  # gpu, basis, unit, price per unit, SKU


def unit_words(unit: str, sku: str) -> str:
    """What a price unit bills, in words."""
    if unit == "node_hour":
        return _("{sku} instances").format(sku=sku or _("instance"))
    return _("GPUs")


def _wall(gpu: str, members: Sequence[Row]) -> tuple[float, str]:
    """Power at the wall, kW, and what it counts (naming the GPU)."""
    pue = OwnershipTerms().pue
    if gpu in SERVER_KW:
        return (sum_of(members, "nodes") * SERVER_KW[gpu] * pue,
                _("{gpu} servers at their maximum draw ({kw} kW) × PUE {pue}").format(
                    gpu=gpu, kw=f"{SERVER_KW[gpu]:g}", pue=f"{pue:g}"))
    return (sum_of(members, "power_kw") * pue,
            _("{gpu} GPU boards only × PUE {pue}").format(gpu=gpu, pue=f"{pue:g}"))


def _bom(key: PriceKey, members: Sequence[Row], needed: str = "") -> BomRow:
    """One line of the bill: the members' totals."""
    gpu, basis, unit, price, sku = key
    total = gpu == _TOTAL
    region = text_of(members[0]["price_region"]) if members else ""
    wall, wall_basis = _wall(gpu, members) if not total else (
        sum(_wall(str(m["gpu"]), [m])[0] for m in members), "")
    return BomRow(
        wall_kw=Num(wall, "kW"), wall_basis=wall_basis, needed=needed,
        gpu=_("Total") if total else gpu,
        price=Num(price, "USD/unit-h") if not total else Num("", "text"),
        basis=", ".join(p for p in (basis, region, sku if unit == "node_hour" else "") if p),
        unit=unit_words(unit, sku) if not total else "",
        billed_units=Num(sum_of(members, "billed_units"), "billed units"),
        billed_gpus=Num(sum_of(members, "billed_gpus"), "GPUs"),
        gpus=Num(sum_of(members, "gpus"), "GPUs"),
        gpus_low=Num(sum_of(members, "gpus_low"), "GPUs"),
        gpus_high=Num(sum_of(members, "gpus_high"), "GPUs"),
        nodes=Num(sum_of(members, "nodes"), "nodes"),
        power_kw=Num(sum_of(members, "power_kw"), "kW"),
        monthly_cost=Num(sum_of(members, "monthly_cost"), "USD/month"),
        annual_cost=Num(sum_of(members, "annual_cost"), "USD/year"),
        scenarios=", ".join(str(m["scenario"]) for m in members),
    )


def price_key(row: Row) -> PriceKey:
    """What one line of the bill shares: GPU, price basis, unit, price per unit and SKU."""
    return (str(row["gpu"]), text_of(row["price_basis"]), text_of(row["price_unit"]),
            as_float(row, "price_per_unit"), text_of(row["price_sku"]))


def _prices(plan: Plan, counted: Sequence[Row]) -> tuple[PriceRow, ...]:
    """Each GPU and price the plan buys at, once, with its basis, region, date and source."""
    prices: list[PriceRow] = []
    seen: set[PriceKey] = set()
    for r in counted:
        key = price_key(r)
        if key in seen:
            continue
        seen.add(key)
        if blank(r["raw_gpu_hour_price"]):
            source = text_of(gpu_field(plan, key[0], "price_source"))
            date = text_of(gpu_field(plan, key[0], "price_date"))
        else:
            source = _("given in the scenario file ({scenario})").format(scenario=r["scenario"])
            date = "—"
        prices.append(PriceRow(key[0], Num(key[3], "USD/unit-h"), source or "—", date or "—",
                               basis=key[1], unit=unit_words(key[2], key[4]),
                               region=text_of(r["price_region"]) or "—", sku=key[4] or "—",
                               status=text_of(r["price_status"])))
    return tuple(prices)


def _fabric(plan: Plan, counted: Sequence[Row]) -> str:
    """What replicas that span nodes need of the network between them."""
    spans = []
    for r in counted:
        per_node = float(gpu_field(plan, str(r["gpu"]), "gpus_per_node"))
        gpus = as_float(r, "gpus_per_instance")
        if gpus > per_node:
            link = float(gpu_field(plan, str(r["gpu"]), "internode_gbps"))
            # TRANSLATORS: one item of "Each replica of {spans}: …" (the replicas of a scenario).
            spans.append(_("{scenario} spans {nodes} nodes ({gpus} GPUs in pipeline stages), "
                           "joined by {gbps} Gb/s ({gbs} GB/s) of InfiniBand or RoCE per GPU")
                         .format(scenario=r["scenario"], nodes=f"{gpus / per_node:g}",
                                 gpus=f"{gpus:g}", gbps=f"{link * 8:g}", gbs=f"{link:g}"))
    if not spans:
        return ""
    # TRANSLATORS: separates the items of "Each replica of {spans}" ("A spans …; of B spans …").
    joined = _("; of ").join(spans)
    return _("Each replica of {spans}: the plan's timing assumes that link, so those nodes must "
             "be bought with it.").format(spans=joined)


def procurement(plan: Plan, rows: Sequence[Row]) -> Procurement:
    """The procurement page (rows in the plan's totals only)."""
    counted = [r for r in rows if is_counted(r)]
    groups: dict[PriceKey, list[Row]] = {}
    for r in counted:
        groups.setdefault(price_key(r), []).append(r)
    needed = quarter_label(plan.provenance.generated, 0)
    bom_rows = tuple(_bom(key, members, needed) for key, members in sorted(groups.items()))
    total = _bom((_TOTAL, "", "", 0.0, ""), counted)
    plan_support = support(plan.results)
    months = float(CONSTANTS["MONTHS_PER_YEAR"].value)
    extra = plan_support.monthly_cost
    gpu_monthly, gpu_annual = sum_of(counted, "monthly_cost"), sum_of(counted, "annual_cost")
    return Procurement(
        rows=bom_rows,
        total=total,
        support_label=(_("AWS Business Support on {spend} a month of AWS spend (bands: workbook "
                         "Assumptions)").format(spend=fmt_value(plan_support.spend, "USD/month"))
                       if extra > 0 else ""),
        support_monthly_cost=Num(extra, "USD/month"),
        support_annual_cost=Num(extra * months, "USD/year"),
        grand_monthly_cost=Num(gpu_monthly + extra, "USD/month"),
        grand_annual_cost=Num(gpu_annual + extra * months, "USD/year"),
        prices=_prices(plan, counted),
        nodes_note=" ".join(part for part in (
            _(_NODES_NOTE), _fabric(plan, counted),
            _("Costs assume {hours} billable hours a month.").format(hours=hours())) if part),
    )
