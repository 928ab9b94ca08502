"""Buy or rent: the H100 servers' capex, depreciation, power and break-even from the price book's
purchase quote and the ownership terms, by hand; GPUs without a purchase price say so."""

from __future__ import annotations

import dataclasses
import math

import pytest

from reportgen.catalog import load_catalogs, resolve_gpu
from reportgen.finance.buy_rent import OwnershipTerms, buy_or_rent
from reportgen.finance.prices import shipped_price_book
from tests.helpers import build_plan
from tests.scenarios import base_row

CATALOGS = load_catalogs()
BOOK = shipped_price_book(lambda name: resolve_gpu(CATALOGS, name))


def test_h100_servers_bought_against_rented_by_hand() -> None:
    """Thinkmate's 317,000 USD quote (reportgen/data/prices.csv), 4 years, no residual, 10.2 kW
    per server × PUE 1.56 × 0.0904 USD/kWh × 730 h, against the plan's p5 rent."""
    plan = build_plan([base_row(peak_qps=20, tp=8), base_row(scenario="b", gpu="H200",
                                                             peak_qps=5, tp=4)])
    table = buy_or_rent(plan.results, BOOK).set_index("gpu")
    h100 = table.loc["H100-SXM"]
    nodes = h100["nodes"]
    assert h100["capex"] == pytest.approx(nodes * 317_000)
    assert h100["monthly_depreciation"] == pytest.approx(nodes * 317_000 / 48)
    power = nodes * 10.2 * 1.56 * 730 * 0.0904
    assert h100["monthly_power"] == pytest.approx(power)
    rent = float(plan.results.loc[plan.results["gpu"] == "H100-SXM", "monthly_cost"].sum())
    assert h100["break_even_month"] == math.ceil(nodes * 317_000 / (rent - power))
    assert table.loc["H200-SXM", "note"] == "no purchase price in the price book"


def test_hosting_and_residual_change_the_monthly_cost() -> None:
    plan = build_plan([base_row(peak_qps=20, tp=8)])
    plain = buy_or_rent(plan.results, BOOK).iloc[0]
    terms = OwnershipTerms(residual_fraction=0.25, hosting_usd_per_kw_month=150.0)
    hosted = buy_or_rent(plan.results, BOOK, terms).iloc[0]
    assert hosted["monthly_depreciation"] == pytest.approx(0.75 * plain["monthly_depreciation"])
    assert hosted["monthly_hosting"] == pytest.approx(plain["nodes"] * 10.2 * 1.56 * 150.0)
    assert hosted["note"] == ""


def test_the_purchase_quote_says_how_old_it_is() -> None:
    """The H100 quote is dated 2024-08: current for a plan of 2025-06, stale (more than 12
    months old, as the price sources say it) for one of 2026-12, whose PDF flags it."""
    import datetime as dt

    from reportgen.render import pdf

    plan = build_plan([base_row(peak_qps=20, tp=8)])
    quote = buy_or_rent(plan.results, BOOK, as_of=dt.date(2025, 6, 1)).iloc[0]
    assert (quote["price_date"], quote["price_status"]) == ("2024-08", "current")
    assert buy_or_rent(plan.results, BOOK, as_of=dt.date(2026, 12, 5)).iloc[0][
        "price_status"] == "stale"
    late = dataclasses.replace(plan, prices=BOOK, provenance=dataclasses.replace(
        plan.provenance, generated=dt.date(2026, 12, 5)))
    flag = "stale: quoted more than 12 months before this plan"
    html = pdf.render_html(late)
    buy_table = html[html.index('class="data outlook-buy"'):]
    assert flag in buy_table[:buy_table.index("</table>")]
