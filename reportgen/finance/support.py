"""The cloud support plan: a monthly charge on the plan's spend with AWS, in bands like a tax
bracket (the Business Support plan by default: Assumptions' SUPPORT_* cells), switched on or off
by INCLUDE_SUPPORT. Prices from other providers carry no support line: their support is not
priced (the summary says so).

One definition: :func:`support_monthly_cost` computes it, :func:`support_formula` writes the
same arithmetic as a workbook formula over the Assumptions' named cells."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from reportgen.units import CONSTANTS

SUPPORTED_PROVIDER = "aws"  # the provider whose support plan the SUPPORT_* cells price
BANDS = 3  # SUPPORT_BAND_1..3 bound the bands; SUPPORT_RATE_4 applies above the last


def _value(name: str, constants: Mapping[str, float | str] | None) -> float:
    if constants and name in constants:
        return float(constants[name])
    return float(CONSTANTS[name].value)


def support_monthly_cost(spend: float,
                         constants: Mapping[str, float | str] | None = None) -> float:
    """Support plan per month (USD/month) on ``spend`` USD/month of usage with the provider:
    each band's rate on the spend inside the band, at least SUPPORT_MINIMUM when there is any
    spend, times INCLUDE_SUPPORT."""
    if spend <= 0:
        return 0.0
    charge, lower = 0.0, 0.0
    for k in range(1, BANDS + 1):
        upper = _value(f"SUPPORT_BAND_{k}", constants)
        charge += _value(f"SUPPORT_RATE_{k}", constants) * max(0.0, min(spend, upper) - lower)
        lower = upper
    charge += _value(f"SUPPORT_RATE_{BANDS + 1}", constants) * max(0.0, spend - lower)
    charge = max(_value("SUPPORT_MINIMUM", constants), charge)
    return _value("INCLUDE_SUPPORT", constants) * charge


def support_formula(spend: str) -> str:
    """:func:`support_monthly_cost` as a workbook formula (no leading "=") of the cell or
    expression ``spend``."""
    terms = []
    lower = "0"
    for k in range(1, BANDS + 1):
        upper = f"SUPPORT_BAND_{k}"
        terms.append(f"SUPPORT_RATE_{k}*MAX(0,MIN({spend},{upper})-{lower})")
        lower = upper
    terms.append(f"SUPPORT_RATE_{BANDS + 1}*MAX(0,{spend}-{lower})")
    return (f"IF({spend}>0,INCLUDE_SUPPORT*MAX(SUPPORT_MINIMUM,{'+'.join(terms)}),0)")


def supported_spend(results: pd.DataFrame, column: str = "monthly_cost") -> float:
    """The budgeted rows' ``column`` (USD/month) priced with SUPPORTED_PROVIDER."""
    counted = results["counted"].astype(float) == 1
    with_provider = results["price_provider"].astype(str).str.lower() == SUPPORTED_PROVIDER
    return float(results.loc[counted & with_provider, column].astype(float).sum())


@dataclass(frozen=True)
class Support:
    """The support plan of a plan's budgeted rows (USD/month), at the plan's GPU count and at
    the low and high end of its error band."""

    spend: float
    monthly_cost: float
    monthly_cost_low: float
    monthly_cost_high: float
    unpriced_providers: tuple[str, ...]  # budgeted providers whose support is not priced


def support(results: pd.DataFrame) -> Support:
    """The plan's support plan (see the module's docstring)."""
    counted = results[results["counted"].astype(float) == 1]
    providers = {str(p).lower() for p in counted["price_provider"]}
    spend = supported_spend(results)
    return Support(
        spend=spend,
        monthly_cost=support_monthly_cost(spend),
        monthly_cost_low=support_monthly_cost(supported_spend(results, "monthly_cost_low")),
        monthly_cost_high=support_monthly_cost(supported_spend(results, "monthly_cost_high")),
        unpriced_providers=tuple(sorted(providers - {SUPPORTED_PROVIDER, ""})),
    )
