"""The procurement hand-off: the bill of materials per GPU type and price, its total, and where
each price comes from."""

from __future__ import annotations

from collections.abc import Sequence

from reportgen.plan import Plan
from reportgen.render.context.common import (
    Row,
    as_float,
    blank,
    gpu_field,
    hours,
    is_counted,
    sum_of,
    text_of,
)
from reportgen.render.context.models import BomRow, Num, PriceRow, Procurement

_NODES_NOTE = (
    "Nodes are counted per scenario (replicas of different scenarios are not packed onto "
    "shared servers); power is GPU board power at TDP, without host, cooling or network. "
)


def _bom(gpu: str, price: Num, members: Sequence[Row]) -> BomRow:
    """One line of the bill: the members' totals."""
    return BomRow(
        gpu=gpu,
        price=price,
        gpus=Num(sum_of(members, "gpus"), "GPUs"),
        gpus_low=Num(sum_of(members, "gpus_low"), "GPUs"),
        gpus_high=Num(sum_of(members, "gpus_high"), "GPUs"),
        nodes=Num(sum_of(members, "nodes"), "nodes"),
        power_kw=Num(sum_of(members, "power_kw"), "kW"),
        monthly_cost=Num(sum_of(members, "monthly_cost"), "USD/month"),
        annual_cost=Num(sum_of(members, "annual_cost"), "USD/year"),
        scenarios=", ".join(str(m["scenario"]) for m in members),
    )


def _price_key(row: Row) -> tuple[str, float]:
    return str(row["gpu"]), as_float(row, "gpu_hour_price")


def _prices(plan: Plan, counted: Sequence[Row]) -> tuple[PriceRow, ...]:
    """Each GPU and price the plan buys at, once, with its source."""
    prices: list[PriceRow] = []
    seen: set[tuple[str, float]] = set()
    for r in counted:
        key = _price_key(r)
        if key in seen:
            continue
        seen.add(key)
        if blank(r["raw_gpu_hour_price"]):
            source = text_of(gpu_field(plan, key[0], "price_source"))
            date = text_of(gpu_field(plan, key[0], "price_date"))
        else:
            source, date = f"given in the scenario file ({r['scenario']})", "—"
        prices.append(PriceRow(key[0], Num(key[1], "USD/GPU-h"), source or "—", date or "—"))
    return tuple(prices)


def _fabric(plan: Plan, counted: Sequence[Row]) -> str:
    """What replicas that span nodes need of the network between them."""
    spans = []
    for r in counted:
        per_node = float(gpu_field(plan, str(r["gpu"]), "gpus_per_node"))
        gpus = as_float(r, "gpus_per_instance")
        if gpus > per_node:
            link = float(gpu_field(plan, str(r["gpu"]), "internode_gbps"))
            spans.append(f"{r['scenario']} spans {gpus / per_node:g} nodes ({gpus:g} GPUs in "
                         f"pipeline stages), joined by {link * 8:g} Gb/s ({link:g} GB/s) of "
                         "InfiniBand or RoCE per GPU")
    if not spans:
        return ""
    return ("Each replica of " + "; of ".join(spans) + ": the plan's timing assumes that link, "
            "so those nodes must be bought with it. ")


def procurement(plan: Plan, rows: Sequence[Row]) -> Procurement:
    """The procurement page (rows in the plan's totals only)."""
    counted = [r for r in rows if is_counted(r)]
    groups: dict[tuple[str, float], list[Row]] = {}
    for r in counted:
        groups.setdefault(_price_key(r), []).append(r)
    bom_rows = tuple(
        _bom(gpu, Num(price, "USD/GPU-h"), members)
        for (gpu, price), members in sorted(groups.items())
    )
    return Procurement(
        rows=bom_rows,
        total=_bom("Total", Num("", "text"), counted),
        prices=_prices(plan, counted),
        nodes_note=_NODES_NOTE + _fabric(plan, counted)
        + f"Costs assume {hours()} billable hours a month.",
    )
