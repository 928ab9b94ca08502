"""What the plan's money covers, in sentences for the executive summary: what the total includes
and excludes, which prices it uses (basis, region, date, and which are stale), and what the
availability replicas and whole-instance billing add."""

from __future__ import annotations

from collections.abc import Sequence

from reportgen.finance.support import Support
from reportgen.render.context.common import Row, fmt_value, hours, plural, sum_of, text_of


def scope_sentence(counted: Sequence[Row], support: Support) -> str:
    """One sentence on what the total includes and excludes, from the prices used and the
    support switch."""
    node_priced = any(text_of(r["price_unit"]) == "node_hour" for r in counted)
    host = (" (instance prices include host CPUs, memory, disks and network)" if node_priced
            else "")
    excluded = ["storage", "data transfer", "licences", "taxes", "staff",
                "owned hardware's power and hosting"]
    if support.monthly_cost > 0:
        plan = (f", and AWS Business Support ({fmt_value(support.monthly_cost, 'USD/month')}) "
                f"on the {fmt_value(support.spend, 'USD/month')} billed by AWS")
    else:
        plan = ""
        excluded.insert(2, "support plans")
    if support.unpriced_providers:
        excluded.insert(2, ", ".join(support.unpriced_providers) + "'s support")
    return (f"The total is GPU rental as billed, {hours()} hours a month{host}{plan}; not "
            f"included: {', '.join(excluded)}.")


def _price_words(r: Row) -> str:
    sku = text_of(r["price_sku"]) if text_of(r["price_unit"]) == "node_hour" else ""
    parts = [text_of(r["price_basis"]).replace("_", "-"), text_of(r.get("price_provider", "")),
             text_of(r["price_region"]), sku]
    date = text_of(r["price_date"])
    words = f"{r['gpu']} at {', '.join(p for p in parts if p)}"
    status = text_of(r["price_status"])
    if status == "stale":
        return f"{words} (quoted {date}: more than 12 months old, re-quote)"
    if status == "undated":
        return f"{words} (undated: re-quote)"
    return f"{words} ({date})" if date else words


def pricing_sentence(counted: Sequence[Row]) -> str:
    """The prices the total uses: basis, region, instance and date per GPU, flags included."""
    seen: dict[str, str] = {}
    for r in counted:
        seen.setdefault(f"{r['gpu']}|{r['price_basis']}|{r['price_sku']}", _price_words(r))
    if not seen:
        return ""
    providers = {text_of(r.get("price_provider", "")) for r in counted}
    mixed = (" Providers differ, so a choice of GPU is partly a choice of provider (see "
             "Decisions)." if len(providers) > 1 else "")
    return "Prices: " + "; ".join(seen.values()) + "." + mixed


def redundancy_sentence(counted: Sequence[Row]) -> str:
    """What the availability replicas and whole-instance billing add, apart from safety."""
    extra = sum_of(counted, "redundancy_instances")
    cost = sum_of(counted, "redundancy_monthly_cost")
    total = sum_of(counted, "monthly_cost")
    unused = sum_of(counted, "unused_billed_gpus")
    out = []
    if extra > 0:
        share = fmt_value(cost / total, "fraction") if total > 0 else "—"
        out.append(f"Availability (min_replicas, spare_replicas) adds "
                   f"{plural(int(extra), 'replica')} costing "
                   f"{fmt_value(cost, 'USD/month')} a month ({share} of the total), apart from "
                   "the safety factor's head-room.")
    else:
        out.append("Availability (min_replicas) adds no replicas.")
    if unused > 0:
        out.append(f"Billing in whole instances pays for {plural(int(unused), 'GPU')} that serve "
                   "no replica.")
    return " ".join(out)

