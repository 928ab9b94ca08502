"""estimate(): scenarios in, one results row per scenario out. Pure and vectorised.

The engine evaluates the quantity registry in order over all scenarios at once. It never reads
files, prints or raises for a scenario that does not fit: that is a result with a reason.

Most quantities — the memory, the link and roofline rates, the precisions, the efficiencies and
their texts — read no input that tells rows of one model and configuration apart (the traffic,
the targets, the money: :data:`PER_ROW`). Rows share few such configurations, so
:func:`estimate` computes those quantities once per distinct configuration and gives each row
its configuration's values; the others are computed row by row. Each quantity is a function of
its own row alone, so the figures are the same either way (a property test checks it). Within
one evaluation, a column known to repeat a short one (a lookup, a configuration's quantity, a
configuration input, a table of labels) is grouped and compared with a word through the short
one (:func:`reportgen.xlfuncs.known_codes`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reportgen import schema
from reportgen.quantities import REGISTRY, Quantity, input_kind
from reportgen.quantities.registry import KEYS_PREFIX, LOOKUP_KEYS, RAW_PREFIX, keyed_inputs
from reportgen.units import CONSTANTS
from reportgen.xlfuncs import Array, group_rows, known_codes, same_as_taken, taken

RESULT_COLUMNS: tuple[str, ...] = tuple(REGISTRY)
# Inputs that tell rows of the same model and configuration apart (the traffic, the targets,
# the money). Quantities that read none of them are the same for every row of a configuration.
PER_ROW = frozenset({
    "scenario", "workload", "peak_qps", "avg_qps", "avg_prompt_tokens", "avg_output_tokens",
    "max_prompt_tokens", "max_output_tokens", "ttft_slo_ms", "tpot_slo_ms", "max_batch",
    "prefix_cache_hit_rate", "gpu_hour_price", "safety_factor",
})
# Sharing pays when rows repeat configurations; below this many rows it is not worth grouping.
SHARE_MIN_ROWS = 32
_TEXT_RESULTS = frozenset(name for name, q in REGISTRY.items() if q.kind == "text")
_TEXT = pd.Series(["text"]).dtype  # what pandas makes of text: str (pandas 3) or object


@dataclass(frozen=True)
class Tables:
    """The tables lookups read: GPUs and models (index = catalog name) and efficiencies
    (index = efficiency key)."""

    gpus: pd.DataFrame
    models: pd.DataFrame
    efficiency: pd.DataFrame

    def table(self, prefix: str) -> pd.DataFrame:
        """The table a lookup prefix reads."""
        return {"gpu": self.gpus, "model": self.models, "eff": self.efficiency}[prefix]


def _column(frame: pd.DataFrame, name: str) -> Array:
    if name in schema.NUMBER_COLUMNS:
        return frame[name].to_numpy(dtype=float, na_value=np.nan)
    return frame[name].fillna("").to_numpy(dtype=object)


def input_arrays(scenarios: pd.DataFrame) -> dict[str, Array]:
    """The scenario columns the engine reads, as arrays: numbers as floats (blank NaN), text
    as objects (blank "")."""
    return {c.name: _column(scenarios, c.name) for c in schema.COLUMNS
            if c.name in scenarios.columns}


def _as_array(value: Any, n: int) -> Array:
    array = np.asarray(value)
    if array.ndim == 0:
        return np.full(n, value, dtype=object if isinstance(value, str) else float)
    if array.dtype.kind in "biuf":
        return np.asarray(array, dtype=float)
    return np.asarray(array, dtype=object)


@functools.cache
def needed(wanted: frozenset[str]) -> tuple[Quantity, ...]:
    """The quantities ``wanted`` and everything they depend on, in registry order."""
    need = set(wanted)
    for q in reversed(REGISTRY.values()):
        if q.name in need:
            for name in q.inputs:
                kind = input_kind(name)
                if kind == "lookup":
                    name = LOOKUP_KEYS[name.split("__", 1)[0]]
                    kind = input_kind(name)
                if kind == "quantity":
                    need.add(name)
    return tuple(q for q in REGISTRY.values() if q.name in need)


@functools.cache
def raw_dependencies(name: str) -> frozenset[str]:
    """The scenario columns quantity ``name`` reads, directly or through other quantities
    (a lookup reads the column that keys it)."""
    out: set[str] = set()
    for kind, item in keyed_inputs(name):
        if kind == "raw":
            out.add(item.removeprefix(RAW_PREFIX))
        elif kind == "quantity":
            out |= raw_dependencies(item)
    return frozenset(out)


@functools.cache
def quantity_dependencies(name: str) -> frozenset[str]:
    """The quantities ``name`` reads, directly or through other quantities (a lookup reads the
    quantity that positions it)."""
    out: set[str] = set()
    for kind, item in keyed_inputs(name):
        if kind == "quantity":
            out |= {item, *quantity_dependencies(item)}
    return frozenset(out)


@functools.cache
def shared_quantities(pinned: frozenset[str] = frozenset()) -> tuple[tuple[str, ...],
                                                                     tuple[str, ...]]:
    """The quantities that read no :data:`PER_ROW` input and no ``pinned`` quantity (the same
    for every row of a configuration), and the scenario columns they read (the
    configuration)."""
    shared = tuple(name for name in REGISTRY if name not in pinned
                   and not raw_dependencies(name) & PER_ROW
                   and not quantity_dependencies(name) & pinned)
    context = sorted(set().union(*(raw_dependencies(name) for name in shared)))
    return shared, tuple(context)


def evaluate(
    columns: Mapping[str, Array],
    n: int,
    tables: Tables,
    constants: Mapping[str, float | str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    wanted: Collection[str] | None = None,
) -> dict[str, Array]:
    """The quantities ``wanted`` (default: all) of ``n`` scenarios given as input arrays
    (:func:`input_arrays`); see :func:`estimate`. Only what the wanted quantities depend on
    is computed, so a search that ranks candidates by a few figures pays for those alone."""
    return _evaluated(columns, n, tables, constants, overrides, wanted)[0]


def arguments_of(name: str, columns: Mapping[str, Array], n: int, tables: Tables
                 ) -> tuple[Any, ...]:
    """What quantity ``name`` is computed from, one value per input in its order, as
    :func:`evaluate` passes them (e.g. to word a row's notes again in the reader's language)."""
    _env, resolve = _evaluated(columns, n, tables, None, None, (name,))
    return tuple(resolve(i) for i in REGISTRY[name].inputs)


def _evaluated(
    columns: Mapping[str, Array],
    n: int,
    tables: Tables,
    constants: Mapping[str, float | str] | None,
    overrides: Mapping[str, Any] | None,
    wanted: Collection[str] | None,
) -> tuple[dict[str, Array], Callable[[str], Any]]:
    """The quantities of :func:`evaluate` and how it found each input of a quantity."""
    values = {name: c.value for name, c in CONSTANTS.items()}
    values.update(constants or {})
    env: dict[str, Array] = {}
    indexers: dict[str, Array] = {}

    looked_up: dict[str, Array] = {}

    def lookup(name: str) -> Array:
        if name in looked_up:
            return looked_up[name]
        prefix, field = name.split("__", 1)
        table = tables.table(prefix)
        if prefix not in indexers:
            # the row key is a quantity evaluated before its lookups (the registry's order).
            # Read from env, not through resolve: two closures calling each other would be a
            # reference cycle keeping every array of this call alive until a garbage collection.
            rows = env[LOOKUP_KEYS[prefix]]
            if np.isnan(rows).any():
                raise KeyError(f"no {prefix} table row for {int(np.isnan(rows).sum())} scenarios")
            indexers[prefix] = rows.astype(np.intp) - 1
        column = table[field]
        data = column.to_numpy(dtype=float) if column.dtype.kind in "biuf" else column.to_numpy()
        looked_up[name] = taken(_as_array(data, len(data)), indexers[prefix])
        return looked_up[name]

    def resolve(name: str) -> Any:
        kind = input_kind(name)
        if kind == "raw":
            return columns[name.removeprefix(RAW_PREFIX)]
        if kind == "lookup":
            return lookup(name)
        if kind == "keys":
            return tables.table(name.removeprefix(KEYS_PREFIX)).index.to_numpy(dtype=object)
        if kind == "constant":
            return values[name]
        return env[name]

    pinned = dict(overrides or {})
    chain = tuple(REGISTRY.values()) if wanted is None else needed(frozenset(wanted))
    with known_codes():
        for q in chain:
            value = (pinned[q.name] if q.name in pinned
                     else q.compute(*(resolve(i) for i in q.inputs)))
            env[q.name] = _as_array(value, n)
    return env, resolve


def estimate(
    scenarios: pd.DataFrame,
    tables: Tables,
    constants: Mapping[str, float | str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """Every quantity for every scenario.

    ``scenarios`` is a validated frame (see validate.py): one row per scenario, every input column
    present, blanks as NaN (numbers) or "" (text), model and GPU as catalog names present in
    ``tables``. ``constants`` overrides values of units.CONSTANTS by name; ``overrides`` pins
    quantities (e.g. ``{"batch": 64}``) so that everything downstream is evaluated at that value,
    which is how the batch curves are drawn.
    """
    n = len(scenarios)
    env = evaluate_shared(input_arrays(scenarios), n, tables, constants, overrides)
    # text quantities as the dtype pandas gives text, said rather than inferred from every cell
    # (a million rows: 4 ms a column instead of 15)
    return pd.DataFrame({name: pd.Series(env[name], index=scenarios.index, dtype=_TEXT,
                                         copy=False) if name in _TEXT_RESULTS else env[name]
                         for name in RESULT_COLUMNS}, index=scenarios.index, copy=False)


def evaluate_shared(
    columns: Mapping[str, Array],
    n: int,
    tables: Tables,
    constants: Mapping[str, float | str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, Array]:
    """Every quantity of ``n`` scenarios, as :func:`evaluate` gives them, with the quantities of
    :func:`shared_quantities` computed once per distinct configuration."""
    shared, context = shared_quantities(frozenset(overrides or ()))
    if n < SHARE_MIN_ROWS or not shared:
        return evaluate(columns, n, tables, constants, overrides)
    with known_codes():  # the context's text columns are grouped again by per-row quantities
        groups, first = group_rows(columns, context, n)
        if len(first) > n // 2:
            return evaluate(columns, n, tables, constants, overrides)
        distinct = {name: columns[name][first] for name in context}
        for name in context:  # each row's inputs are its group's: compared once per group
            same_as_taken(columns[name], distinct[name], groups)
        once = evaluate(distinct, len(first), tables, constants, wanted=shared)
        pinned = {name: taken(once[name], groups) for name in shared}
        pinned.update(overrides or {})
        return evaluate(columns, n, tables, constants, pinned)
