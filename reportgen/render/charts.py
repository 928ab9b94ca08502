"""The report's charts: matplotlib figures as PNG ``data:`` URIs for ``<img>`` tags.

matplotlib is imported lazily (the CLI's other commands never pay for it) and used through
``Figure`` objects with the Agg backend, never pyplot's global state. Charts are raster images
at print resolution (:data:`PRINT_DPI`): WeasyPrint draws an SVG chart path by path each time
the PDF is written, which took most of a report's PDF time (30 charts: 22 s as SVG, 0.3 s as
PNG on the same machine). The PNG bytes are pinned (no software or date metadata), so the same
plan gives the same PDF. Charts carry no
user text and no legend: scenario names, legends and formatted numbers are in the HTML around
them (built by the context package), which keeps them sharp, searchable and cheap to draw.
"""

from __future__ import annotations

import base64
import io
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, cast

from reportgen import forked, i18n
from reportgen.i18n import _, usd

PRINT_DPI = 200  # a 6.7-inch chart is 1,340 pixels wide: sharp in print and on screen
RC: dict[str, Any] = {
    # DejaVu Sans draws Latin text; WenQuanYi Micro Hei (fonts-wqy-microhei) the glyphs it
    # lacks, such as the axis labels of a Chinese build.
    "font.family": ["DejaVu Sans", "WenQuanYi Micro Hei"],
    "font.size": 7.5,
    "axes.titlesize": 8,
    "axes.labelsize": 7.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e3e3e3",
    "grid.linewidth": 0.6,
    "legend.frameon": False,
    "legend.fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "lines.linewidth": 1.6,
    "path.simplify": True,
}

# Okabe–Ito colours: distinguishable with the common colour-vision deficiencies and in greyscale.
COLOURS = {
    "weights": "#0072B2",
    "kv": "#E69F00",
    "reserve": "#CC79A7",
    "free": "#D9D9D9",
    "line": "#0072B2",
    "latency": "#009E73",
    "limit": "#D55E00",
    "tutorial": "#999999",
    "ink": "#222222",
}


@dataclass(frozen=True)
class MemorySpec:
    """Memory of one GPU at the operating batch: (colour key, GiB) parts and the capacity."""

    capacity_gib: float
    parts: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class BatchSpec:
    """Throughput and time per output token against batch, with the limits marked."""

    batches: tuple[float, ...]
    tokens_per_s_gpu: tuple[float, ...]
    tpot_ms: tuple[float, ...]
    chosen: float
    chosen_tokens: float
    chosen_tpot: float
    memory_limit: float
    cap: float
    ceiling: float | None  # None: off scale, not drawn
    slo: float | None


@dataclass(frozen=True)
class GainSpec:
    """Batching gain: the roofline's against the tutorial's 2B/(B+1)."""

    batches: tuple[float, ...]
    roofline: tuple[float, ...]
    tutorial: tuple[float, ...]
    chosen: float


# Legends and labels live in the HTML around a chart (sharper, searchable, and much cheaper
# for WeasyPrint than glyph paths), so a chart holds only its axes and marks.


def _figure(width_in: float, height_in: float, ncols: int = 1) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width_in, height_in), dpi=100)
    axes = fig.subplots(1, ncols)
    return fig, axes


def _data_uri(fig: Any) -> str:
    """The chart as a PNG data URI, RGB without metadata: the figure is opaque, and WeasyPrint
    writes an image with an alpha channel as two (a chart and its mask). Compressed lightly:
    WeasyPrint compresses the pixels again when it writes them into the PDF."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    canvas: Any = FigureCanvasAgg(fig)
    fig.set_dpi(PRINT_DPI)
    canvas.draw()
    buffer = io.BytesIO()
    pixels = Image.fromarray(np.asarray(canvas.buffer_rgba())[..., :3])
    pixels.save(buffer, format="png", compress_level=1)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _draw_now(tag: str, draw: Any, *args: Any) -> str:
    """The chart ``draw(*args)`` as a data URI, its words in language ``tag``."""
    import matplotlib

    with i18n.language(tag), matplotlib.rc_context(cast(Any, RC)):
        return _data_uri(draw(*args))


class ChartBatch:
    """Charts drawn by worker processes while the report around them is assembled: each chart
    asked for is sent to a worker at once and stands in the HTML as a placeholder
    (``chart-pending-<random>-<k>``: no text a person types can take its place) until
    :meth:`fill` puts the drawn image in its place."""

    def __init__(self, pool: Any) -> None:
        self._pool = pool
        self._futures: list[Any] = []
        self._prefix = f"chart-pending-{os.urandom(8).hex()}-"

    def submit(self, draw: Any, *args: Any) -> str:
        self._futures.append(self._pool.submit(_draw_now, i18n.current(), draw, *args))
        return f"{self._prefix}{len(self._futures) - 1}"

    def fill(self, html: str) -> str:
        """``html`` with every placeholder replaced by its chart (waiting for the workers)."""
        drawn = [future.result() for future in self._futures]
        pending = re.compile(re.escape(self._prefix) + r"(\d+)")
        return pending.sub(lambda match: drawn[int(match.group(1))], html)


_batch: ContextVar[ChartBatch | None] = ContextVar("reportgen_chart_batch", default=None)


def worker_count(min_workers: int = 2) -> int:
    """The processes :func:`drawn_in_parallel` draws charts with: one per CPU core this process
    may use, or 0 (charts drawn in place) with fewer than ``min_workers`` cores or no fork."""
    return forked.worker_count(min_workers)


@contextmanager
def drawn_in_parallel(min_workers: int = 2) -> Iterator[ChartBatch | None]:
    """Within the block, charts are drawn by worker processes (:func:`worker_count`, forked so
    the imports are shared) while the caller goes on; the caller puts them in its HTML with
    :meth:`ChartBatch.fill`. Without workers the batch is None and charts are drawn in place,
    as outside the block."""
    workers = worker_count(min_workers)
    if not workers:
        yield None
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # imported once, before the fork: the workers share it instead of each importing it
    import matplotlib.backends.backend_agg
    import matplotlib.figure  # noqa: F401

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        token = _batch.set(ChartBatch(pool))
        try:
            yield _batch.get()
        finally:
            _batch.reset(token)


def _render(draw: Any, *args: Any) -> str:
    batch = _batch.get()
    if batch is not None:
        return batch.submit(draw, *args)
    return _draw_now(i18n.current(), draw, *args)


def _log2_axis(ax: Any, top: float) -> None:
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    ax.set_xscale("log", base=2)
    ticks = [4.0**k for k in range(8) if 4.0**k <= top]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
    ax.set_xlim(1, top)


def _y_axis(ax: Any) -> None:
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(nbins=4, min_n_ticks=3))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}"))
    ax.set_ylim(bottom=0)


def _draw_memory(spec: MemorySpec) -> Any:
    from matplotlib.ticker import MaxNLocator

    fig, ax = _figure(6.7, 0.95)
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.42, top=0.97)
    ax.set_axisbelow(True)
    left = 0.0
    for kind, gib in spec.parts:
        if gib <= 0:
            continue
        ax.barh([0], [gib], left=[left], height=0.7, color=COLOURS[kind], edgecolor="white",
                linewidth=0.8)
        left += gib
    top = max(spec.capacity_gib, left) * 1.02
    if left > spec.capacity_gib:
        ax.axvspan(spec.capacity_gib, top, color=COLOURS["limit"], alpha=0.14, linewidth=0)
    ax.axvline(spec.capacity_gib, color=COLOURS["ink"], linewidth=1.6)
    ax.set_xlim(0, top)
    ax.set_ylim(-0.5, 0.5)
    ax.set_yticks([])
    ax.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=True))
    ax.set_xlabel(_("GiB per GPU"), labelpad=1)
    ax.grid(axis="y", visible=False)
    ax.spines["left"].set_visible(False)
    return fig


def memory_bar(spec: MemorySpec) -> str:
    """Weights, KV cache, activation reserve and free memory of one GPU, as one stacked bar."""
    return _render(_draw_memory, spec)


def _mark_limits(ax: Any, spec: BatchSpec, top: float) -> None:
    if spec.memory_limit < top:
        ax.axvspan(max(spec.memory_limit, 1.0), top, color="#000000", alpha=0.08, linewidth=0)
    if spec.cap < top:
        ax.axvline(spec.cap, color="#666666", linewidth=0.9, linestyle=":")


def _draw_batch(spec: BatchSpec) -> Any:
    fig, (left, right) = _figure(6.7, 2.2, ncols=2)
    fig.subplots_adjust(left=0.085, right=0.99, bottom=0.19, top=0.97, wspace=0.24)
    top = max(spec.batches) * 1.05
    for ax in (left, right):
        _log2_axis(ax, top)
        _mark_limits(ax, spec, top)
        ax.axvline(spec.chosen, color=COLOURS["limit"], linewidth=0.7, alpha=0.6)
    left.plot(spec.batches, spec.tokens_per_s_gpu, color=COLOURS["line"])
    left.plot([spec.chosen], [spec.chosen_tokens], "o", color=COLOURS["limit"], markersize=5)
    if spec.ceiling is not None:
        left.axhline(spec.ceiling, color=COLOURS["tutorial"], linestyle="--", linewidth=1.0)
    _y_axis(left)
    left.set_ylabel(_("output tokens/s per GPU"))

    right.plot(spec.batches, spec.tpot_ms, color=COLOURS["latency"])
    right.plot([spec.chosen], [spec.chosen_tpot], "o", color=COLOURS["limit"], markersize=5)
    if spec.slo is not None:
        right.axhline(spec.slo, color=COLOURS["limit"], linestyle="--", linewidth=1.1)
    _y_axis(right)
    right.set_ylabel(_("ms per output token"))
    fig.supxlabel(_("batch: sequences per instance (log scale)"), fontsize=7.5, y=0.0,
                  va="bottom")
    return fig


def batch_curves(spec: BatchSpec) -> str:
    """Throughput per GPU and TPOT against batch, the TPOT target and the chosen batch."""
    return _render(_draw_batch, spec)


def _draw_gain(spec: GainSpec) -> Any:
    fig, ax = _figure(6.7, 1.9)
    fig.subplots_adjust(left=0.085, right=0.99, bottom=0.2, top=0.97)
    top = max(spec.batches) * 1.05
    _log2_axis(ax, top)
    ax.plot(spec.batches, spec.roofline, color=COLOURS["line"])
    ax.plot(spec.batches, spec.tutorial, color=COLOURS["tutorial"], linestyle="--")
    ax.axvline(spec.chosen, color=COLOURS["limit"], linewidth=0.9, linestyle=":")
    _y_axis(ax)
    ax.set_xlabel(_("batch: sequences per instance (log scale)"), labelpad=1)
    ax.set_ylabel(_("× throughput at batch 1"))
    return fig


def gain_curves(spec: GainSpec) -> str:
    """The roofline's batching gain beside the tutorial's 2B/(B+1)."""
    return _render(_draw_gain, spec)


@dataclass(frozen=True)
class AgreementSpec:
    """Measured against predicted, one panel per figure: (measured, predicted with your
    calibration, predicted with the shipped row) per run, and each panel's axis label."""

    panels: tuple[tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]], ...]
    labels: tuple[str, ...]


def _log_ticks(ax: Any, low: float, high: float) -> None:
    """1-2-5 ticks on a narrow log range, decades on a wide one; plain numbers."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

    subs = (1.0, 2.0, 5.0) if high / low < 30 else (1.0,)
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(LogLocator(base=10, subs=subs))
        axis.set_minor_locator(NullLocator())
        axis.set_minor_formatter(NullFormatter())
        axis.set_major_formatter(FuncFormatter(
            lambda v, _pos: f"{v:,.0f}" if v >= 1 else f"{v:g}"))


def _draw_agreement(spec: AgreementSpec) -> Any:
    fig, axes = _figure(6.7, 2.3, ncols=len(spec.panels))
    axes = list(axes) if len(spec.panels) > 1 else [axes]
    fig.subplots_adjust(left=0.09, right=0.99, bottom=0.19, top=0.97, wspace=0.42)
    for ax, (measured, yours, shipped), label in zip(axes, spec.panels, spec.labels,
                                                     strict=True):
        values = [v for v in (*measured, *yours, *shipped) if v > 0]
        low, high = min(values) / 1.25, max(values) * 1.25
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.plot([low, high], [low, high], color=COLOURS["tutorial"], linestyle="--",
                linewidth=0.9)
        ax.plot(measured, shipped, "o", markerfacecolor="none", color=COLOURS["tutorial"],
                markersize=4.2, markeredgewidth=0.9)
        ax.plot(measured, yours, "o", color=COLOURS["line"], markersize=3.6)
        ax.set_xlim(low, high)
        ax.set_ylim(low, high)
        _log_ticks(ax, low, high)
        ax.set_xlabel(_("measured {label}").format(label=label), labelpad=1)
        ax.set_ylabel(_("predicted {label}").format(label=label), labelpad=1)
    return fig


def agreement(spec: AgreementSpec) -> str:
    """Measured against predicted per run: your calibration beside the shipped row."""
    return _render(_draw_agreement, spec)


@dataclass(frozen=True)
class CostSpec:
    """Monthly cost of the cheapest configuration on each GPU at each replica shape (tensor
    parallelism, and pipeline stages where there are any; NaN: nothing that meets the
    targets); the chosen one marked."""

    gpus: tuple[str, ...]
    shapes: tuple[str, ...]  # legend labels, e.g. "TP 4", "TP 8 × PP 2"
    costs: tuple[tuple[float, ...], ...]  # costs[g][s]
    chosen: tuple[int, int] | None  # (gpu index, shape index)
    clip: float | None = None  # the axis stops here; taller bars are cut and marked ▲


TP_COLOURS = ("#56B4E9", "#0072B2", "#009E73", "#E69F00", "#CC79A7", "#44AA99", "#882255",
              "#F0E442")


def _draw_costs(spec: CostSpec) -> Any:
    import math

    fig, ax = _figure(6.7, 1.6)
    fig.subplots_adjust(left=0.11, right=0.99, bottom=0.17, top=0.95)
    n = len(spec.shapes)
    width = 0.8 / max(n, 1)
    top = spec.clip if spec.clip is not None else math.inf
    for t in range(n):
        xs = [g + (t - (n - 1) / 2) * width for g in range(len(spec.gpus))]
        heights = [spec.costs[g][t] for g in range(len(spec.gpus))]
        shown = [(x, h) for x, h in zip(xs, heights, strict=True) if not math.isnan(h)]
        if shown:
            ax.bar([x for x, _h in shown], [min(h, top) for _x, h in shown], width=width * 0.92,
                   color=TP_COLOURS[t % len(TP_COLOURS)], linewidth=0)
            cut = [x for x, h in shown if h > top]
            if cut:  # bars taller than the axis: cut, and marked as cut
                ax.plot(cut, [top] * len(cut), "^", color=COLOURS["ink"], markersize=4)
    if spec.chosen is not None:
        g, t = spec.chosen
        ax.plot([g + (t - (n - 1) / 2) * width], [spec.costs[g][t]], "v",
                color=COLOURS["limit"], markersize=6)
    ax.set_xticks(range(len(spec.gpus)))
    ax.set_xticklabels(spec.gpus)
    ax.grid(axis="x", visible=False)
    _y_axis(ax)
    if spec.clip is not None:
        ax.set_ylim(0, spec.clip * 1.04)
    ax.set_ylabel(_("USD / month"))
    return fig


def cost_by_gpu_and_tp(spec: CostSpec) -> str:
    """Grouped bars: the cheapest monthly cost on each GPU (groups) at each replica shape
    (bars), the chosen configuration marked."""
    return _render(_draw_costs, spec)


@dataclass(frozen=True)
class WaterfallSpec:
    """A bridge from a starting total through signed steps to an end total (same unit)."""

    labels: tuple[str, ...]  # start, each step, end (component names: not user text)
    values: tuple[float, ...]  # start total, each step's change, end total


def _draw_waterfall(spec: WaterfallSpec) -> Any:
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    fig, ax = _figure(6.7, 2.1)
    fig.subplots_adjust(left=0.1, right=0.99, bottom=0.22, top=0.97)
    running = highest = spec.values[0]
    last = len(spec.values) - 1
    for k, value in enumerate(spec.values):
        if k in (0, last):
            ax.bar(k, value, width=0.62, color=COLOURS["line"])
            continue
        bottom = min(running, running + value)
        colour = COLOURS["limit"] if value > 0 else COLOURS["latency"]
        ax.bar(k, abs(value), bottom=bottom, width=0.62, color=colour)
        ax.plot([k - 1 + 0.31, k - 0.31], [running, running], color="#999999", linewidth=0.6)
        running += value
        highest = max(highest, running)
    ax.plot([last - 1 + 0.31, last - 0.31], [running, running], color="#999999", linewidth=0.6)
    ax.set_xticks(range(len(spec.labels)), spec.labels)
    top = max(highest, spec.values[-1]) * 1.08
    ax.set_ylim(0, top)
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{usd()}{v:,.0f}"))
    ax.grid(axis="x", visible=False)
    return fig


def waterfall(spec: WaterfallSpec) -> str:
    """Start total, each step as a floating bar (increase vermillion, decrease green), end."""
    return _render(_draw_waterfall, spec)
