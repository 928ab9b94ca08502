"""Charts of the latency-under-load section: P99 TTFT against load, and a day of instances per
scaling policy (drawn like charts.py: axes and marks only, legends in the HTML)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reportgen.i18n import _
from reportgen.render.charts import _figure, _render

# Okabe–Ito colours, one per line, in the order the legend lists them.
LINE_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
                "#000000")
DEMAND_COLOUR = "#999999"


@dataclass(frozen=True)
class LoadCurveSpec:
    """Per row: load as a multiple of its capacity (x) and simulated P99 TTFT in ms (y)."""

    loads: tuple[tuple[float, ...], ...]
    ttft_p99_ms: tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class DaySpec:
    """Minutes of the day: demand in instances' worth (demand ÷ capacity) and, per policy, the
    instances billed."""

    demand_instances: tuple[float, ...]
    instances: tuple[tuple[float, ...], ...]


def _draw_load(spec: LoadCurveSpec) -> Any:
    from matplotlib.ticker import FuncFormatter

    fig, ax = _figure(6.7, 2.0)
    fig.subplots_adjust(left=0.11, right=0.99, bottom=0.2, top=0.97)
    for k, (x, y) in enumerate(zip(spec.loads, spec.ttft_p99_ms, strict=True)):
        ax.plot(x, y, color=LINE_COLOURS[k % len(LINE_COLOURS)], marker="o", markersize=2.5)
    ax.axvline(1.0, color="#D55E00", linewidth=0.9, linestyle=":")
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
    ax.set_xlabel(_("load per instance ÷ its capacity within the targets (1 = the knee)"),
                  labelpad=1)
    ax.set_ylabel(_("P99 TTFT, ms (log)"))
    return fig


def load_curves(spec: LoadCurveSpec) -> str:
    """P99 TTFT of each budgeted row against load, the knee marked at 1."""
    return _render(_draw_load, spec)


def _draw_day(spec: DaySpec) -> Any:
    fig, ax = _figure(6.7, 1.9)
    fig.subplots_adjust(left=0.11, right=0.99, bottom=0.21, top=0.97)
    hours = [m / 60 for m in range(len(spec.demand_instances))]
    ax.fill_between(hours, spec.demand_instances, color=DEMAND_COLOUR, alpha=0.35, linewidth=0)
    for k, series in enumerate(spec.instances):
        ax.step(hours, series, where="post", color=LINE_COLOURS[k % len(LINE_COLOURS)],
                linewidth=1.0)
    ax.set_xlim(0, 24)
    ax.set_xticks(range(0, 25, 3))
    ax.set_ylim(bottom=0)
    ax.set_xlabel(_("hour of the day"), labelpad=1)
    ax.set_ylabel(_("instances"))
    return fig


def day_chart(spec: DaySpec) -> str:
    """Instances billed by each policy over the day, over the demand in instances' worth."""
    return _render(_draw_day, spec)
