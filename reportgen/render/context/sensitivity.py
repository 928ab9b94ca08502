"""The executive summary's tornado: the budgeted monthly cost at each input's low and high end,
with bar widths for the template (a share of the widest swing either side of the plan)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from reportgen.finance.sensitivity import tornado
from reportgen.i18n import _
from reportgen.plan import Plan
from reportgen.render.context.models import Num


@dataclass(frozen=True)
class TornadoBar:
    """One input of the tornado."""

    factor: str  # the English key (ask.PLAIN_FACTORS names it for the reader)
    low_label: str
    high_label: str
    low_cost: Num
    high_cost: Num
    low_width: float  # percent of half the bar area, left of the plan's cost
    high_width: float  # right of it


@dataclass(frozen=True)
class Tornado:
    """The tornado and the plan's cost it swings around."""

    base: Num
    bars: tuple[TornadoBar, ...]


def _width(cost: float, base: float, widest: float) -> float:
    if not math.isfinite(cost) or widest <= 0:
        return 0.0
    return round(100 * abs(cost - base) / widest, 1)


def sensitivity(plan: Plan) -> Tornado:
    """The tornado of the plan's budgeted monthly cost."""
    frame = tornado(plan)
    base = float(plan.results.loc[plan.results["counted"] == 1, "monthly_cost"].sum())
    deviations = [abs(v - base) for v in (*frame["low_cost"], *frame["high_cost"])
                  if math.isfinite(v)]
    widest = max(deviations, default=0.0)

    def money(value: float) -> Num:
        return Num(value if math.isfinite(value) else None, "USD/month")

    # the labels are N_()-marked in finance.sensitivity (or plain numbers, shown as they are)
    bars = tuple(TornadoBar(
        str(r["factor"]), _(str(r["low_label"])), _(str(r["high_label"])), money(r["low_cost"]),
        money(r["high_cost"]), _width(r["low_cost"], base, widest),
        _width(r["high_cost"], base, widest)) for _row, r in frame.iterrows())
    return Tornado(Num(base, "USD/month"), bars)
