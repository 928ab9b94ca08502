"""A scenario's two figures: one GPU's memory at the operating batch, and throughput and time per
token against the batch. Each comes with its HTML legend and caption.

The memory split is the registry's (``weights_gib_per_gpu``, ``kv_gib_per_gpu_at_batch``,
``activation_reserve_gib_per_gpu``, ``free_gib_per_gpu``); the curves are an engine sweep.
"""

from __future__ import annotations

import pandas as pd

from reportgen.render import charts
from reportgen.render.context.common import (
    Row,
    as_float,
    blank,
    fits,
    fmt,
    fmt_value,
    replica,
)
from reportgen.render.context.models import LegendEntry

Figure = tuple[str, tuple[LegendEntry, ...], str]  # chart data URI, legend, caption


# --- memory of one GPU ---------------------------------------------------------------------------


def _memory_legend(row: Row) -> tuple[LegendEntry, ...]:
    colours = charts.COLOURS
    free = as_float(row, "free_gib_per_gpu")
    sequences = "sequence" if as_float(row, "batch") == 1 else "sequences"
    boxes = (
        (f"Weights {fmt(row, 'weights_gib_per_gpu')}", "weights", "weights_gib_per_gpu"),
        (f"KV cache, {fmt(row, 'batch')} {sequences} {fmt(row, 'kv_gib_per_gpu_at_batch')}",
         "kv", "kv_gib_per_gpu_at_batch"),
        (f"Activation reserve {fmt(row, 'activation_reserve_gib_per_gpu')}", "reserve",
         "activation_reserve_gib_per_gpu"),
        (f"Free {fmt_value(max(free, 0.0), 'GiB')}", "free", "free_gib_per_gpu"),
    )
    legend = [
        LegendEntry(label, colours[kind], "box")
        for label, kind, name in boxes
        if as_float(row, name) > 0
    ]
    legend.append(LegendEntry(f"GPU memory {fmt(row, 'gpu_memory_gib')}", colours["ink"], "line"))
    if free < 0:
        legend.append(LegendEntry(f"Over by {fmt_value(-free, 'GiB')}", colours["limit"], "shade"))
    return tuple(legend)


def _memory_caption(row: Row) -> str:
    if not fits(row):
        return (
            f"One GPU of a {replica(row)} replica: {fmt(row, 'weights_gib')} of weights "
            f"(at {row['weight_dtype']}) need {fmt(row, 'weights_gib_per_gpu')} per GPU, and the "
            f"KV budget is {fmt(row, 'kv_budget_gib')}: not one sequence fits."
        )
    return (
        f"One GPU of a {replica(row)} replica. The engine ({row['engine']}) gives the "
        f"instance {fmt(row, 'kv_budget_gib')} for KV cache; each sequence reserves "
        f"{fmt(row, 'kv_gib_per_seq')} ({fmt(row, 'kv_bytes_per_token')} × "
        f"{fmt(row, 'reserved_tokens_per_seq')}), so memory holds "
        f"{fmt(row, 'batch_max_kv')} sequences; the plan runs {fmt(row, 'batch')}. "
        "“Free” includes the engine's own margin and KV space the batch does not use."
    )


def memory_figure(row: Row) -> Figure:
    """Per-GPU memory at the operating batch: chart, legend and caption."""
    parts = (
        ("weights", as_float(row, "weights_gib_per_gpu")),
        ("kv", as_float(row, "kv_gib_per_gpu_at_batch")),
        ("reserve", as_float(row, "activation_reserve_gib_per_gpu")),
        ("free", max(as_float(row, "free_gib_per_gpu"), 0.0)),  # the overrun is drawn apart
    )
    chart = charts.memory_bar(charts.MemorySpec(as_float(row, "gpu_memory_gib"), parts))
    return chart, _memory_legend(row), _memory_caption(row)


# --- throughput and TPOT against batch -----------------------------------------------------------


def _batch_legend(row: Row, top: float, ceiling_text: str | None) -> tuple[LegendEntry, ...]:
    c = charts.COLOURS
    legend = [
        LegendEntry("Output tokens/s per GPU (left)", c["line"], "line"),
        LegendEntry("Time per output token (right)", c["latency"], "line"),
        LegendEntry(f"Plan: B* = {fmt(row, 'batch')}", c["limit"], "marker"),
    ]
    if not blank(row["raw_tpot_slo_ms"]):
        slo = float(row["raw_tpot_slo_ms"])
        legend.append(LegendEntry(f"TPOT target {fmt_value(slo, 'ms')}", c["limit"], "dash"))
    if as_float(row, "batch_max_kv") < top:
        legend.append(LegendEntry(
            f"Beyond memory's {fmt(row, 'batch_max_kv')} sequences", "#c8c8c8", "shade"))
    if as_float(row, "max_batch") < top:
        legend.append(LegendEntry(f"max_batch {fmt(row, 'max_batch')}", "#666666", "dot"))
    if ceiling_text is not None:
        legend.append(LegendEntry(ceiling_text, c["tutorial"], "dash"))
    return tuple(legend)


def batch_figure(
    row: Row, sweep: pd.DataFrame | None
) -> tuple[str | None, tuple[LegendEntry, ...], str]:
    """Throughput per GPU and TPOT along the sweep: chart (None without a sweep), legend and
    caption."""
    if sweep is None:
        return None, (), "No curve: no batch fits in memory."
    tokens = tuple(float(v) for v in sweep["output_tokens_per_s_per_gpu"])
    batches = tuple(float(b) for b in sweep["batch"])
    ceiling = as_float(row, "compute_ceiling_tokens_per_s_per_gpu")
    on_scale = ceiling <= 2.5 * max(tokens)  # drawn only where it does not flatten the curve
    spec = charts.BatchSpec(
        batches=batches,
        tokens_per_s_gpu=tokens,
        tpot_ms=tuple(float(v) for v in sweep["tpot_ms"]),
        chosen=as_float(row, "batch"),
        chosen_tokens=as_float(row, "output_tokens_per_s_per_gpu"),
        chosen_tpot=as_float(row, "tpot_ms"),
        memory_limit=as_float(row, "batch_max_kv"),
        cap=as_float(row, "max_batch"),
        ceiling=ceiling if on_scale else None,
        slo=None if blank(row["raw_tpot_slo_ms"]) else float(row["raw_tpot_slo_ms"]),
    )
    ceiling_text = f"Compute ceiling F·MFU/2P {fmt(row, 'compute_ceiling_tokens_per_s_per_gpu')}"
    caption = (
        "From the roofline, as the batch grows: throughput per GPU rises while each token "
        f"takes longer. The plan runs at B* = {fmt(row, 'batch')}: "
        f"{fmt(row, 'output_tokens_per_s_per_gpu')} at {fmt(row, 'tpot_ms')} per token."
        + ("" if on_scale else f" {ceiling_text} is far above the curve (not drawn).")
    )
    legend = _batch_legend(row, max(batches), ceiling_text if on_scale else None)
    return charts.batch_curves(spec), legend, caption
