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

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from reportgen import schema
from reportgen.choose import CHOSEN, NO_FIT, configurations, gpus_per_node, replica_words
from reportgen.engine import Tables
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
    out: list[Change] = []
    tp = int(chosen["tp"])
    if tp < max(schema.TP_VALUES) and _tp_splits(2 * tp, float(chosen["attention_heads"]),
                                                  float(chosen["kv_heads"])):
        out.append(Change(i, "next_tp", f"tensor parallelism {tp} → {2 * tp}",
                          {"tp": float(2 * tp)}, fixed=True))
    pp = int(chosen["pp"])
    gpu = str(chosen["gpu"])
    per_node = gpus_per_node(tables.gpus)
    # More stages add memory, not decode speed (timing.py): they pay only where memory binds,
    # and they are how a replica grows once it fills its nodes.
    memory_bound = chosen["bottleneck"] in ("kv_memory", "weights_do_not_fit")
    if pp < max(schema.PP_VALUES) and tp * pp >= per_node.get(gpu, 8.0) and memory_bound:
        shape = replica_words(gpu, tp, 2 * pp, per_node, float(chosen.get("attention_dp", 0.0)))
        out.append(Change(i, "next_pp", f"pipeline stages {pp} → {2 * pp}: {shape}",
                          {"pp": float(2 * pp)}, fixed=True))
    if "gpu" in searched:
        others = (spec["gpu"].split(schema.LIST_SEPARATOR) if spec["gpu"] != schema.AUTO
                  else [g for g in tables.gpus.index if tables.gpus.loc[g, "vendor"] != "user"])
        for gpu in others:
            if gpu != chosen["gpu"]:
                out.append(Change(i, f"gpu:{gpu}", f"{gpu} instead of {chosen['gpu']}",
                                  {"gpu": gpu}))
    fp8_cores = float(tables.gpus["fp8_tflops"].get(str(chosen["gpu"]), 0.0)) > 0
    sixteen_bit = (chosen["weight_dtype"] in _SIXTEEN_BIT
                   and chosen["expert_weight_dtype"] in _SIXTEEN_BIT)
    if sixteen_bit and fp8_cores and spec["weight_dtype"] != schema.AUTO:
        out.append(Change(i, "fp8_weights", f"fp8 weights instead of {chosen['weight_dtype']}",
                          {"weight_dtype": "fp8"}))
    if chosen["kv_dtype"] in _SIXTEEN_BIT and spec["kv_dtype"] != schema.AUTO:
        out.append(Change(i, "fp8_kv", f"fp8 KV cache instead of {chosen['kv_dtype']}",
                          {"kv_dtype": "fp8"}))
    hit = float(chosen["prefix_cache_hit_rate"])
    for rate in PREFIX_LEVERS:
        if hit < rate:
            out.append(Change(i, f"prefix_cache_{round(rate * 100)}",
                              f"prefix-cache hit rate {hit:.0%} → {rate:.0%}",
                              {"prefix_cache_hit_rate": rate}))
    target = float(typed["tpot_slo_ms"])
    if not np.isnan(target):
        out.append(Change(i, "tpot_target_looser",
                          f"TPOT target {target:g} → {target * TPOT_LOOSER:g} ms",
                          {"tpot_slo_ms": target * TPOT_LOOSER}))
    safety = float(chosen["safety_factor"])
    if safety > SAFETY_LEVER:
        out.append(Change(i, "safety_factor", f"safety factor {safety:g} → {SAFETY_LEVER:g}",
                          {"safety_factor": SAFETY_LEVER}))
    prompt, output = float(chosen["max_prompt_tokens"]), float(chosen["max_output_tokens"])
    halved = (max(float(chosen["avg_prompt_tokens"]), prompt / 2),
              max(float(chosen["avg_output_tokens"]), output / 2))
    if halved != (prompt, output):
        out.append(Change(i, "max_context_halved",
                          f"KV reserved for {halved[0] + halved[1]:,.0f} tokens instead of "
                          f"{prompt + output:,.0f} (max prompt and output halved)",
                          {"max_prompt_tokens": halved[0], "max_output_tokens": halved[1]}))
    return out


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


def with_levers(plan: Plan) -> Plan:
    """The plan with its levers (computed once; a plan that has them is returned as it is)."""
    if plan.levers is not None:
        return plan
    moves = levers(plan.typed, plan.specs, plan.results, plan.tables, plan.search.searched,
                   plan.scenarios)
    return replace(plan, levers=moves)
