"""Plain-language notes a reader should see beside the numbers (a formula in the workbook too)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from reportgen.i18n import N_
from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, per_combination

Say = Callable[[str], str]  # a message in the reader's language

_NOTES = (
    # (Excel condition, sentence)
    ('{method}="tutorial"',
     N_("Tutorial method: instances from the compute ceiling F·MFU/2P alone, kept for "
        "comparison and not counted in the plan's totals.")),
    ('AND({method}="tutorial",{bottleneck}="weights_do_not_fit")',
     N_("The weights do not fit one GPU: the tutorial has no tensor parallelism, and its "
        "negative batch sizes say exactly this.")),
    ('AND({method}<>"tutorial",{bottleneck}="weights_do_not_fit")',
     N_("The weights do not fit: this replica's memory leaves no room for one sequence's KV "
        "cache; more GPUs per replica (tp, pp), a GPU with more memory or a lower weight "
        "precision would.")),
    ('{bottleneck}="slo_unreachable"',
     N_("No batch meets the latency targets, not even one sequence; relax TTFT/TPOT, or use a "
        "faster GPU or more tensor parallelism.")),
    ('AND(ISBLANK({raw_tpot_slo_ms}),{bottleneck}="kv_memory")',
     N_("No TPOT target given: the instance runs at its KV-cache memory limit.")),
    ('AND(ISBLANK({raw_tpot_slo_ms}),{bottleneck}="batch_cap")',
     N_("No TPOT target given: the instance runs at the scheduler's batch cap (max_batch).")),
    ('AND({weight_dtype}={expert_weight_dtype},{weight_dtype}<>{compute_dtype},'
     'OR({weight_dtype}="fp4",{weight_dtype}="fp8",{weight_dtype}="mxfp4"))',
     N_("This GPU has no tensor cores for the weight precision: planned as weight-only "
        "quantization, the matrix multiplies running at the compute precision "
        "(compute_dtype).")),
    ('{eff__calibrated}="no"',
     N_("Efficiencies for this GPU family and precision are uncalibrated priors: treat the "
        "plan as provisional and load-test early.")),
    ('{local_attention_share}>0',
     N_("Some of this model's layers attend only to a window of recent tokens and keep no more "
        "KV cache than that, as vLLM's hybrid KV-cache manager and TensorRT-LLM's "
        "sliding-window cache allocate it; an engine that keeps every layer's whole context "
        "fits fewer sequences.")),
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


def _shipped(weights: str, experts: str, compute: str, say: Say) -> str:
    part = (say(N_("routed experts in {experts}, the other weights in {weights} (memory counts "
                   "each part at its own precision)")).format(experts=experts, weights=weights)
            if weights != experts else weights)
    return say(N_("Weights as the checkpoint ships them: {part}; the matrix multiplies run at "
                  "{compute}.")).format(part=part, compute=compute)


def _stages(tp: float, pp: float, gpus: float, per_node: float, say: Say) -> str:
    where = (say(N_("on {nodes} nodes, joined by the inter-node link")).format(
        nodes=f"{gpus / per_node:g}") if gpus > per_node else say(N_("in one node")))
    return say(N_("Each replica is {tp} × {pp} = {gpus} GPUs: {pp} pipeline stages of {tp} "
                  "GPUs {where}; decode runs {pp} micro-batches so no stage waits, each reading "
                  "every stage's weights, and a lone prompt waits on the pipeline bubble.")
               ).format(tp=f"{tp:g}", pp=f"{pp:g}", gpus=f"{gpus:g}", where=where)


_ENGINE_XL = 'AND({method}<>"tutorial",{eff__engine}<>"",{eff__engine}<>{engine})'
_ENGINE_TEXT_XL = (
    '"Efficiencies calibrated on "&{eff__engine}&" measurements, uncalibrated for "&{engine}&'
    '": the error band (gpus_low to gpus_high) is widened for the engine; a load test on "&'
    '{engine}&" would calibrate it."'
)


def _engine(calibrated_on: str, engine: str, say: Say) -> str:
    return say(N_("Efficiencies calibrated on {calibrated_on} measurements, uncalibrated for "
                  "{engine}: the error band (gpus_low to gpus_high) is widened for the engine; "
                  "a load test on {engine} would calibrate it.")).format(
        calibrated_on=calibrated_on, engine=engine)


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
          per_node: float, calibration_note: str, calibrated_on: str, engine: str,
          local_share: float, say: Say = N_) -> str:
    """The notes of one combination of values: the sentences whose condition holds, in the
    template's order, joined as its TRIM joins them; ``say``: each sentence in the reader's
    language (the engine's are English, as the workbook's formula writes them)."""
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
        local_share > 0,
    )
    said = [say(text) for (_, text), held in zip(_NOTES, holds, strict=True) if held]
    if raw_weights == "" and (not uniform or weights not in ("bf16", "fp16")):
        said.append(_shipped(weights, experts, compute, say))
    if pp > 1:
        said.append(_stages(tp, pp, gpus, per_node, say))
    if not tutorial and calibrated_on != "" and calibrated_on != engine:
        said.append(_engine(calibrated_on, engine, say))
    if calibrated == "load test":
        said.append(calibration_note)
    text = " ".join(" ".join(said).split())  # as the formula's TRIM joins them
    if say is N_:  # as written: exactly the formula's text
        return text
    return text.replace("。 ", "。")  # translated: no space after a full-width full stop


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
    local_attention_share: Array,
) -> Array:
    """What a reader should know about the row, in sentences."""
    return worded((method, bottleneck, raw_tpot_slo_ms, weight_dtype, expert_weight_dtype,
                   compute_dtype, eff__calibrated, raw_weight_dtype, pp, tp, gpus_per_instance,
                   gpu__gpus_per_node, eff__calibration_note, eff__engine, engine,
                   local_attention_share))


def worded(arguments: tuple[Array, ...], say: Say = N_) -> Array:
    """Each row's notes from the quantity's inputs, in their order (engine.arguments_of gives
    them), each sentence in ``say``'s language: the report words them for its reader."""
    method, bottleneck, raw_tpot_slo_ms, *others = arguments
    # worded once per distinct combination of the inputs (rows share few)
    return per_combination(functools.partial(_said, say=say), method, bottleneck,
                           np.isnan(raw_tpot_slo_ms), *others)
