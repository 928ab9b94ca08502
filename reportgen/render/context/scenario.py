"""One scenario's section: headlines, the inputs as the plan uses them, the timing of one
request, the Little's Law chain to GPUs and nodes, and the figures and bottleneck from their own
modules."""

from __future__ import annotations

from typing import Any

import pandas as pd

from reportgen.choose import weights_words
from reportgen.plan import Plan
from reportgen.render.context import bottleneck, figures
from reportgen.render.context.common import (
    Row,
    blank,
    bottleneck_label,
    calibration_of,
    cell,
    fmt,
    fmt_value,
    gpu_field,
    hours,
    is_counted,
    is_tutorial,
    num,
    plural,
    scalar,
    status_text,
    text_of,
)
from reportgen.render.context.models import ChainStep, Headline, Item, Num, ScenarioSection

# --- inputs --------------------------------------------------------------------------------------


def _default(raw: Any, text: str) -> str:
    """A " (text)" suffix when the input was left blank, so the reader sees a default."""
    return f" ({text})" if blank(raw) else ""


def _mla_kv_dim(plan: Plan, row: Row) -> float:
    """Elements per layer per token of the compressed KV latent (0: not an MLA model)."""
    models = plan.tables.models
    model = str(row["model"])
    if "mla_kv_dim" not in models.columns or model not in models.index:
        return 0.0
    value = cell(models, model, "mla_kv_dim")
    return 0.0 if blank(value) else float(value)


def _model_text(plan: Plan, row: Row) -> str:
    head = (
        f"{row['model']}: {fmt(row, 'params_b')} parameters "
        f"({fmt(row, 'active_params_b')} active), {fmt(row, 'layers')} layers, "
    )
    mla = _mla_kv_dim(plan, row)
    if mla > 0:
        return head + (
            "multi-head latent attention: the KV cache holds a compressed latent of "
            f"{fmt_value(mla, 'elements')} elements per layer per token"
        )
    return head + f"{fmt(row, 'kv_heads')} KV heads × {fmt(row, 'head_dim')}"


def _slo_text(raw: Any) -> str:
    return "none" if blank(raw) else fmt_value(scalar(raw), "ms")


def _weights_text(row: Row) -> str:
    shipped = _default(row["raw_weight_dtype"], "as shipped")
    return f"{weights_words(str(row['weight_dtype']), str(row['expert_weight_dtype']))}{shipped}"


def _stages_text(row: Row) -> str:
    """The pipeline stages, where there are any: ", 2 pipeline stages (16 GPUs per
    replica)"."""
    if float(row["pp"]) <= 1:
        return ""
    return (f", {fmt(row, 'pp', with_unit=False)} pipeline stages "
            f"({fmt(row, 'gpus_per_instance', with_unit=False)} GPUs per replica)")


def _inputs(plan: Plan, row: Row) -> tuple[Item, ...]:
    calibrated = calibration_of(plan, str(row["efficiency_key"])) or "uncalibrated prior"
    tp_note = _default(row["raw_tp"], "tutorial: always 1" if is_tutorial(row) else "auto")
    price_from = "scenario" if not blank(row["raw_gpu_hour_price"]) else (
        f"price book: {row['price_basis']}, {row['price_region'] or 'no region'}, "
        f"{row['price_date'] or 'undated'}")

    def text(label: str, value: str) -> Item:
        return Item(label, Num(value, "text"))

    return (
        text("Model", _model_text(plan, row)),
        text("GPU", f"{row['gpu']}: {fmt(row, 'gpu_memory_gib')}, "
             f"{fmt(row, 'gpu_bandwidth_tbps')}, {fmt(row, 'gpu_tflops')} "
             f"({row['compute_dtype']})"),
        text("Load", f"{fmt(row, 'peak_qps')} peak, {fmt(row, 'avg_qps')} average"
             f"{_default(row['raw_avg_qps'], 'average = peak')}"),
        text("Prompt / output", f"{fmt(row, 'avg_prompt_tokens', with_unit=False)} / "
             f"{fmt(row, 'avg_output_tokens')} on average; KV reserved for "
             f"{fmt(row, 'reserved_tokens_per_seq')} per sequence"),
        text("Latency targets", f"TTFT {_slo_text(row['raw_ttft_slo_ms'])}; "
             f"TPOT {_slo_text(row['raw_tpot_slo_ms'])}"),
        text("Precision", f"{_weights_text(row)}, KV cache {row['kv_dtype']}"
             f"{_default(row['raw_kv_dtype'], 'as shipped')}, compute {row['compute_dtype']}"),
        text("Engine, parallelism", f"{row['engine']}, tensor parallelism "
             f"{fmt(row, 'tp', with_unit=False)}{tp_note}{_stages_text(row)}, max_batch "
             f"{fmt(row, 'max_batch')}{_default(row['raw_max_batch'], 'default')}"),
        text("Efficiencies", f"MFU prefill {fmt(row, 'mfu_prefill')}, decode "
             f"{fmt(row, 'mfu_decode')}, MBU {fmt(row, 'mbu')} ({row['efficiency_key']}, "
             f"{calibrated})"),
        text("Business", f"safety factor {fmt(row, 'safety_factor')}, "
             f"{fmt(row, 'gpu_hour_price')} per GPU-hour ({price_from}), prefix-cache hit rate "
             f"{fmt(row, 'prefix_cache_hit_rate')}"),
    )


# --- timing and the chain to GPUs ----------------------------------------------------------------


def _timing(row: Row) -> tuple[Item, ...]:
    return (
        Item(f"Prefill of one request ({fmt(row, 'prefill_tokens')})", num(row, "prefill_ms")),
        Item("Time to first token (prefill + one decode step)", num(row, "ttft_ms")),
        Item(f"Decode step of the whole batch ({fmt(row, 'batch')} sequences, "
             f"{row['decode_regime']}-bound)", num(row, "decode_step_ms")),
        Item("Time per output token (step + prefill stalls)", num(row, "tpot_ms")),
        Item(f"Decode of {fmt(row, 'avg_output_tokens')} at that pace",
             num(row, "decode_s_per_request")),
        Item("Response time (first to last token)", num(row, "response_time_s")),
        Item("Share of instance time spent in prefill", num(row, "prefill_time_share")),
    )


def _tutorial_chain(row: Row, per_node: Num) -> tuple[tuple[ChainStep, ...], str]:
    steps = (
        ChainStep("", num(row, "peak_qps"), "peak load"),
        ChainStep("×", num(row, "safety_factor"), "safety factor", bare=True),
        ChainStep("÷", num(row, "tutorial_instance_rps"),
                  "tutorial capacity of one instance: F·MFU/2P ÷ (prompt + output tokens)"),
        *((ChainStep("=", num(row, "traffic_instances"), "instances traffic needs, rounded up"),
           ChainStep("+", num(row, "redundancy_instances"),
                     "for availability (min_replicas, spare_replicas)", bare=True),
           ChainStep("=", num(row, "instances"), "instances"))
          if float(row["redundancy_instances"]) > 0 else
          (ChainStep("=", num(row, "instances"), "instances, rounded up"),)),
        ChainStep("×", num(row, "tp"), "GPUs per instance (no tensor parallelism)"),
        ChainStep("=", num(row, "gpus"), "GPUs"),
        ChainStep("÷", per_node, "GPUs per node, rounded up"),
        ChainStep("=", num(row, "nodes"), "nodes"),
    )
    return steps, (
        "The tutorial divides the request rate by a compute-only capacity: no Little's Law, "
        "no memory and no latency."
    )


def _chain(plan: Plan, row: Row) -> tuple[tuple[ChainStep, ...], str]:
    per_node = Num(scalar(gpu_field(plan, str(row["gpu"]), "gpus_per_node")), "GPUs")
    if is_tutorial(row):
        return _tutorial_chain(row, per_node)
    if not is_counted(row):
        return (), "No fleet: the scenario does not fit, so Little's Law has nothing to size."
    if str(row.get("fleet_bottleneck")) == "queueing":  # sized by the knee of P99 targets
        sizing: tuple[ChainStep, ...] = (
            ChainStep("", num(row, "peak_qps"), "peak load"),
            ChainStep("×", num(row, "safety_factor"), "safety factor", bare=True),
            ChainStep("÷", num(row, "knee_rps_per_instance"),
                      "per instance at the knee of the P99 targets (simulated)"),
        )
    else:
        sizing = (
            ChainStep("", num(row, "peak_qps"), "peak load"),
            ChainStep("×", num(row, "response_time_s"), "response time at the operating batch"),
            ChainStep("=", num(row, "concurrency"), "requests in flight (Little's Law)"),
            ChainStep("÷", num(row, "batch"), "sequences per instance (operating batch B*)"),
            ChainStep("×", num(row, "safety_factor"), "safety factor", bare=True),
        )
    steps = (
        *sizing,
        *((ChainStep("=", num(row, "traffic_instances"), "instances traffic needs, rounded up"),
           ChainStep("+", num(row, "redundancy_instances"),
                     "for availability (min_replicas, spare_replicas)", bare=True),
           ChainStep("=", num(row, "instances"), "instances"))
          if float(row["redundancy_instances"]) > 0 else
          (ChainStep("=", num(row, "instances"), "instances, rounded up"),)),
        ChainStep("×", num(row, "gpus_per_instance"),
                  "GPUs per instance (tensor parallelism × pipeline stages)"
                  if float(row["pp"]) > 1 else "GPUs per instance (tensor parallelism)"),
        ChainStep("=", num(row, "gpus"), "GPUs"),
        ChainStep("÷", per_node, "GPUs per node, rounded up"),
        ChainStep("=", num(row, "nodes"), "nodes"),
    )
    if str(row["price_unit"]) == "node_hour":
        instance = f"{row['price_sku'] or 'priced'} instance"
        billed = (f"Billed as {plural(int(row['billed_units']), instance)} "
                  f"({fmt(row, 'billed_gpus', with_unit=False)} GPUs) at "
                  f"{fmt(row, 'price_per_unit')} per instance-hour")
    else:
        billed = f"At {fmt(row, 'gpu_hour_price')} per GPU-hour"
    return steps, (
        f"{billed} and {hours()} hours a month this costs "
        f"{fmt(row, 'monthly_cost')} a month; at the average load "
        f"({fmt(row, 'avg_qps')}) the fleet is {fmt(row, 'utilization_at_avg_load')} busy and "
        f"an output token costs {fmt(row, 'cost_per_million_output_tokens')} per million."
    )


# --- the section ---------------------------------------------------------------------------------


def _headlines(row: Row) -> tuple[Headline, ...]:
    band = is_counted(row)  # a range only for what the plan buys

    def ranged(name: str) -> Num | None:
        return num(row, name) if band else None

    return (
        Headline("GPUs", num(row, "gpus"), ranged("gpus_low"), ranged("gpus_high")),
        Headline("Nodes", num(row, "nodes")),
        Headline("Monthly cost", num(row, "monthly_cost"), ranged("monthly_cost_low"),
                 ranged("monthly_cost_high")),
        Headline("Per 1M output tokens", num(row, "cost_per_million_output_tokens"),
                 note=f"{fmt(row, 'cost_per_million_total_tokens')} per 1M tokens, prompt "
                      "and output together"),
        Headline("Power at TDP", num(row, "power_kw")),
    )


def _levers_of(plan: Plan, index: int) -> pd.DataFrame:
    """The row's computed levers, largest saving first."""
    levers = plan.levers if plan.levers is not None else pd.DataFrame({"row": []})
    return levers[levers["row"] == index]


def section(plan: Plan, index: int, row: Row, sweep: pd.DataFrame | None) -> ScenarioSection:
    """Everything one scenario's section shows."""
    memory_chart, memory_legend, memory_caption = figures.memory_figure(row)
    batch_chart, batch_legend, batch_caption = figures.batch_figure(row, sweep)
    chain, chain_caption = _chain(plan, row)
    return ScenarioSection(
        anchor=f"scenario-{index + 1}",
        number=index + 1,
        name=str(row["scenario"]),
        subtitle=f"{row['model']} on {row['gpu']} · {row['method']} method",
        counted=is_counted(row),
        status=status_text(row),
        headlines=_headlines(row),
        inputs=_inputs(plan, row),
        memory_chart=memory_chart,
        memory_legend=memory_legend,
        memory_caption=memory_caption,
        batch_chart=batch_chart,
        batch_legend=batch_legend,
        batch_caption=batch_caption,
        timing=_timing(row),
        chain=chain,
        chain_caption=chain_caption,
        bottleneck=str(row.get("fleet_bottleneck") or row["bottleneck"]),
        bottleneck_label=bottleneck_label({"bottleneck": row.get("fleet_bottleneck")
                                           or row["bottleneck"]}),
        bottleneck_sentence=bottleneck.bottleneck_sentence(row),
        regime_sentence=bottleneck.regime_sentence(row),
        limits=bottleneck.limits(row),
        relief=bottleneck.relief(row, _levers_of(plan, index)),
        notes=text_of(row["notes"]),
    )
