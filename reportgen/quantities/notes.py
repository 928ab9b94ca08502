"""Plain-language notes a reader should see beside the numbers (a formula in the workbook too)."""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, per_combination

_NOTES = (
    # (Excel condition, sentence)
    ('{method}="tutorial"',
     "Tutorial method: instances from the compute ceiling F·MFU/2P alone, kept for comparison "
     "and not counted in the plan's totals."),
    ('AND({method}="tutorial",{bottleneck}="weights_do_not_fit")',
     "The weights do not fit one GPU: the tutorial has no tensor parallelism, and its negative "
     "batch sizes say exactly this."),
    ('AND({method}<>"tutorial",{bottleneck}="weights_do_not_fit")',
     "The weights do not fit: this replica's memory leaves no room for one sequence's KV "
     "cache; more GPUs per replica (tp, pp), a GPU with more memory or a lower weight "
     "precision would."),
    ('{bottleneck}="slo_unreachable"',
     "No batch meets the latency targets, not even one sequence; relax TTFT/TPOT, or use a "
     "faster GPU or more tensor parallelism."),
    ('AND(ISBLANK({raw_tpot_slo_ms}),{bottleneck}="kv_memory")',
     "No TPOT target given: the instance runs at its KV-cache memory limit."),
    ('AND(ISBLANK({raw_tpot_slo_ms}),{bottleneck}="batch_cap")',
     "No TPOT target given: the instance runs at the scheduler's batch cap (max_batch)."),
    ('AND({weight_dtype}={expert_weight_dtype},{weight_dtype}<>{compute_dtype},'
     'OR({weight_dtype}="fp4",{weight_dtype}="fp8",{weight_dtype}="mxfp4"))',
     "This GPU has no tensor cores for the weight precision: planned as weight-only "
     "quantization, the matrix multiplies running at the compute precision (compute_dtype)."),
    ('{eff__calibrated}="no"',
     "Efficiencies for this GPU family and precision are uncalibrated priors: treat the plan "
     "as provisional and load-test early."),
)

# Sentences that quote the row's own values: (Excel condition, Excel text, the same in Python
# from the values of ``_SAYS``' inputs). Numbers in them are whole (tp, pp, GPUs, nodes), which
# Excel's & writes as Python's :g does.
_SHIPPED_XL = (
    'AND({raw_weight_dtype}="",OR({weight_dtype}<>{expert_weight_dtype},'
    'AND({weight_dtype}<>"bf16",{weight_dtype}<>"fp16")))'
)
_SHIPPED_TEXT_XL = (
    '"Weights as the checkpoint ships them: "&IF({weight_dtype}<>{expert_weight_dtype},'
    '"routed experts in "&{expert_weight_dtype}&", the other weights in "&{weight_dtype}&'
    '" (memory counts each part at its own precision)",{weight_dtype})&'
    '"; the matrix multiplies run at "&{compute_dtype}&"."'
)
_STAGES_XL = "{pp}>1"
_STAGES_TEXT_XL = (
    '"Each replica is "&{tp}&" × "&{pp}&" = "&{gpus_per_instance}&" GPUs: "&{pp}&'
    '" pipeline stages of "&{tp}&" GPUs"&IF({gpus_per_instance}>{gpu__gpus_per_node},'
    '" on "&{gpus_per_instance}/{gpu__gpus_per_node}&" nodes, joined by the inter-node link",'
    '" in one node")&"; decode runs "&{pp}&" micro-batches so no stage waits, each reading '
    'every stage\'s weights, and a lone prompt waits on the pipeline bubble."'
)


def _shipped(weights: str, experts: str, compute: str) -> str:
    part = (f"routed experts in {experts}, the other weights in {weights} (memory counts each "
            "part at its own precision)" if weights != experts else weights)
    return f"Weights as the checkpoint ships them: {part}; the matrix multiplies run at {compute}."


def _stages(tp: float, pp: float, gpus: float, per_node: float) -> str:
    where = (f" on {gpus / per_node:g} nodes, joined by the inter-node link" if gpus > per_node
             else " in one node")
    return (f"Each replica is {tp:g} × {pp:g} = {gpus:g} GPUs: {pp:g} pipeline stages of {tp:g} "
            f"GPUs{where}; decode runs {pp:g} micro-batches so no stage waits, each reading every "
            "stage's weights, and a lone prompt waits on the pipeline bubble.")


_ENGINE_XL = 'AND({method}<>"tutorial",{eff__engine}<>"",{eff__engine}<>{engine})'
_ENGINE_TEXT_XL = (
    '"Efficiencies calibrated on "&{eff__engine}&" measurements, uncalibrated for "&{engine}&'
    '": the error band (gpus_low to gpus_high) is widened for the engine; a load test on "&'
    '{engine}&" would calibrate it."'
)


def _engine(calibrated_on: str, engine: str) -> str:
    return (f"Efficiencies calibrated on {calibrated_on} measurements, uncalibrated for {engine}: "
            "the error band (gpus_low to gpus_high) is widened for the engine; a load test on "
            f"{engine} would calibrate it.")


# A row calibrated on your load test says so, with its date, runs and error (efficiency file).
_LOADTEST_XL = 'IF({eff__calibrated}="load test",{eff__calibration_note}&" ","")'


def _template() -> str:
    parts = [f'IF({cond},"{text} ","")' for cond, text in _NOTES]
    parts += [f'IF({cond},{text}&" ","")' for cond, text in
              ((_SHIPPED_XL, _SHIPPED_TEXT_XL), (_STAGES_XL, _STAGES_TEXT_XL),
               (_ENGINE_XL, _ENGINE_TEXT_XL))]
    return "TRIM(" + "&".join([*parts, _LOADTEST_XL]) + ")"


def _said(method: str, bottleneck: str, no_tpot: bool, weights: str, experts: str,
          compute: str, calibrated: str, raw_weights: str, pp: float, tp: float, gpus: float,
          per_node: float, calibration_note: str, calibrated_on: str, engine: str) -> str:
    """The notes of one combination of values: the sentences whose condition holds, in the
    template's order, joined as its TRIM joins them."""
    tutorial = method == "tutorial"
    uniform = weights == experts
    holds = (
        tutorial,
        tutorial and bottleneck == "weights_do_not_fit",
        not tutorial and bottleneck == "weights_do_not_fit",
        bottleneck == "slo_unreachable",
        no_tpot and bottleneck == "kv_memory",
        no_tpot and bottleneck == "batch_cap",
        uniform and weights != compute and weights in ("fp4", "fp8", "mxfp4"),
        calibrated == "no",
    )
    said = [text for (_, text), held in zip(_NOTES, holds, strict=True) if held]
    if raw_weights == "" and (not uniform or weights not in ("bf16", "fp16")):
        said.append(_shipped(weights, experts, compute))
    if pp > 1:
        said.append(_stages(tp, pp, gpus, per_node))
    if not tutorial and calibrated_on != "" and calibrated_on != engine:
        said.append(_engine(calibrated_on, engine))
    if calibrated == "load test":
        said.append(calibration_note)
    return " ".join(" ".join(said).split())


@quantity("text", _template(), kind="text")
def notes(
    method: Array,
    bottleneck: Array,
    raw_tpot_slo_ms: Array,
    weight_dtype: Array,
    expert_weight_dtype: Array,
    compute_dtype: Array,
    eff__calibrated: Array,
    raw_weight_dtype: Array,
    pp: Array,
    tp: Array,
    gpus_per_instance: Array,
    gpu__gpus_per_node: Array,
    eff__calibration_note: Array,
    eff__engine: Array,
    engine: Array,
) -> Array:
    """What a reader should know about the row, in sentences."""
    # worded once per distinct combination of the inputs (rows share few)
    return per_combination(
        _said, method, bottleneck, np.isnan(raw_tpot_slo_ms), weight_dtype, expert_weight_dtype,
        compute_dtype, eff__calibrated, raw_weight_dtype, pp, tp, gpus_per_instance,
        gpu__gpus_per_node, eff__calibration_note, eff__engine, engine)
