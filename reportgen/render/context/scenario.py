"""One scenario's section: headlines, the inputs as the plan uses them, the timing of one
request, the Little's Law chain to GPUs and nodes, and the figures and bottleneck from their own
modules."""

from __future__ import annotations

from typing import Any

import pandas as pd

from reportgen.choose import weights_words
from reportgen.engine import arguments_of, input_arrays
from reportgen.i18n import N_, _, ngettext
from reportgen.plan import Plan
from reportgen.quantities.notes import worded
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
    scalar,
    status_text,
    text_of,
)
from reportgen.render.context.models import ChainStep, Headline, Item, Num, ScenarioSection

# --- inputs --------------------------------------------------------------------------------------


def _default(raw: Any, text: str) -> str:
    """A " (text)" suffix when the input was left blank, so the reader sees a default."""
    return _(" ({default})").format(default=text) if blank(raw) else ""


# The section's subtitle for each method.
_SUBTITLES: dict[str, str] = {
    "roofline": N_("{model} on {gpu} · roofline method"),
    "tutorial": N_("{model} on {gpu} · tutorial method"),
}


def _mla_kv_dim(plan: Plan, row: Row) -> float:
    """Elements per layer per token of the compressed KV latent (0: not an MLA model)."""
    models = plan.tables.models
    model = str(row["model"])
    if "mla_kv_dim" not in models.columns or model not in models.index:
        return 0.0
    value = cell(models, model, "mla_kv_dim")
    return 0.0 if blank(value) else float(value)


def _model_text(plan: Plan, row: Row) -> str:
    shape = dict(model=row["model"], params=fmt(row, "params_b"),
                 active=fmt(row, "active_params_b"), layers=fmt(row, "layers"))
    mla = _mla_kv_dim(plan, row)
    if mla > 0:
        return _("{model}: {params} parameters ({active} active), {layers} layers, multi-head "
                 "latent attention: the KV cache holds a compressed latent of {elements} "
                 "elements per layer per token").format(
            elements=fmt_value(mla, "elements"), **shape)
    return _("{model}: {params} parameters ({active} active), {layers} layers, {kv_heads} KV "
             "heads × {head_dim}").format(
        kv_heads=fmt(row, "kv_heads"), head_dim=fmt(row, "head_dim"), **shape)


def _slo_text(raw: Any) -> str:
    return _("none") if blank(raw) else fmt_value(scalar(raw), "ms")


def _weights_text(row: Row) -> str:
    shipped = _default(row["raw_weight_dtype"], _("as shipped"))
    return f"{weights_words(str(row['weight_dtype']), str(row['expert_weight_dtype']))}{shipped}"


def _engine_text(row: Row, tp_note: str) -> str:
    """The engine and the replica's parallelism, with its pipeline stages where there are
    any."""
    if float(row.get("attention_replicas", 1)) > 1:
        tp_note += _(", attention data-parallel with the experts split across them")
    values = dict(engine=row["engine"], tp=fmt(row, "tp", with_unit=False), tp_note=tp_note,
                  max_batch=fmt(row, "max_batch"),
                  batch_note=_default(row["raw_max_batch"], _("default")))
    if float(row["pp"]) <= 1:
        return _("{engine}, tensor parallelism {tp}{tp_note}, max_batch {max_batch}"
                 "{batch_note}").format(**values)
    return _("{engine}, tensor parallelism {tp}{tp_note}, {pp} pipeline stages ({gpus} GPUs per "
             "replica), max_batch {max_batch}{batch_note}").format(
        pp=fmt(row, "pp", with_unit=False),
        gpus=fmt(row, "gpus_per_instance", with_unit=False), **values)


def _inputs(plan: Plan, row: Row) -> tuple[Item, ...]:
    calibrated = calibration_of(plan, str(row["efficiency_key"])) or _("uncalibrated prior")
    tp_note = _default(row["raw_tp"],
                       _("tutorial: always 1") if is_tutorial(row) else _("auto"))
    price_from = _("scenario") if not blank(row["raw_gpu_hour_price"]) else (
        _("price book: {basis}, {region}, {date}").format(
            basis=row["price_basis"], region=row["price_region"] or _("no region"),
            date=row["price_date"] or _("undated")))

    def text(label: str, value: str) -> Item:
        return Item(label, Num(value, "text"))

    return (
        text(_("Model"), _model_text(plan, row)),
        text(_("GPU"), f"{row['gpu']}: {fmt(row, 'gpu_memory_gib')}, "
             f"{fmt(row, 'gpu_bandwidth_tbps')}, {fmt(row, 'gpu_tflops')} "
             f"({row['compute_dtype']})"),
        text(_("Load"), _("{peak} peak, {average} average{note}").format(
            peak=fmt(row, "peak_qps"), average=fmt(row, "avg_qps"),
            note=_default(row["raw_avg_qps"], _("average = peak")))),
        text(_("Prompt / output"), _("{prompt} / {output} on average; KV reserved for {reserved} "
                                     "per sequence").format(
            prompt=fmt(row, "avg_prompt_tokens", with_unit=False),
            output=fmt(row, "avg_output_tokens"),
            reserved=fmt(row, "reserved_tokens_per_seq"))),
        text(_("Latency targets"), _("TTFT {ttft}; TPOT {tpot}").format(
            ttft=_slo_text(row["raw_ttft_slo_ms"]), tpot=_slo_text(row["raw_tpot_slo_ms"]))),
        text(_("Precision"), _("{weights}, KV cache {kv}{kv_note}, compute {compute}").format(
            weights=_weights_text(row), kv=row["kv_dtype"],
            kv_note=_default(row["raw_kv_dtype"], _("as shipped")),
            compute=row["compute_dtype"])),
        text(_("Engine, parallelism"), _engine_text(row, tp_note)),
        text(_("Efficiencies"), _("MFU prefill {prefill}, decode {decode}, MBU {mbu} ({key}, "
                                  "{calibrated})").format(
            prefill=fmt(row, "mfu_prefill"), decode=fmt(row, "mfu_decode"),
            mbu=fmt(row, "mbu"), key=row["efficiency_key"], calibrated=calibrated)),
        text(_("Business"), _("safety factor {safety}, {price} per GPU-hour ({price_from}), "
                              "prefix-cache hit rate {hit_rate}").format(
            safety=fmt(row, "safety_factor"), price=fmt(row, "gpu_hour_price"),
            price_from=price_from, hit_rate=fmt(row, "prefix_cache_hit_rate"))),
    )


# --- timing and the chain to GPUs ----------------------------------------------------------------


def _timing(row: Row) -> tuple[Item, ...]:
    return (
        Item(_("Prefill of one request ({tokens})").format(tokens=fmt(row, "prefill_tokens")),
             num(row, "prefill_ms")),
        Item(_("Time to first token (prefill + one decode step)"), num(row, "ttft_ms")),
        Item(_("Decode step of the whole batch ({batch} sequences, {regime})").format(
            batch=fmt(row, "batch"), regime=bottleneck.regime(row)), num(row, "decode_step_ms")),
        Item(_("Time per output token (step + prefill stalls)"), num(row, "tpot_ms")),
        Item(_("Decode of {output} at that pace").format(output=fmt(row, "avg_output_tokens")),
             num(row, "decode_s_per_request")),
        Item(_("Response time (first to last token)"), num(row, "response_time_s")),
        Item(_("Share of instance time spent in prefill"), num(row, "prefill_time_share")),
    )


def _tutorial_chain(row: Row, per_node: Num) -> tuple[tuple[ChainStep, ...], str]:
    steps = (
        ChainStep("", num(row, "peak_qps"), _("peak load")),
        ChainStep("×", num(row, "safety_factor"), _("safety factor"), bare=True),
        ChainStep("÷", num(row, "tutorial_instance_rps"),
                  _("tutorial capacity of one instance: F·MFU/2P ÷ (prompt + output tokens)")),
        *((ChainStep("=", num(row, "traffic_instances"), _("instances traffic needs, rounded up")),
           ChainStep("+", num(row, "redundancy_instances"),
                     _("for availability (min_replicas, spare_replicas)"), bare=True),
           ChainStep("=", num(row, "instances"), _("instances")))
          if float(row["redundancy_instances"]) > 0 else
          (ChainStep("=", num(row, "instances"), _("instances, rounded up")),)),
        ChainStep("×", num(row, "tp"), _("GPUs per instance (no tensor parallelism)")),
        ChainStep("=", num(row, "gpus"), _("GPUs")),
        ChainStep("÷", per_node, _("GPUs per node, rounded up")),
        ChainStep("=", num(row, "nodes"), _("nodes")),
    )
    return steps, _(
        "The tutorial divides the request rate by a compute-only capacity: no Little's Law, "
        "no memory and no latency."
    )


def _chain(plan: Plan, row: Row) -> tuple[tuple[ChainStep, ...], str]:
    per_node = Num(scalar(gpu_field(plan, str(row["gpu"]), "gpus_per_node")), "GPUs")
    if is_tutorial(row):
        return _tutorial_chain(row, per_node)
    if not is_counted(row):
        return (), _("No fleet: the scenario does not fit, so Little's Law has nothing to size.")
    if str(row.get("fleet_bottleneck")) == "queueing":  # sized by the knee of P99 targets
        sizing: tuple[ChainStep, ...] = (
            ChainStep("", num(row, "peak_qps"), _("peak load")),
            ChainStep("×", num(row, "safety_factor"), _("safety factor"), bare=True),
            ChainStep("÷", num(row, "knee_rps_per_instance"),
                      _("per instance at the knee of the P99 targets (simulated)")),
        )
    else:
        sizing = (
            ChainStep("", num(row, "peak_qps"), _("peak load")),
            ChainStep("×", num(row, "response_time_s"), _("response time at the operating batch")),
            ChainStep("=", num(row, "concurrency"), _("requests in flight (Little's Law)")),
            ChainStep("÷", num(row, "batch"), _("sequences per instance (operating batch B*)")),
            ChainStep("×", num(row, "safety_factor"), _("safety factor"), bare=True),
        )
    steps = (
        *sizing,
        *((ChainStep("=", num(row, "traffic_instances"), _("instances traffic needs, rounded up")),
           ChainStep("+", num(row, "redundancy_instances"),
                     _("for availability (min_replicas, spare_replicas)"), bare=True),
           ChainStep("=", num(row, "instances"), _("instances")))
          if float(row["redundancy_instances"]) > 0 else
          (ChainStep("=", num(row, "instances"), _("instances, rounded up")),)),
        ChainStep("×", num(row, "gpus_per_instance"),
                  _("GPUs per instance (tensor parallelism × pipeline stages)")
                  if float(row["pp"]) > 1 else _("GPUs per instance (tensor parallelism)")),
        ChainStep("=", num(row, "gpus"), _("GPUs")),
        ChainStep("÷", per_node, _("GPUs per node, rounded up")),
        ChainStep("=", num(row, "nodes"), _("nodes")),
    )
    cost = dict(hours=hours(), monthly=fmt(row, "monthly_cost"), average=fmt(row, "avg_qps"),
                busy=fmt(row, "utilization_at_avg_load"),
                per_million=fmt(row, "cost_per_million_output_tokens"))
    if str(row["price_unit"]) == "node_hour":
        units = int(row["billed_units"])
        return steps, ngettext(
            "Billed as {n} {sku} instance ({gpus} GPUs) at {price} per instance-hour and {hours} "
            "hours a month this costs {monthly} a month; at the average load ({average}) the "
            "fleet is {busy} busy and an output token costs {per_million} per million.",
            "Billed as {n} {sku} instances ({gpus} GPUs) at {price} per instance-hour and "
            "{hours} hours a month this costs {monthly} a month; at the average load ({average}) "
            "the fleet is {busy} busy and an output token costs {per_million} per million.",
            units).format(n=units, sku=row["price_sku"] or _("priced"),
                          gpus=fmt(row, "billed_gpus", with_unit=False),
                          price=fmt(row, "price_per_unit"), **cost)
    return steps, _(
        "At {price} per GPU-hour and {hours} hours a month this costs {monthly} a month; at the "
        "average load ({average}) the fleet is {busy} busy and an output token costs "
        "{per_million} per million.").format(price=fmt(row, "gpu_hour_price"), **cost)


# --- the section ---------------------------------------------------------------------------------


def _headlines(row: Row) -> tuple[Headline, ...]:
    band = is_counted(row)  # a range only for what the plan buys

    def ranged(name: str) -> Num | None:
        return num(row, name) if band else None

    return (
        Headline(_("GPUs"), num(row, "gpus"), ranged("gpus_low"), ranged("gpus_high")),
        Headline(_("Nodes"), num(row, "nodes")),
        Headline(_("Monthly cost"), num(row, "monthly_cost"), ranged("monthly_cost_low"),
                 ranged("monthly_cost_high")),
        Headline(_("Per 1M output tokens"), num(row, "cost_per_million_output_tokens"),
                 note=_("{cost} per 1M tokens, prompt and output together").format(
                     cost=fmt(row, "cost_per_million_total_tokens"))),
        Headline(_("Power at TDP"), num(row, "power_kw")),
    )


def _subtitle(row: Row) -> str:
    """The model, the GPU and the method under the section's title."""
    method = str(row["method"])
    if method not in _SUBTITLES:
        return f"{row['model']} on {row['gpu']} · {method} method"
    return _(_SUBTITLES[method]).format(model=row["model"], gpu=row["gpu"])


def notes_worded(plan: Plan) -> list[str]:
    """Each row's notes (the registry's ``notes``) in the reader's language: the results hold
    them in English, as the workbook's formula writes them."""
    n = len(plan.scenarios)
    words: list[str] = worded(arguments_of("notes", input_arrays(plan.scenarios), n,
                                           plan.tables), say=_).tolist()
    return words


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
        subtitle=_subtitle(row),
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
