"""Levers: the single changes that would move a plan row's cost, each re-planned by the engine.

For every budgeted row (and every plan row nothing fits, to show what would make it fit) the
changes that apply to it are listed — the next tensor parallelism, twice the pipeline stages
(for a replica that already fills its nodes: the way to grow past a node), each other GPU of its
search, fp8 weights, fp8 KV cache, prefix caching at 30 % and 50 %, a TPOT target 20 % looser,
a safety factor of 1.2, the KV reservation (max context) halved — and each is planned like any
row: the
row as typed with that one change, searched again over whatever the row searches. What a lever
is worth is the re-planned cost minus the row's own, never a rule of thumb. A change that does
not apply (fp8 weights on a plan already in fp8, a TPOT target the row does not have) is not
listed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from reportgen import schema
from reportgen.choose import CHOSEN, NO_FIT, configurations, gpus_per_node, replica_words
from reportgen.engine import Tables, estimate
from reportgen.i18n import N_
from reportgen.search import CONFIG, engine_inputs, search

if TYPE_CHECKING:
    from reportgen.plan import Plan

# Inputs a lever may set besides the configuration (each a set_<input> column of the table).
LEVER_INPUTS: tuple[str, ...] = (
    "prefix_cache_hit_rate", "tpot_slo_ms", "safety_factor", "max_prompt_tokens",
    "max_output_tokens",
)
LEVER_COLUMNS: tuple[str, ...] = (
    "row", "scenario", "lever", "change", "configuration", "feasible", "bottleneck", "gpus",
    "monthly_cost", "delta_gpus", "delta_monthly_cost", *CONFIG,
    *(f"set_{c}" for c in LEVER_INPUTS),
)
SAFETY_LEVER = 1.2
PREFIX_LEVERS = (0.3, 0.5)
TPOT_LOOSER = 1.2
_SIXTEEN_BIT = ("bf16", "fp16")


@dataclass(frozen=True)
class Change:
    """One lever applied to one row: what to set in the typed row and its spec."""

    row: int
    lever: str
    words: str
    values: dict[str, object]  # typed input → new value
    fixed: bool = False  # True: every searched input fixed at the chosen configuration


def _tp_splits(tp: int, heads: float, kv_heads: float) -> bool:
    return heads % tp == 0 and (kv_heads % tp == 0 or tp % kv_heads == 0)


def _changes(i: int, typed: pd.Series, spec: pd.Series, chosen: pd.Series,
             tables: Tables, searched: tuple[str, ...]) -> list[Change]:
    """The levers that apply to row ``i``."""
    found: list[tuple[str, dict[str, object], bool]] = []  # (lever, values, fixed)
    tp = int(chosen["tp"])
    if tp < max(schema.TP_VALUES) and _tp_splits(2 * tp, float(chosen["attention_heads"]),
                                                  float(chosen["kv_heads"])):
        found.append(("next_tp", {"tp": float(2 * tp)}, True))
    pp = int(chosen["pp"])
    gpu = str(chosen["gpu"])
    per_node = gpus_per_node(tables.gpus)
    # More stages add memory, not decode speed (timing.py): they pay only where memory binds,
    # and they are how a replica grows once it fills its nodes.
    memory_bound = chosen["bottleneck"] in ("kv_memory", "weights_do_not_fit")
    if pp < max(schema.PP_VALUES) and tp * pp >= per_node.get(gpu, 8.0) and memory_bound:
        found.append(("next_pp", {"pp": float(2 * pp)}, True))
    if "gpu" in searched:
        others = (spec["gpu"].split(schema.LIST_SEPARATOR) if spec["gpu"] != schema.AUTO
                  else [g for g in tables.gpus.index if tables.gpus.loc[g, "vendor"] != "user"])
        found += [(f"gpu:{other}", {"gpu": other}, False) for other in others if other != gpu]
    fp8_cores = float(tables.gpus["fp8_tflops"].get(gpu, 0.0)) > 0
    sixteen_bit = (chosen["weight_dtype"] in _SIXTEEN_BIT
                   and chosen["expert_weight_dtype"] in _SIXTEEN_BIT)
    if sixteen_bit and fp8_cores and spec["weight_dtype"] != schema.AUTO:
        found.append(("fp8_weights", {"weight_dtype": "fp8"}, False))
    if chosen["kv_dtype"] in _SIXTEEN_BIT and spec["kv_dtype"] != schema.AUTO:
        found.append(("fp8_kv", {"kv_dtype": "fp8"}, False))
    hit = float(chosen["prefix_cache_hit_rate"])
    found += [(f"prefix_cache_{round(rate * 100)}", {"prefix_cache_hit_rate": rate}, False)
              for rate in PREFIX_LEVERS if hit < rate]
    target = float(typed["tpot_slo_ms"])
    if not np.isnan(target):
        found.append(("tpot_target_looser", {"tpot_slo_ms": target * TPOT_LOOSER}, False))
    if float(chosen["safety_factor"]) > SAFETY_LEVER:
        found.append(("safety_factor", {"safety_factor": SAFETY_LEVER}, False))
    prompt, output = float(chosen["max_prompt_tokens"]), float(chosen["max_output_tokens"])
    halved = (max(float(chosen["avg_prompt_tokens"]), prompt / 2),
              max(float(chosen["avg_output_tokens"]), output / 2))
    if halved != (prompt, output):
        found.append(("max_context_halved",
                      {"max_prompt_tokens": halved[0], "max_output_tokens": halved[1]}, False))
    return [Change(i, lever, change_words(lever, chosen, target, values, per_node), values,
                   fixed=fixed) for lever, values, fixed in found]


def change_words(lever: str, chosen: pd.Series, tpot_typed_ms: float,
                 values: Mapping[str, Any], per_node: Mapping[str, float],
                 say: Callable[[str], str] = N_) -> str:
    """A lever in words, e.g. "tensor parallelism 2 → 4": ``chosen``, the row's results (its
    configuration and inputs); ``tpot_typed_ms``, its TPOT target as typed; ``values``, what
    the lever sets; ``say``, each message in the reader's language (the table's are English)."""
    if lever == "next_tp":
        return say(N_("tensor parallelism {old} → {new}")).format(
            old=int(chosen["tp"]), new=int(values["tp"]))
    if lever == "next_pp":
        shape = replica_words(str(chosen["gpu"]), int(chosen["tp"]), float(values["pp"]),
                              per_node, float(chosen.get("attention_dp", 0.0)))
        return say(N_("pipeline stages {old} → {new}: {shape}")).format(
            old=int(chosen["pp"]), new=int(values["pp"]), shape=shape)
    if lever.startswith("gpu:"):
        return say(N_("{new} instead of {old}")).format(new=values["gpu"], old=chosen["gpu"])
    if lever == "fp8_weights":
        return say(N_("fp8 weights instead of {old}")).format(old=chosen["weight_dtype"])
    if lever == "fp8_kv":
        return say(N_("fp8 KV cache instead of {old}")).format(old=chosen["kv_dtype"])
    if lever.startswith("prefix_cache_"):
        return say(N_("prefix-cache hit rate {old} → {new}")).format(
            old=f"{float(chosen['prefix_cache_hit_rate']):.0%}",
            new=f"{float(values['prefix_cache_hit_rate']):.0%}")
    if lever == "tpot_target_looser":
        return say(N_("TPOT target {old} → {new} ms")).format(
            old=f"{tpot_typed_ms:g}", new=f"{float(values['tpot_slo_ms']):g}")
    if lever == "safety_factor":
        return say(N_("safety factor {old} → {new}")).format(
            old=f"{float(chosen['safety_factor']):g}", new=f"{float(values['safety_factor']):g}")
    if lever == "max_context_halved":
        old = float(chosen["max_prompt_tokens"]) + float(chosen["max_output_tokens"])
        new = float(values["max_prompt_tokens"]) + float(values["max_output_tokens"])
        return say(N_("KV reserved for {new} tokens instead of {old} (max prompt and output "
                      "halved)")).format(new=f"{new:,.0f}", old=f"{old:,.0f}")
    raise ValueError(f"unknown lever {lever!r}")


def _variant(change: Change, typed: pd.Series, spec: pd.Series,
             planned: pd.Series) -> tuple[dict[str, object], dict[str, str]]:
    """The typed row and spec with the change applied (``planned``: the row's inputs at the
    configuration the plan chose)."""
    row = {str(k): v for k, v in typed.items()}
    new_spec = {str(k): str(v) for k, v in spec.items()}
    if change.fixed:
        for c in CONFIG:
            row[c], new_spec[c] = planned[c], ""
    for column, value in change.values.items():
        row[column] = value
        if column in new_spec:
            new_spec[column] = ""
    return row, new_spec


def levers(typed: pd.DataFrame, specs: pd.DataFrame, results: pd.DataFrame, tables: Tables,
           searched: tuple[tuple[str, ...], ...], planned: pd.DataFrame,
           applies: Callable[[pd.Series], bool] | None = None) -> pd.DataFrame:
    """Every lever of every budgeted or unfit plan row (LEVER_COLUMNS), re-planned in one
    search, ranked per row by the monthly saving (largest first). ``planned``: the rows'
    inputs at the configurations the plan chose (Plan.scenarios)."""
    applies = applies or (lambda r: r["role"] == "plan" and r["status"] in (CHOSEN, NO_FIT))
    changes: list[Change] = []
    spec_of = specs.reindex(columns=list(CONFIG), fill_value="")
    for i in range(len(results)):
        chosen = results.iloc[i]
        if applies(chosen):
            changes += _changes(i, typed.iloc[i], spec_of.iloc[i], chosen, tables, searched[i])
    if not changes:
        return pd.DataFrame({c: [] for c in LEVER_COLUMNS})
    rows = sorted({c.row for c in changes})  # each row's inputs taken out once
    typed_of = dict(zip(rows, (typed.iloc[r] for r in rows), strict=True))
    spec_rows = dict(zip(rows, (spec_of.iloc[r] for r in rows), strict=True))
    planned_of = dict(zip(rows, (planned.iloc[r] for r in rows), strict=True))
    pairs = [_variant(c, typed_of[c.row], spec_rows[c.row], planned_of[c.row])
             for c in changes]
    variants = pd.DataFrame([p[0] for p in pairs], columns=typed.columns)
    for column in schema.NUMBER_COLUMNS:
        variants[column] = variants[column].astype(float)
    variant_specs = pd.DataFrame([p[1] for p in pairs], columns=spec_of.columns, dtype=object)
    best = search(variants, variant_specs, tables).best()
    base = results.iloc[[c.row for c in changes]]
    feasible = best["feasible"].to_numpy(dtype=bool)
    base_cost = base["monthly_cost"].to_numpy(dtype=float)
    base_gpus = base["gpus"].to_numpy(dtype=float)
    base_ok = (base["in_plan_total"] == 1).to_numpy()
    frame = pd.DataFrame({
        "row": [c.row for c in changes],
        "scenario": base["scenario"].to_numpy(dtype=object),
        "lever": [c.lever for c in changes],
        "change": [c.words for c in changes],
        "configuration": configurations(best, gpus_per_node(tables.gpus)),
        "feasible": feasible,
        "bottleneck": best["bottleneck"].to_numpy(dtype=object),
        "gpus": np.where(feasible, best["gpus"].to_numpy(dtype=float), np.nan),
        "monthly_cost": np.where(feasible, best["monthly_cost"].to_numpy(dtype=float), np.nan),
    })
    frame["delta_gpus"] = np.where(base_ok, frame["gpus"] - base_gpus, np.nan)
    frame["delta_monthly_cost"] = np.where(base_ok, frame["monthly_cost"] - base_cost, np.nan)
    inputs = engine_inputs(best)  # as the engine takes them: a blank precision is as shipped
    for c in CONFIG:
        frame[c] = inputs[c]
    for c in LEVER_INPUTS:
        frame[f"set_{c}"] = [float(ch.values[c]) if c in ch.values else np.nan  # type: ignore[arg-type]
                             for ch in changes]
    order = frame.assign(_key=frame["delta_monthly_cost"].fillna(np.inf))
    order = order.sort_values(["row", "_key", "monthly_cost"], kind="stable", na_position="last")
    return order.drop(columns="_key").reset_index(drop=True)[list(LEVER_COLUMNS)]


def planned_inputs(plan: Plan, levers: pd.DataFrame) -> pd.DataFrame:
    """The scenario inputs each lever row plans (its configuration and set inputs)."""
    frame = plan.typed.take(levers["row"].to_numpy()).reset_index(drop=True)
    for c in CONFIG:
        frame[c] = levers[c].to_numpy()
    for c in LEVER_INPUTS:
        given = levers[f"set_{c}"].to_numpy(dtype=float)
        frame[c] = np.where(np.isnan(given), frame[c].to_numpy(dtype=float), given)
    return frame


def in_words(plan: Plan, say: Callable[[str], str]) -> pd.DataFrame:
    """The plan's levers with their ``change`` and ``configuration`` in the reader's language
    (``say`` and the active language; the table's are English)."""
    levers = with_levers(plan).levers
    assert levers is not None
    if levers.empty:
        return levers
    per_node = gpus_per_node(plan.tables.gpus)
    planned = estimate(planned_inputs(plan, levers), plan.tables)
    rows = levers["row"].to_numpy().tolist()
    tpot = plan.typed["tpot_slo_ms"].to_numpy(dtype=float)
    set_columns = [f"set_{c}" for c in LEVER_INPUTS]
    words = []
    for k, lever in enumerate(levers.to_dict(orient="records")):
        values = {c: lever[c] for c in CONFIG}
        values.update({c: lever[s] for c, s in zip(LEVER_INPUTS, set_columns, strict=True)
                       if not np.isnan(lever[s])})
        chosen = plan.results.iloc[rows[k]]
        words.append(change_words(str(lever["lever"]), chosen, tpot[rows[k]], values, per_node,
                                  say))
    return levers.assign(change=words, configuration=configurations(planned, per_node))


def with_levers(plan: Plan) -> Plan:
    """The plan with its levers (computed once; a plan that has them is returned as it is)."""
    if plan.levers is not None:
        return plan
    moves = levers(plan.typed, plan.specs, plan.results, plan.tables, plan.search.searched,
                   plan.scenarios)
    return replace(plan, levers=moves)
