"""A scenario's two figures: one GPU's memory at the operating batch, and throughput and time per
token against the batch. Each comes with its HTML legend and caption.

The memory split is the registry's (``weights_gib_per_gpu``, ``kv_gib_per_gpu_at_batch``,
``activation_reserve_gib_per_gpu``, ``free_gib_per_gpu``); the curves are an engine sweep.
"""

from __future__ import annotations

import pandas as pd

from reportgen.i18n import _, ngettext
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
    batch = as_float(row, "batch")
    boxes = (
        (_("Weights {size}").format(size=fmt(row, "weights_gib_per_gpu")), "weights",
         "weights_gib_per_gpu"),
        (ngettext("KV cache, {n} sequence {size}", "KV cache, {n} sequences {size}",
                  int(batch)).format(
             n=fmt(row, "batch"), size=fmt(row, "kv_gib_per_gpu_at_batch")),
         "kv", "kv_gib_per_gpu_at_batch"),
        (_("Activation reserve {size}").format(size=fmt(row, "activation_reserve_gib_per_gpu")),
         "reserve", "activation_reserve_gib_per_gpu"),
        (_("Free {size}").format(size=fmt_value(max(free, 0.0), "GiB")), "free",
         "free_gib_per_gpu"),
    )
    legend = [
        LegendEntry(label, colours[kind], "box")
        for label, kind, name in boxes
        if as_float(row, name) > 0
    ]
    legend.append(LegendEntry(_("GPU memory {size}").format(size=fmt(row, "gpu_memory_gib")),
                              colours["ink"], "line"))
    if free < 0:
        legend.append(LegendEntry(_("Over by {size}").format(size=fmt_value(-free, "GiB")),
                                  colours["limit"], "shade"))
    return tuple(legend)


def _memory_caption(row: Row) -> str:
    if not fits(row):
        return _(
            "One GPU of a {replica} replica: {weights} of weights (at {dtype}) need {per_gpu} "
            "per GPU, and the KV budget is {budget}: not one sequence fits."
        ).format(replica=replica(row), weights=fmt(row, "weights_gib"), dtype=row["weight_dtype"],
                 per_gpu=fmt(row, "weights_gib_per_gpu"), budget=fmt(row, "kv_budget_gib"))
    caption = _(
        "One GPU of a {replica} replica. The engine ({engine}) gives the instance {budget} for KV "
        "cache; each sequence reserves {per_seq} ({per_token} × {tokens}), so memory holds "
        "{b_mem} sequences; the plan runs {batch}. “Free” includes the engine's own margin and "
        "KV space the batch does not use."
    ).format(replica=replica(row), engine=row["engine"], budget=fmt(row, "kv_budget_gib"),
             per_seq=fmt(row, "kv_gib_per_seq"), per_token=fmt(row, "kv_bytes_per_token"),
             tokens=fmt(row, "kv_held_tokens_per_seq"), b_mem=fmt(row, "batch_max_kv"),
             batch=fmt(row, "batch"))
    if as_float(row, "local_attention_share") > 0:
        caption += ("" if caption.endswith("。") else " ") + _(
            "{share} of the model's layers attend to at most the last {window} and keep no "
            "more, so a sequence of {reserved} holds {tokens} on average over the layers."
        ).format(share=fmt(row, "local_attention_share"),
                 window=fmt(row, "local_attention_window"),
                 reserved=fmt(row, "reserved_tokens_per_seq"),
                 tokens=fmt(row, "kv_held_tokens_per_seq"))
    return caption


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
        LegendEntry(_("Output tokens/s per GPU (left)"), c["line"], "line"),
        LegendEntry(_("Time per output token (right)"), c["latency"], "line"),
        LegendEntry(_("Plan: B* = {batch}").format(batch=fmt(row, "batch")), c["limit"], "marker"),
    ]
    if not blank(row["raw_tpot_slo_ms"]):
        slo = float(row["raw_tpot_slo_ms"])
        legend.append(LegendEntry(_("TPOT target {slo}").format(slo=fmt_value(slo, "ms")),
                                  c["limit"], "dash"))
    if as_float(row, "batch_max_kv") < top:
        b_mem = as_float(row, "batch_max_kv")
        legend.append(LegendEntry(ngettext(
            "Beyond memory's {n} sequence", "Beyond memory's {n} sequences", int(b_mem)).format(
            n=fmt(row, "batch_max_kv")), "#c8c8c8", "shade"))
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
        return None, (), _("No curve: no batch fits in memory.")
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
    ceiling_text = _("Compute ceiling F·MFU/2P {ceiling}").format(
        ceiling=fmt(row, "compute_ceiling_tokens_per_s_per_gpu"))
    at = dict(batch=fmt(row, "batch"), tokens=fmt(row, "output_tokens_per_s_per_gpu"),
              tpot=fmt(row, "tpot_ms"))
    caption = _(
        "From the roofline, as the batch grows: throughput per GPU rises while each token takes "
        "longer. The plan runs at B* = {batch}: {tokens} at {tpot} per token."
    ).format(**at) if on_scale else _(
        "From the roofline, as the batch grows: throughput per GPU rises while each token takes "
        "longer. The plan runs at B* = {batch}: {tokens} at {tpot} per token. {ceiling} is far "
        "above the curve (not drawn)."
    ).format(ceiling=ceiling_text, **at)
    legend = _batch_legend(row, max(batches), ceiling_text if on_scale else None)
    return charts.batch_curves(spec), legend, caption
