"""The tutorial comparison: each tutorial-method row beside the roofline row for the same
workload, the numbers side by side, and why they differ.

Both batching-gain curves come from the engine sweep: the roofline's is throughput(B) ÷
throughput(1) along it, the tutorial's is the registry quantity ``tutorial_batching_gain``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen.i18n import N_, _
from reportgen.render import charts
from reportgen.render.context.common import (
    Row,
    as_float,
    constant,
    fits,
    fmt,
    fmt_value,
    is_tutorial,
    num,
    quote,
)
from reportgen.render.context.models import CompareRow, LegendEntry, Num, TutorialComparison

_MATCH_FIELDS = ("model", "gpu", "peak_qps", "avg_prompt_tokens", "avg_output_tokens")
# (label, the tutorial row's quantity, the roofline row's quantity)
_PAIRS: tuple[tuple[str, str, str], ...] = (
    (N_("Parameters"), "params_b", "params_b"),
    (N_("KV heads per layer"), "kv_heads", "kv_heads"),
    (N_("KV cache per token"), "kv_bytes_per_token", "kv_bytes_per_token"),
    (N_("Tensor parallelism (GPUs per instance)"), "tp", "tp"),
    (N_("Weights per GPU"), "weights_gib_per_gpu", "weights_gib_per_gpu"),
    (N_("GPU memory"), "gpu_memory_gib", "gpu_memory_gib"),
    (N_("KV budget per instance"), "kv_budget_gib", "kv_budget_gib"),
    (N_("Sequences memory holds (B_mem)"), "batch_max_kv", "batch_max_kv"),
    (N_("Operating batch"), "batch", "batch"),
    (N_("MFU (decode)"), "mfu_decode", "mfu_decode"),
    (N_("Compute ceiling F·MFU/2P per GPU"), "compute_ceiling_tokens_per_s_per_gpu",
     "compute_ceiling_tokens_per_s_per_gpu"),
    (N_("Requests/s one instance serves"), "tutorial_instance_rps", "instance_rps"),
    (N_("Instances"), "instances", "instances"),
    (N_("GPUs"), "gpus", "gpus"),
    (N_("Monthly cost"), "monthly_cost", "monthly_cost"),
)


def matches(rows: Sequence[Row]) -> dict[int, int]:
    """Each tutorial row → the first roofline row with the same model, GPU, load and lengths."""
    out: dict[int, int] = {}
    for i, t in enumerate(rows):
        if not is_tutorial(t):
            continue
        for j, r in enumerate(rows):
            if not is_tutorial(r) and all(t[f] == r[f] for f in _MATCH_FIELDS):
                out[i] = j
                break
    return out


def _rows(t: Row, r: Row | None) -> tuple[CompareRow, ...]:
    dash = Num(None, "text")
    return tuple(
        CompareRow(_(label), num(t, tutorial), num(r, roofline) if r is not None else dash)
        for label, tutorial, roofline in _PAIRS
    )


# --- why they differ -----------------------------------------------------------------------------


def _kv_heads_reason(t: Row, r: Row | None) -> list[str]:
    if r is None:
        return [
            _("KV heads: the tutorial calls a 70B model “80 layers, 64 KV heads”; Llama 70B "
              "models have 8 KV heads (grouped-query attention), eight times less KV cache.")
        ]
    if as_float(t, "kv_heads") == as_float(r, "kv_heads"):
        return []
    return [
        _("KV heads: the tutorial uses {heads} KV heads; {model} has {model_heads} (grouped-query "
          "attention), so its KV cache per token is {per_token} instead of {model_per_token}."
          ).format(heads=fmt(t, "kv_heads"), model=r["model"], model_heads=fmt(r, "kv_heads"),
                   per_token=fmt(t, "kv_bytes_per_token"),
                   model_per_token=fmt(r, "kv_bytes_per_token"))
    ]


def _weights_reason(t: Row, r: Row | None) -> list[str]:
    if str(t["bottleneck"]) != "weights_do_not_fit":
        return []
    values = dict(weights=fmt(t, "weights_gib"), memory=fmt(t, "gpu_memory_gib"),
                  budget=fmt(t, "kv_budget_gib"))
    if r is None:
        return [
            _("Weights that do not fit: {weights} of weights on one {memory} GPU leave a KV "
              "budget of {budget}; the tutorial has no tensor parallelism and prints negative "
              "batch sizes.").format(**values)
        ]
    return [
        _("Weights that do not fit: {weights} of weights on one {memory} GPU leave a KV budget "
          "of {budget}; the tutorial has no tensor parallelism and prints negative batch sizes. "
          "reportgen shards them over {tp} GPUs per instance.").format(
            tp=fmt(r, "tp", with_unit=False), **values)
    ]


_UNITS_REASON = N_(
    "Units: the tutorial mixes decimal GB (10⁹ bytes) with GiB (2³⁰ bytes); every memory "
    "figure here is GiB, as the driver reports it (an “80 GB” H100 holds 80 GiB)."
)
_DIMENSIONS_REASON = N_(
    "Mixed dimensions: its single-instance capacity min(compute ÷ tokens per request, free "
    "memory ÷ KV per token) compares requests per second with a token count; here "
    "requests in flight, tokens per second and bytes stay apart and meet only through "
    "Little's Law and the batch."
)


def _decode_reason(t: Row, r: Row | None) -> str:
    if r is not None and fits(r) and r["decode_regime"] == "compute":
        return _(
            "Decode is compute-bound only at large batches: at {batch} sequences it is, as the "
            "tutorial assumes, yet its 2P-FLOPs ceiling of {ceiling} is not reached, because the "
            "same GPUs run every request's prefill ({share} of their time) and attention over "
            "the KV cache; the roofline gives {roofline}."
        ).format(batch=fmt(r, "batch"), ceiling=fmt(t, "compute_ceiling_tokens_per_s_per_gpu"),
                 share=fmt(r, "prefill_time_share"),
                 roofline=fmt(r, "output_tokens_per_s_per_gpu"))
    if r is not None and fits(r):
        return _(
            "Decode is bandwidth-bound: at {batch} sequences each decode step reads {weights} of "
            "weights plus the KV cache, so the 2P-FLOPs ceiling of {ceiling} is not what limits "
            "it; the roofline gives {roofline}."
        ).format(batch=fmt(r, "batch"), weights=fmt(r, "weights_read_gib_per_step"),
                 ceiling=fmt(t, "compute_ceiling_tokens_per_s_per_gpu"),
                 roofline=fmt(r, "output_tokens_per_s_per_gpu"))
    return _(
        "Decode is bandwidth-bound at small and medium batches: every step reads all "
        "weights plus the KV cache; FLOPs ≈ 2P per token bounds only prefill and large "
        "batches."
    )


def _safety_reason(t: Row, r: Row | None) -> str:
    values = dict(headroom=constant("TUTORIAL_KV_HEADROOM"), safety=fmt(t, "safety_factor"))
    if r is None:
        return _(
            "Safety applied twice: the tutorial runs at {headroom} of the memory-limited batch "
            "and then multiplies instances by {safety}; reportgen keeps only the serving "
            "engine's own memory margin, applies its safety factor once, and shows each."
        ).format(**values)
    return _(
        "Safety applied twice: the tutorial runs at {headroom} of the memory-limited batch and "
        "then multiplies instances by {safety}; reportgen keeps only the serving engine's own "
        "memory margin, applies its safety factor ({own_safety}) once, and shows each."
    ).format(own_safety=fmt(r, "safety_factor"), **values)


# --- the batching-gain figure --------------------------------------------------------------------


@dataclass(frozen=True)
class _Gain:
    chart: str | None
    legend: tuple[LegendEntry, ...]
    caption: str
    reason: str


def _gain(r: Row, sweep: pd.DataFrame) -> _Gain:
    """Both gains along the roofline row's sweep (which includes B*)."""
    batches = tuple(float(b) for b in sweep["batch"])
    tokens = sweep["output_tokens_per_s_per_gpu"].to_numpy(dtype=float)
    chosen = as_float(r, "batch")
    at_chosen = float(np.interp(chosen, np.asarray(batches), tokens) / tokens[0])
    chart = charts.gain_curves(
        charts.GainSpec(
            batches=batches,
            roofline=tuple(float(v) for v in tokens / tokens[0]),
            tutorial=tuple(float(v) for v in sweep["tutorial_batching_gain"]),
            chosen=chosen,
        )
    )
    legend = (
        LegendEntry(_("Roofline (this plan)"), charts.COLOURS["line"], "line"),
        LegendEntry(_("Tutorial: 2B/(B+1)"), charts.COLOURS["tutorial"], "dash"),
        LegendEntry(f"B* = {fmt(r, 'batch')}", charts.COLOURS["limit"], "dot"),
    )
    caption = _(
        "Throughput relative to one sequence. The tutorial's 2B/(B+1) never reaches 2×; on the "
        "roofline, throughput at B* = {batch} is {gain} that at B = 1, because a bandwidth-bound "
        "step costs almost the same for one sequence as for many."
    ).format(batch=fmt(r, "batch"), gain=fmt_value(at_chosen, "×"))
    reason = _(
        "Batching gain: the tutorial's 2B/(B+1) caps the gain at 2×; the roofline gives {gain} at "
        "B* = {batch} (chart below)."
    ).format(gain=fmt_value(at_chosen, "×"), batch=fmt(r, "batch"))
    return _Gain(chart, legend, caption, reason)


def _no_gain() -> _Gain:
    """No chart (no roofline match or nothing fits): the reason in general terms."""
    return _Gain(
        None, (), "",
        _("Batching gain: the tutorial's 2B/(B+1) caps the gain at 2×; real decode throughput "
          "grows almost linearly while bandwidth-bound and flattens once compute-bound."),
    )


def _intro(t: Row, r: Row | None) -> str:
    name = quote(str(t["scenario"]))
    if r is None:
        return _(
            "{name} uses the tutorial's own arithmetic (compute ceiling F·MFU/2P, capacity = "
            "ceiling ÷ (prompt + output) tokens, instances = ⌈QPS × safety ÷ capacity⌉). The "
            "input has no roofline scenario with the same model, GPU, load and lengths to set "
            "beside it."
        ).format(name=name)
    return _(
        "{name} uses the tutorial's own arithmetic (compute ceiling F·MFU/2P, capacity = ceiling "
        "÷ (prompt + output) tokens, instances = ⌈QPS × safety ÷ capacity⌉). It is shown beside "
        "{match}, the roofline plan for the same model, GPU, load and lengths."
    ).format(name=name, match=quote(str(r["scenario"])))


def comparison(
    index: int, t: Row, r: Row | None, sweep: pd.DataFrame | None
) -> TutorialComparison:
    """Tutorial row ``t`` beside its roofline match ``r`` (None: the input has none)."""
    gain = _gain(r, sweep) if sweep is not None and r is not None else _no_gain()
    reasons = (
        *_kv_heads_reason(t, r),
        *_weights_reason(t, r),
        _(_UNITS_REASON),
        _(_DIMENSIONS_REASON),
        _decode_reason(t, r),
        gain.reason,
        _safety_reason(t, r),
    )
    return TutorialComparison(
        anchor=f"tutorial-{index + 1}",
        name=str(t["scenario"]),
        match_name=str(r["scenario"]) if r is not None else "",
        intro=_intro(t, r),
        rows=_rows(t, r),
        reasons=reasons,
        gain_chart=gain.chart,
        gain_legend=gain.legend,
        gain_caption=gain.caption,
    )
