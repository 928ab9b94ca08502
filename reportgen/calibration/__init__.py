"""Calibration of the default efficiencies against published measurements.

The shipped measurements (``data/measurements_public.csv``) are the usable rows of the project's
public reference table, normalised: one row per published figure with the configuration the
engine needs (model, GPU, tensor parallelism, weight and KV precision, input and output length,
batch) and the figure in one unit per kind:

* ``offline_throughput``  TensorRT-LLM v0.13 ``trtllm-bench throughput`` (in-flight batching,
  every request queued at once, no latency target): output tokens/s per GPU.
* ``static_throughput``   TensorRT-LLM performance.md (v0.5/v0.6.1), static batching at a stated
  batch size: output tokens/s per GPU. Never fitted: a check on another engine version.
* ``ttft_batch1``         the same document's first-token latency at batch 1 with one output
  token: ms, compared with the engine's ``prefill_ms``.
* ``decode_batch1``       gpt-fast single-stream decode: tokens/s, compared with
  ``1000 / decode_step_ms`` at batch 1.

The package turns each row into a scenario and predicts the same figure with
:func:`reportgen.engine.estimate` under the shipped constants (:mod:`.measurements`,
:mod:`.scenarios`), scores the predictions (:mod:`.scoring`), fits the efficiency table per GPU
family and compute precision and cross-validates the fit (:mod:`.fit`), derives the shipped
table with its error band (:mod:`.table`) and runs the physics ablations (:mod:`.ablations`). It
prints nothing: ``benchmarks/accuracy.py`` is the printing front end.

The same fit calibrates a user's own stack on their load test (``reportgen calibrate``): the
runs' stack from flags, a stack file or the result files (:mod:`.stack`), each run as serving
measurements at its requests in flight (:mod:`.serving`), the fit of the stack's row
(:mod:`.loadtest_fit`), the efficiency file written and read back (:mod:`.efficiency_file`) and
its rows in a plan (:mod:`.user_rows`).
"""

from __future__ import annotations

from reportgen.calibration.ablations import ABLATIONS, NVLINK_GPUS, Ablation, ablation_inputs
from reportgen.calibration.fit import (
    BATCH1_WEIGHT,
    BOUNDS,
    GROUP_PARAMETERS,
    MIN_MOE_ROWS,
    MOE_PARAMETER,
    SHARED_PARAMETER,
    START,
    Fit,
    GroupFit,
    architecture_folds,
    cross_validate,
    fit,
    fit_group,
    fit_groups,
    kind_weights,
    log_loss,
    moe_rows,
    nelder_mead,
    start_table,
)
from reportgen.calibration.measurements import (
    BATCH1_KINDS,
    FIT_KINDS,
    FITTED_RELEASES,
    GPT_FAST_OUTPUT_TOKENS,
    KINDS,
    LATER_RELEASE_FILE,
    MEASUREMENT_COLUMNS,
    MEASUREMENT_FILES,
    MEASUREMENTS_FILE,
    THROUGHPUT_KINDS,
    TRTLLM_BENCH_MAX_BATCH,
    UNITS,
    WEIGHT_ONLY,
    fit_rows,
    later_release,
    load_measurements,
    normalise_reference,
    write_measurements,
)
from reportgen.calibration.release import (
    REFERENCE_RELEASE,
    ReleaseFactor,
    fit_release_factors,
    release_pairs,
    release_scale,
    with_release_scale,
)
from reportgen.calibration.scenarios import (
    Bench,
    BoolArray,
    Constants,
    FloatArray,
    Pin,
    build_bench,
    efficiency_keys,
    predict,
)
from reportgen.calibration.scoring import (
    GROUP_TARGET_PCT,
    TARGETS_PCT,
    WITHIN_PCT,
    Score,
    ape_pct,
    group_scores,
    kind_score,
    score,
    scored_rows,
    signed_pct,
    size_class,
)
from reportgen.calibration.table import (
    UNCALIBRATED_BAND_WIDENING,
    efficiency_table,
    plain_roofline,
    write_efficiency,
)

__all__ = [
    "ABLATIONS", "BATCH1_KINDS", "BATCH1_WEIGHT", "BOUNDS", "FITTED_RELEASES", "FIT_KINDS",
    "GPT_FAST_OUTPUT_TOKENS", "GROUP_PARAMETERS", "GROUP_TARGET_PCT", "KINDS",
    "LATER_RELEASE_FILE", "MEASUREMENTS_FILE", "MEASUREMENT_COLUMNS", "MEASUREMENT_FILES",
    "MIN_MOE_ROWS", "MOE_PARAMETER",
    "NVLINK_GPUS", "REFERENCE_RELEASE", "SHARED_PARAMETER", "START", "TARGETS_PCT",
    "THROUGHPUT_KINDS", "TRTLLM_BENCH_MAX_BATCH", "UNCALIBRATED_BAND_WIDENING", "UNITS",
    "WEIGHT_ONLY", "WITHIN_PCT",
    "Ablation", "Bench", "BoolArray", "Constants", "Fit", "FloatArray", "GroupFit", "Pin",
    "ReleaseFactor", "Score", "ablation_inputs", "ape_pct", "architecture_folds", "build_bench",
    "cross_validate", "efficiency_keys", "efficiency_table", "fit", "fit_group", "fit_groups",
    "fit_release_factors", "fit_rows", "group_scores", "kind_score", "kind_weights",
    "later_release", "load_measurements", "log_loss", "moe_rows", "nelder_mead",
    "normalise_reference",
    "plain_roofline", "predict", "release_pairs", "release_scale", "score", "scored_rows",
    "signed_pct", "size_class", "start_table", "with_release_scale", "write_efficiency",
    "write_measurements",
]  # fmt: skip
