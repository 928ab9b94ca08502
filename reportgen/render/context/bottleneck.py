"""What sets a scenario's size, in words: the sentence naming the binding limit, the limits on
the batch side by side, and what would relieve the one that binds.

The engine decides the bottleneck (``bottleneck``) and every limit; this module only chooses the
words for them.
"""

from __future__ import annotations

import pandas as pd

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


def _next_limit(row: Row) -> tuple[str, float]:
    """The tightest batch limit other than memory: (what it is, value)."""
    candidates: list[tuple[str, float]] = []
    if as_float(row, "batch_limit_tpot") < UNLIMITED:
        candidates.append(("the TPOT target", as_float(row, "batch_limit_tpot")))
    if as_float(row, "batch_limit_ttft") < UNLIMITED:
        candidates.append(("the TTFT target", as_float(row, "batch_limit_ttft")))
    candidates.append(("the scheduler cap (max_batch)", as_float(row, "max_batch")))
    return min(candidates, key=lambda c: c[1])


def size_sentence(row: Row) -> str:
    """What sets the size of a scenario's fleet, in one sentence with its numbers (two when
    the knee of P99 targets sized it: the knee, then what limits each replica's batch)."""
    if str(row.get("fleet_bottleneck")) == "queueing":
        knee = (
            f"Queueing under the P99 targets sets the fleet of {quote(str(row['scenario']))}: "
            f"simulated with random arrivals, one {replica(row)} replica meets them up to "
            f"{fmt(row, 'knee_rps_per_instance')} (the knee), so the plan runs "
            f"{fmt(row, 'instances')} instances for {fmt(row, 'peak_qps')} with the safety "
            "factor. Inside each replica: "
        )
        return knee + _batch_sentence(row)
    return _batch_sentence(row)


def _batch_sentence(row: Row) -> str:
    name = quote(str(row["scenario"]))
    b_mem = fmt(row, "batch_max_kv")
    code = str(row["bottleneck"])
    if code == "kv_memory":
        label, value = _next_limit(row)
        return (
            f"Memory, not compute, sets the size of {name}: each {replica(row)} replica holds "
            f"{b_mem} sequences in its KV cache, while {label} would allow "
            f"{fmt_value(value, 'sequences')}."
        )
    if code in ("tpot_slo", "ttft_slo"):
        target = "TPOT" if code == "tpot_slo" else "TTFT"
        slo = fmt_value(scalar(row[f"raw_{target.lower()}_slo_ms"]), "ms")
        return (
            f"The {target} target ({slo}), not memory, sets the size of {name}: each "
            f"{replica(row)} replica runs {fmt(row, 'batch')} sequences to meet it, while its KV "
            f"cache would hold {b_mem}."
        )
    if code == "batch_cap":
        return (
            f"The scheduler cap, not memory, sets the size of {name}: each {replica(row)} "
            f"replica runs max_batch = {fmt(row, 'max_batch')} sequences while its KV cache would "
            f"hold {b_mem}; a higher max_batch would need fewer replicas if latency allows."
        )
    return f"{name}: {bottleneck_label(row)}."


def _tutorial_sentence(row: Row) -> str:
    compute = (
        f"The tutorial sizes the fleet from the compute ceiling alone: "
        f"{fmt(row, 'compute_ceiling_tokens_per_s_per_gpu')} ÷ "
        f"({fmt(row, 'avg_prompt_tokens', with_unit=False)} + "
        f"{fmt(row, 'avg_output_tokens')}) = {fmt(row, 'tutorial_instance_rps')} per instance, "
        f"hence {fmt(row, 'gpus')} GPUs."
    )
    if str(row["bottleneck"]) != "weights_do_not_fit":
        return compute
    return (
        f"{compute} It never checks memory: {fmt(row, 'weights_gib')} of weights on one "
        f"{fmt(row, 'gpu_memory_gib')} GPU leave a KV budget of {fmt(row, 'kv_budget_gib')}, "
        "so not one sequence fits."
    )


def bottleneck_sentence(row: Row) -> str:
    """The section's opening sentence: what sets the size, with its numbers."""
    code = str(row["bottleneck"])
    if is_tutorial(row):
        return _tutorial_sentence(row)
    if code == "weights_do_not_fit":
        return (
            f"The weights do not fit: {fmt(row, 'weights_gib')} at {row['weight_dtype']} is "
            f"{fmt(row, 'weights_gib_per_gpu')} per GPU of a {replica(row)} replica, and the "
            "KV budget of the replica is "
            f"{fmt(row, 'kv_budget_gib')}, less than one sequence's "
            f"{fmt(row, 'kv_gib_per_seq')}."
        )
    if code == "slo_unreachable":
        return (
            f"No batch meets the latency targets: with one sequence, TTFT is "
            f"{fmt(row, 'ttft_ms')} and TPOT {fmt(row, 'tpot_ms')}."
        )
    return size_sentence(row)


def regime_sentence(row: Row) -> str:
    """How a decode step spends its time at the operating batch (empty when nothing fits)."""
    if not fits(row):
        return ""
    stages = float(row["pp"])
    reads = f"it reads {fmt(row, 'weights_read_gib_per_step')} of weights every step"
    if stages > 1:
        reads += (f": each of its {fmt(row, 'pp', with_unit=False)} micro-batches reads every "
                  "stage's weights")
    return (
        f"At {fmt(row, 'batch')} sequences a decode step takes {fmt(row, 'decode_step_ms')} and "
        f"is {row['decode_regime']}-bound ({reads}); prefill takes "
        f"{fmt(row, 'prefill_time_share')} of the instance's time."
    )


def limits(row: Row) -> tuple[Limit, ...]:
    """The candidates for the operating batch, the binding one marked."""
    code = str(row["bottleneck"])

    def limit(name: str, label: str, binding: bool) -> Limit:
        shown = Num("no target", "text") if as_float(row, name) >= UNLIMITED else num(row, name)
        return Limit(label, shown, binding)

    return (
        limit("batch_max_kv", "KV-cache memory", code in ("kv_memory", "weights_do_not_fit")),
        limit("batch_limit_tpot", "TPOT target", code == "tpot_slo"),
        limit("batch_limit_ttft", "TTFT target", code == "ttft_slo"),
        limit("max_batch", "Scheduler cap (max_batch)", code == "batch_cap"),
    )


# --- relief: the row's computed levers -----------------------------------------------------------

RELIEF_SHOWN = 5  # levers listed one per line; the rest are summarised


def relief(row: Row, levers: pd.DataFrame) -> tuple[str, ...]:
    """What would move the row's cost, from its computed levers (levers.py): the changes that
    save most first, then one line each for those that change nothing and those that cost
    more."""
    if is_tutorial(row):
        return (
            "Nothing to relieve: the tutorial method is not a plan. See the tutorial "
            "comparison and the roofline scenario for the same workload.",
        )
    if str(row["status"]) in ("option", "compare"):
        return ("Not budgeted, so no levers are weighed: see the row the plan budgets.",)
    if levers.empty:
        return ("No single change applies: the row already uses the settings the levers try.",)
    fits_now = as_float(row, "in_plan_total") == 1
    helps, same, worse = [], [], []
    for _, lever in levers.iterrows():
        if not bool(lever["feasible"]):
            worse.append(f"{lever['change']} (does not meet the targets)")
        elif not fits_now:
            helps.append(f"{lever['change']}: fits, with {fmt_value(lever['gpus'], 'GPUs')} "
                         f"GPUs at {fmt_value(lever['monthly_cost'], 'USD/month')} a month "
                         f"({lever['configuration']})")
        elif float(lever["delta_monthly_cost"]) < 0:
            helps.append(f"{lever['change']}: {fmt_value(-lever['delta_gpus'], 'GPUs')} fewer "
                         f"GPUs, {fmt_value(-lever['delta_monthly_cost'], 'USD/month')} a month "
                         f"less ({lever['configuration']})")
        elif float(lever["delta_monthly_cost"]) == 0:
            same.append(str(lever["change"]))
        else:
            extra = fmt_value(lever["delta_monthly_cost"], "USD/month")
            worse.append(f"{lever['change']} (+{extra} a month)")
    lines = helps[:RELIEF_SHOWN]
    if not helps:
        lines.append("No single change lowers the cost.")
    if same:
        lines.append("No effect on the fleet: " + "; ".join(same) + ".")
    if worse:
        lines.append("Cost more or miss the targets: " + "; ".join(worse) + ".")
    return tuple(lines)
