"""What sets a scenario's size, in words: the sentence naming the binding limit, the limits on
the batch side by side, and what would relieve the one that binds.

The engine decides the bottleneck (``bottleneck``) and every limit; this module only chooses the
words for them.
"""

from __future__ import annotations

import pandas as pd

from reportgen.i18n import N_, _
from reportgen.render.context.common import (
    UNLIMITED,
    Row,
    as_float,
    bottleneck_label,
    fits,
    fmt,
    fmt_value,
    is_tutorial,
    num,
    quote,
    replica,
    scalar,
)
from reportgen.render.context.models import Limit, Num

# The words for a decode step's regime (the engine's code: "compute" or "bandwidth").
REGIMES: dict[str, str] = {
    "compute": N_("compute-bound"),
    "bandwidth": N_("bandwidth-bound"),
}


def regime(row: Row) -> str:
    """What bounds a decode step at the operating batch, in words ("bandwidth-bound")."""
    code = str(row["decode_regime"])
    return _(REGIMES[code]) if code in REGIMES else f"{code}-bound"


def _next_limit(row: Row) -> tuple[str, float]:
    """The tightest batch limit other than memory: (what it is, value)."""
    candidates: list[tuple[str, float]] = []
    if as_float(row, "batch_limit_tpot") < UNLIMITED:
        candidates.append((_("the TPOT target"), as_float(row, "batch_limit_tpot")))
    if as_float(row, "batch_limit_ttft") < UNLIMITED:
        candidates.append((_("the TTFT target"), as_float(row, "batch_limit_ttft")))
    candidates.append((_("the scheduler cap (max_batch)"), as_float(row, "max_batch")))
    return min(candidates, key=lambda c: c[1])


def size_sentence(row: Row) -> str:
    """What sets the size of a scenario's fleet, in one sentence with its numbers (two when
    the knee of P99 targets sized it: the knee, then what limits each replica's batch)."""
    if str(row.get("fleet_bottleneck")) == "queueing":
        return _(
            "Queueing under the P99 targets sets the fleet of {name}: simulated with random "
            "arrivals, one {replica} replica meets them up to {knee} (the knee), so the plan runs "
            "{instances} instances for {peak} with the safety factor. Inside each replica: "
            "{batch}"
        ).format(name=quote(str(row["scenario"])), replica=replica(row),
                 knee=fmt(row, "knee_rps_per_instance"), instances=fmt(row, "instances"),
                 peak=fmt(row, "peak_qps"), batch=_batch_sentence(row))
    return _batch_sentence(row)


def _batch_sentence(row: Row) -> str:
    name = quote(str(row["scenario"]))
    b_mem = fmt(row, "batch_max_kv")
    code = str(row["bottleneck"])
    if code == "kv_memory":
        label, value = _next_limit(row)
        return _(
            "Memory, not compute, sets the size of {name}: each {replica} replica holds {b_mem} "
            "sequences in its KV cache, while {limit} would allow {allowed}."
        ).format(name=name, replica=replica(row), b_mem=b_mem, limit=label,
                 allowed=fmt_value(value, "sequences"))
    if code in ("tpot_slo", "ttft_slo"):
        target = "TPOT" if code == "tpot_slo" else "TTFT"
        slo = fmt_value(scalar(row[f"raw_{target.lower()}_slo_ms"]), "ms")
        return _(
            "The {target} target ({slo}), not memory, sets the size of {name}: each {replica} "
            "replica runs {batch} sequences to meet it, while its KV cache would hold {b_mem}."
        ).format(target=target, slo=slo, name=name, replica=replica(row),
                 batch=fmt(row, "batch"), b_mem=b_mem)
    if code == "batch_cap":
        return _(
            "The scheduler cap, not memory, sets the size of {name}: each {replica} replica runs "
            "max_batch = {max_batch} sequences while its KV cache would hold {b_mem}; a higher "
            "max_batch would need fewer replicas if latency allows."
        ).format(name=name, replica=replica(row), max_batch=fmt(row, "max_batch"), b_mem=b_mem)
    return _("{name}: {bottleneck}.").format(name=name, bottleneck=bottleneck_label(row))


def _tutorial_sentence(row: Row) -> str:
    compute = _(
        "The tutorial sizes the fleet from the compute ceiling alone: {ceiling} ÷ ({prompt} + "
        "{output}) = {capacity} per instance, hence {gpus} GPUs."
    ).format(ceiling=fmt(row, "compute_ceiling_tokens_per_s_per_gpu"),
             prompt=fmt(row, "avg_prompt_tokens", with_unit=False),
             output=fmt(row, "avg_output_tokens"), capacity=fmt(row, "tutorial_instance_rps"),
             gpus=fmt(row, "gpus"))
    if str(row["bottleneck"]) != "weights_do_not_fit":
        return compute
    return _(
        "{compute} It never checks memory: {weights} of weights on one {memory} GPU leave a KV "
        "budget of {budget}, so not one sequence fits."
    ).format(compute=compute, weights=fmt(row, "weights_gib"),
             memory=fmt(row, "gpu_memory_gib"), budget=fmt(row, "kv_budget_gib"))


def bottleneck_sentence(row: Row) -> str:
    """The section's opening sentence: what sets the size, with its numbers."""
    code = str(row["bottleneck"])
    if is_tutorial(row):
        return _tutorial_sentence(row)
    if code == "weights_do_not_fit":
        return _(
            "The weights do not fit: {weights} at {dtype} is {per_gpu} per GPU of a {replica} "
            "replica, and the KV budget of the replica is {budget}, less than one sequence's "
            "{per_seq}."
        ).format(weights=fmt(row, "weights_gib"), dtype=row["weight_dtype"],
                 per_gpu=fmt(row, "weights_gib_per_gpu"), replica=replica(row),
                 budget=fmt(row, "kv_budget_gib"), per_seq=fmt(row, "kv_gib_per_seq"))
    if code == "slo_unreachable":
        return _(
            "No batch meets the latency targets: with one sequence, TTFT is {ttft} and TPOT "
            "{tpot}."
        ).format(ttft=fmt(row, "ttft_ms"), tpot=fmt(row, "tpot_ms"))
    return size_sentence(row)


def regime_sentence(row: Row) -> str:
    """How a decode step spends its time at the operating batch (empty when nothing fits)."""
    if not fits(row):
        return ""
    values = dict(batch=fmt(row, "batch"), step=fmt(row, "decode_step_ms"),
                  regime=regime(row), weights=fmt(row, "weights_read_gib_per_step"),
                  share=fmt(row, "prefill_time_share"))
    if float(row["pp"]) > 1:
        return _(
            "At {batch} sequences a decode step takes {step} and is {regime} (it reads {weights} "
            "of weights every step: each of its {stages} micro-batches reads every stage's "
            "weights); prefill takes {share} of the instance's time."
        ).format(stages=fmt(row, "pp", with_unit=False), **values)
    return _(
        "At {batch} sequences a decode step takes {step} and is {regime} (it reads {weights} of "
        "weights every step); prefill takes {share} of the instance's time."
    ).format(**values)


def limits(row: Row) -> tuple[Limit, ...]:
    """The candidates for the operating batch, the binding one marked."""
    code = str(row["bottleneck"])

    def limit(name: str, label: str, binding: bool) -> Limit:
        shown = Num(_("no target"), "text") if as_float(row, name) >= UNLIMITED else num(row, name)
        return Limit(label, shown, binding)

    return (
        limit("batch_max_kv", _("KV-cache memory"),
              code in ("kv_memory", "weights_do_not_fit")),
        limit("batch_limit_tpot", _("TPOT target"), code == "tpot_slo"),
        limit("batch_limit_ttft", _("TTFT target"), code == "ttft_slo"),
        limit("max_batch", _("Scheduler cap (max_batch)"), code == "batch_cap"),
    )


# --- relief: the row's computed levers -----------------------------------------------------------

RELIEF_SHOWN = 5  # levers listed one per line; the rest are summarised


def relief(row: Row, levers: pd.DataFrame) -> tuple[str, ...]:
    """What would move the row's cost, from its computed levers (levers.py): the changes that
    save most first, then one line each for those that change nothing and those that cost
    more."""
    if is_tutorial(row):
        return (
            _("Nothing to relieve: the tutorial method is not a plan. See the tutorial "
              "comparison and the roofline scenario for the same workload."),
        )
    if str(row["status"]) in ("option", "compare"):
        return (_("Not budgeted, so no levers are weighed: see the row the plan budgets."),)
    if levers.empty:
        return (_("No single change applies: the row already uses the settings the levers "
                  "try."),)
    fits_now = as_float(row, "in_plan_total") == 1
    helps, same, worse = [], [], []
    for _index, lever in levers.iterrows():
        change = lever["change"]
        if not bool(lever["feasible"]):
            worse.append(_("{change} (does not meet the targets)").format(change=change))
        elif not fits_now:
            helps.append(_("{change}: fits, with {gpus} GPUs at {cost} a month "
                           "({configuration})").format(
                change=change, gpus=fmt_value(lever["gpus"], "GPUs"),
                cost=fmt_value(lever["monthly_cost"], "USD/month"),
                configuration=lever["configuration"]))
        elif float(lever["delta_monthly_cost"]) < 0:
            helps.append(_("{change}: {gpus} fewer GPUs, {cost} a month less "
                           "({configuration})").format(
                change=change, gpus=fmt_value(-lever["delta_gpus"], "GPUs"),
                cost=fmt_value(-lever["delta_monthly_cost"], "USD/month"),
                configuration=lever["configuration"]))
        elif float(lever["delta_monthly_cost"]) == 0:
            same.append(str(change))
        else:
            worse.append(_("{change} (+{cost} a month)").format(
                change=change, cost=fmt_value(lever["delta_monthly_cost"], "USD/month")))
    lines = helps[:RELIEF_SHOWN]
    if not helps:
        lines.append(_("No single change lowers the cost."))
    if same:
        lines.append(_("No effect on the fleet: {changes}.").format(changes=_("; ").join(same)))
    if worse:
        lines.append(_("Cost more or miss the targets: {changes}.").format(
            changes=_("; ").join(worse)))
    return tuple(lines)
