"""Buy or rent, per GPU type the plan budgets: owning the servers (capex written down over the
depreciation years, less the residual value, plus power at the wall) against renting them as the
plan does, with the month in which buying has paid for itself.

Only GPU types whose price book has a ``purchase`` price (unit ``node_capex``) and a known server
power are compared; the others say why not. Colocation or hosting is not included unless given
(``OwnershipTerms.hosting_usd_per_kw_month``): the stored sources give no rate.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

import pandas as pd

from reportgen.finance.prices import PriceBook, status
from reportgen.i18n import _
from reportgen.units import CONSTANTS

HOURS_PER_MONTH = float(CONSTANTS["HOURS_PER_MONTH"].value)


@dataclass(frozen=True)
class OwnershipTerms:
    """What owning a server costs besides its price; every default names its source."""

    depreciation_years: float = 4.0  # assumption: a common straight-line life for servers
    residual_fraction: float = 0.0  # assumption: nothing recovered at the end (conservative)
    pue: float = 1.56  # Uptime Institute Global Data Center Survey 2024: average annual PUE
    usd_per_kwh: float = 0.0904  # EIA Electric Power Monthly table 5.6.A, April 2025, industrial,
    # Middle Atlantic census division (9.04 cents/kWh)
    hosting_usd_per_kw_month: float = 0.0  # not known: colocation is not included


# Maximum power of one server, kW, by GPU (only servers the sources give).
SERVER_KW = {"H100-SXM": 10.2}  # NVIDIA DGX H100 (8U), as cited by servnetuk.com (2026-07-05)

COLUMNS: tuple[str, ...] = (
    "gpu", "nodes", "capex", "sku", "price_date", "price_status", "monthly_depreciation",
    "monthly_power",
    "monthly_hosting", "monthly_own", "monthly_rent", "break_even_month", "note",
)


def buy_or_rent(results: pd.DataFrame, book: PriceBook | None,
                terms: OwnershipTerms = OwnershipTerms(),
                as_of: dt.date | None = None) -> pd.DataFrame:
    """One row per GPU type of the budgeted rows; ``price_status``: the purchase quote's age at
    ``as_of``, the plan's date (current, stale or undated, as the price sources say it)."""
    counted = results[results["counted"] == 1]
    out = []
    for gpu, rows in counted.groupby("gpu", sort=True):
        nodes = float(rows["nodes"].sum())
        rent = float(rows["monthly_cost"].sum())
        record: dict[str, object] = {c: math.nan for c in COLUMNS}
        record.update(gpu=gpu, nodes=nodes, monthly_rent=rent, sku="", price_date="",
                      price_status="", note="")
        purchase = None
        if book is not None:
            found = book.rows[(book.rows["gpu"] == gpu) & (book.rows["basis"] == "purchase")]
            purchase = None if found.empty else found.iloc[0]
        if purchase is None:
            record["note"] = _("no purchase price in the price book")
        elif str(gpu) not in SERVER_KW:
            record["note"] = _("no server power figure for this GPU")
        else:
            capex = nodes * float(purchase["price"])
            depreciation = capex * (1 - terms.residual_fraction) / (terms.depreciation_years * 12)
            wall_kw = nodes * SERVER_KW[str(gpu)] * terms.pue
            power = wall_kw * HOURS_PER_MONTH * terms.usd_per_kwh
            hosting = wall_kw * terms.hosting_usd_per_kw_month
            saving = rent - power - hosting
            record.update(
                capex=capex, sku=str(purchase["sku"]), price_date=str(purchase["date"]),
                price_status=status(str(purchase["date"]), as_of or dt.date.today()),
                monthly_depreciation=depreciation, monthly_power=power, monthly_hosting=hosting,
                monthly_own=depreciation + power + hosting,
                break_even_month=(math.ceil(capex / saving) if saving > 0 else math.nan),
                note=(_("hosting not included") if terms.hosting_usd_per_kw_month == 0 else ""))
        out.append(record)
    return pd.DataFrame(out, columns=list(COLUMNS))
