"""Plain-language notes a reader should see beside the numbers (a formula in the workbook too)."""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, sentences

_NOTES = (
    # (Excel condition, sentence)
    ('{method}="tutorial"',
     "Tutorial method: instances from the compute ceiling F·MFU/2P alone, kept for comparison "
     "and not counted in the plan's totals."),
    ('AND({method}="tutorial",{bottleneck}="weights_do_not_fit")',
     "The weights do not fit one GPU: the tutorial has no tensor parallelism, and its negative "
     "batch sizes say exactly this."),
    ('AND({method}<>"tutorial",{bottleneck}="weights_do_not_fit")',
     "The weights do not fit: even the largest tensor parallelism tried leaves no room for one "
     "sequence's KV cache; use a GPU with more memory or a lower weight precision."),
    ('{bottleneck}="slo_unreachable"',
     "No batch meets the latency targets, not even one sequence; relax TTFT/TPOT, or use a "
     "faster GPU or more tensor parallelism."),
    ('AND(ISBLANK({raw_tpot_slo_ms}),{bottleneck}="kv_memory")',
     "No TPOT target given: the instance runs at its KV-cache memory limit."),
    ('AND(ISBLANK({raw_tpot_slo_ms}),{bottleneck}="batch_cap")',
     "No TPOT target given: the instance runs at the scheduler's batch cap (max_batch)."),
    ('AND({weight_dtype}<>{compute_dtype},{weight_dtype}<>"fp16",'
     'OR({weight_dtype}="fp4",{weight_dtype}="fp8"))',
     "This GPU has no tensor cores for the weight precision: planned as weight-only "
     "quantization, the matrix multiplies running at the compute precision (compute_dtype)."),
    ('{eff__calibrated}="no"',
     "Efficiencies for this GPU family and precision are uncalibrated priors: treat the plan "
     "as provisional and load-test early."),
)


# A row calibrated on your load test says so, with its date, runs and error (efficiency file).
_LOADTEST_XL = 'IF({eff__calibrated}="load test",{eff__calibration_note}&" ","")'


def _template() -> str:
    parts = [f'IF({cond},"{text} ","")' for cond, text in _NOTES]
    return "TRIM(" + "&".join([*parts, _LOADTEST_XL]) + ")"


@quantity("text", _template(), kind="text")
def notes(
    method: Array,
    bottleneck: Array,
    raw_tpot_slo_ms: Array,
    weight_dtype: Array,
    compute_dtype: Array,
    eff__calibrated: Array,
    eff__calibration_note: Array,
) -> Array:
    """What a reader should know about the row, in sentences."""
    no_tpot = np.isnan(raw_tpot_slo_ms)
    weight_only = (
        (weight_dtype != compute_dtype)
        & (weight_dtype != "fp16")
        & ((weight_dtype == "fp4") | (weight_dtype == "fp8"))
    )
    conditions = (
        method == "tutorial",
        (method == "tutorial") & (bottleneck == "weights_do_not_fit"),
        (method != "tutorial") & (bottleneck == "weights_do_not_fit"),
        bottleneck == "slo_unreachable",
        no_tpot & (bottleneck == "kv_memory"),
        no_tpot & (bottleneck == "batch_cap"),
        weight_only,
        eff__calibrated == "no",
    )
    static = sentences(conditions, [text for _, text in _NOTES])
    loadtest = eff__calibrated == "load test"
    if not loadtest.any():
        return static
    joined = [" ".join(f"{s} {n}".split()) for s, n in zip(static[loadtest],
                                                         eff__calibration_note[loadtest],
                                                         strict=True)]
    out = static.copy()
    out[loadtest] = joined
    return out
