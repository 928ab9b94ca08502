"""What sets a scenario's size, in words: the sentence naming the binding limit, the limits on
the batch side by side, and what would relieve the one that binds.

The engine decides the bottleneck (``bottleneck``) and every limit; this module only chooses the
words for them.
"""

from __future__ import annotations

from collections.abc import Callable

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
    """What sets the size of a scenario's fleet, in one sentence with its numbers."""
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
            f"{fmt(row, 'weights_gib_per_gpu')} per GPU at tensor parallelism "
            f"{fmt(row, 'tp', with_unit=False)}, and the KV budget of the instance is "
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
    return (
        f"At {fmt(row, 'batch')} sequences a decode step takes {fmt(row, 'decode_step_ms')} and "
        f"is {row['decode_regime']}-bound (it reads {fmt(row, 'weights_read_gib_per_step')} of "
        f"weights every step); prefill takes {fmt(row, 'prefill_time_share')} of the instance's "
        "time."
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


# --- relief: one list of suggestions per bottleneck ---------------------------------------------


def _higher_tp(row: Row) -> str:
    if as_float(row, "tp") < 8:
        return f"Higher tensor parallelism (now {fmt(row, 'tp', with_unit=False)})"
    return "Tensor parallelism is already 8, the most tried"


def _relieve_memory(row: Row) -> tuple[str, ...]:
    fp8_kv = (
        f"An fp8 KV cache: half the {fmt(row, 'kv_bytes_per_token')} now stored per token"
        if str(row["kv_dtype"]) in ("bf16", "fp16") else
        f"The KV cache is already {row['kv_dtype']}"
    )
    return (
        fp8_kv,
        f"A GPU with more memory than {fmt(row, 'gpu_memory_gib')}",
        f"{_higher_tp(row)}: the weights take a smaller share of each GPU",
        f"Shorter reserved lengths: {fmt(row, 'max_prompt_tokens', with_unit=False)} + "
        f"{fmt(row, 'max_output_tokens')} are reserved per sequence",
    )


def _relieve_latency(row: Row) -> tuple[str, ...]:
    return (
        f"A faster GPU: more memory bandwidth than {fmt(row, 'gpu_bandwidth_tbps')}",
        f"{_higher_tp(row)}: each step's weight read is shared by more GPUs",
        "fp8 weights: half the bytes read every step",
        "A looser target, if users accept it",
    )


def _relieve_cap(row: Row) -> tuple[str, ...]:
    return (
        f"Raise max_batch (now {fmt(row, 'max_batch')}) towards the memory limit of "
        f"{fmt(row, 'batch_max_kv')}, then check latency under load",
    )


def _relieve_weights(row: Row) -> tuple[str, ...]:
    return (
        f"Lower-precision weights (now {row['weight_dtype']}): fp8 halves them, int4 "
        "quarters them",
        f"A GPU with more memory than {fmt(row, 'gpu_memory_gib')}",
        "More GPUs per replica: tensor parallelism above 8 or pipeline parallelism (not "
        "modelled here)",
    )


def _relieve_unreachable(row: Row) -> tuple[str, ...]:
    return (
        "A looser TTFT/TPOT target",
        f"A faster GPU or {_higher_tp(row).lower()}",
        "Prefix caching or shorter prompts, if TTFT is the problem",
    )


_RELIEF: dict[str, Callable[[Row], tuple[str, ...]]] = {
    "kv_memory": _relieve_memory,
    "tpot_slo": _relieve_latency,
    "ttft_slo": _relieve_latency,
    "batch_cap": _relieve_cap,
    "weights_do_not_fit": _relieve_weights,
    "slo_unreachable": _relieve_unreachable,
}


def relief(row: Row) -> tuple[str, ...]:
    """What would relieve the binding limit."""
    if is_tutorial(row):
        return (
            "Nothing to relieve: the tutorial method is not a plan. See the tutorial "
            "comparison and the roofline scenario for the same workload.",
        )
    suggest = _RELIEF.get(str(row["bottleneck"]))
    if suggest is None:
        return ("Not a plan: see the roofline scenario and the tutorial comparison.",)
    return suggest(row)
