"""The search: every configuration a scenario row allows, planned in one vectorised pass.

A row whose GPU, tensor or pipeline parallelism, precisions or engine say ``auto`` or list
several values — or whose tp is blank — stands for many concrete configurations (*candidates*).
Candidates are just more rows of the quantity registry: the row is repeated, the searched
columns are set, and all candidates are estimated together in chunks (only the quantities the
ranking reads). Per row they are ranked: configurations that meet every target first, then the
preference, then the lowest monthly cost, then fewer GPUs, then fewer pipeline stages, then the
lower TPOT (then the order they were generated in, so ties are stable). Only a few candidates
per row are kept — the best :data:`KEEP` and the best of each GPU and replica shape (tp × pp) —
so memory stays bounded however large the search; the kept ones feed the choice, the
alternatives and the levers.

A blank pp prefers single-node replicas: the search first plans pp = 1, and plans the
pipeline-parallel candidates of a row (marked ``preference`` 1) only when none of its
single-node ones meets the targets.

Pure: no files, no printing. The choice between rows of one workload is :mod:`choose`'s.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen import schema
from reportgen.engine import (
    PER_ROW,
    Tables,
    evaluate,
    input_arrays,
    needed,
    raw_dependencies,
)
from reportgen.xlfuncs import Array, group_rows, xl_round

# The columns a candidate sets; the others come from its row.
CONFIG: tuple[str, ...] = ("gpu", "tp", "pp", "attention_dp", "weight_dtype", "kv_dtype",
                           "engine")
KEEP = 10  # candidates kept per row besides the best of each GPU and replica shape
CHUNK = 100_000  # candidates estimated at once (memory: ~1 KB per candidate)
INFEASIBLE = ("weights_do_not_fit", "slo_unreachable")
# A blank pp prefers single-node replicas: larger values are planned only when nothing fits.
_PREFERRED_WHEN_BLANK = {"pp": 1.0}
# Lower precisions `auto` adds on GPUs whose tensor cores run them (catalog throughput > 0).
_AUTO_WEIGHTS = (("fp8", "fp8_tflops"), ("fp4", "fp4_tflops"))
_AUTO_KV = ("fp8",)
_RANK_COLUMNS = ("infeasible", "preference", "nofit", "cost_key", "gpus_key", "stages_key",
                 "tpot_key", "order")
# What the ranking and the kept candidates read of each candidate's estimate.
_FIGURES = ("monthly_cost", "gpus", "tpot_ms", "bottleneck")
_RANKED = frozenset({*CONFIG, *_FIGURES, "expert_weight_dtype", "in_plan_total", "method",
                     "priced"})
_RESOLVED = ("gpu", "tp", "pp", "weight_dtype", "expert_weight_dtype", "kv_dtype", "engine")
# Configuration inputs no quantity restates: kept as the candidate set them.
_AS_SET = ("attention_dp",)
# Precisions a candidate may leave blank (= as the checkpoint ships them): kept as typed too.
_AS_TYPED = ("weight_dtype", "kv_dtype")
INPUT_PREFIX = "input_"
# Quantities that read no PER_ROW input — the memory, the link and roofline rates, the precisions
# and efficiencies — are the same for every row of a configuration, so the search computes them
# once per distinct configuration and row context, and broadcasts them.
_SHARED = tuple(q.name for q in needed(_RANKED) if not raw_dependencies(q.name) & PER_ROW)
_CONTEXT = tuple(sorted(set().union(*(raw_dependencies(n) for n in _SHARED)) - set(CONFIG)))
_READ = frozenset().union(*(raw_dependencies(q.name) for q in needed(_RANKED))) - set(CONFIG)


@dataclass(frozen=True)
class Search:
    """What the search found.

    ``kept``: the kept candidates of every row, best first within a row: ``row`` (position of the
    scenario row), the CONFIG columns as the registry resolved them (a blank precision as the
    one the checkpoint ships in) and ``expert_weight_dtype``, the precisions as the candidate
    set them (``input_weight_dtype``, ``input_kv_dtype``: blank = as shipped), ``rank`` (1 =
    the row's best), ``preference`` and the figures the ranking used (``feasible``,
    ``monthly_cost``, ``gpus``, ``tpot_ms``, ``bottleneck``); :func:`engine_inputs` turns them
    back into inputs.
    ``evaluated``: candidates planned per row. ``searched``: per row, the CONFIG columns that
    were searched.
    """

    kept: pd.DataFrame
    evaluated: np.ndarray
    searched: tuple[tuple[str, ...], ...]

    def best(self) -> pd.DataFrame:
        """The best candidate of every row (one per row, in row order)."""
        return self.kept[self.kept["rank"] == 1].sort_values("row").reset_index(drop=True)


def searched_columns(scenarios: pd.DataFrame, specs: pd.DataFrame) -> list[tuple[str, ...]]:
    """Per row, the CONFIG columns it searches: those with a spec, and a blank tp (a blank pp
    is searched only when nothing single-node fits: :func:`search` adds it then; tutorial rows
    reproduce the tutorial's single configuration and search nothing)."""
    tutorial = (scenarios["method"] == "tutorial").to_numpy()
    blank_tp = np.isnan(scenarios["tp"].to_numpy(dtype=float))
    searches = np.zeros((len(scenarios), len(CONFIG)), dtype=bool)
    for j, c in enumerate(CONFIG):
        if c in specs:
            given = specs[c].to_numpy(dtype=object)
            searches[:, j] = np.fromiter(map(bool, given), dtype=bool, count=len(given))
        if c == "tp":
            searches[:, j] |= blank_tp
    searches[tutorial] = False
    # rows share few distinct patterns: each made into a tuple once
    bits = searches.astype(np.int64) @ (1 << np.arange(len(CONFIG), dtype=np.int64))
    patterns = {b: tuple(c for j, c in enumerate(CONFIG) if b >> j & 1)
                for b in np.unique(bits).tolist()}
    return [patterns[b] for b in bits.tolist()]


def _heads(scenarios: pd.DataFrame, tables: Tables) -> tuple[np.ndarray, np.ndarray]:
    models = tables.models.reindex(scenarios["model"])
    heads = np.where(scenarios["attention_heads"].isna(), models["attention_heads"],
                     scenarios["attention_heads"])
    kv = np.where(scenarios["kv_heads"].isna(), models["kv_heads"], scenarios["kv_heads"])
    return heads.astype(float), kv.astype(float)


def _tp_fits(tp: float, heads: float, kv_heads: float) -> bool:
    """Tensor parallelism splits attention heads evenly, and KV heads evenly or by replication."""
    t = int(tp)
    return heads % t == 0 and (kv_heads % t == 0 or t % kv_heads == 0)


def _values(column: str, spec: str, typed: object, gpu: str, tables: Tables) -> list[object]:
    """The values a row's column takes: its one value, or those its spec or blank stands for."""
    listed: list[object] = list(spec.split(schema.LIST_SEPARATOR)) if spec else [typed]
    if column == "gpu":
        if spec == schema.AUTO:
            gpus = tables.gpus
            return list(gpus.index[gpus["vendor"] != "user"])
        return listed
    if column == "attention_dp":
        if spec == schema.AUTO:
            return [0.0, 1.0]
        return ([float(v) for v in spec.split(schema.LIST_SEPARATOR)] if spec else
                [_number(typed)])
    if column in ("tp", "pp"):
        allowed = schema.TP_VALUES if column == "tp" else schema.PP_VALUES
        every = [float(v) for v in allowed]
        if spec == schema.AUTO:
            return list(every)
        if spec:
            return [float(v) for v in spec.split(schema.LIST_SEPARATOR)]
        return list(every) if np.isnan(_number(typed)) else [_number(typed)]
    if spec == schema.AUTO:
        if column == "engine":
            return list(schema.ENGINES)
        row = tables.gpus.loc[gpu]
        default = _blank_value(column)  # the precision a blank cell means
        if column == "weight_dtype":
            return [default, *(d for d, field in _AUTO_WEIGHTS if _number(row[field]) > 0)]
        return [default, *_AUTO_KV]
    return listed


def _blank_value(column: str) -> str:
    """What validation makes of a blank cell of a choice column: its default when that is one
    of the choices, else blank (the registry decides, e.g. the checkpoint's own precision)."""
    c = schema.BY_NAME[column]
    return c.default if c.default in c.choices else ""


@dataclass(frozen=True)
class _Grid:
    """Every configuration of one signature (see :func:`_signatures`): the CONFIG values as
    columns, each configuration's preference (0 = preferred, 1 = only if nothing preferred
    fits), its replica shape (an id per GPU, tp and pp within the grid) and an id unique in the
    search (``first`` + its position)."""

    columns: dict[str, np.ndarray]
    preference: np.ndarray
    shape: np.ndarray
    config: np.ndarray

    def take(self, mask: np.ndarray) -> _Grid:
        return _Grid({c: v[mask] for c, v in self.columns.items()}, self.preference[mask],
                     self.shape[mask], self.config[mask])


def _grid(key: tuple[object, ...], tables: Tables, first: int) -> _Grid:
    n = len(CONFIG)
    specs = {c: str(v) for c, v in zip(CONFIG, key[:n], strict=True)}
    typed = dict(zip(CONFIG, key[n : 2 * n], strict=True))
    heads, kv_heads, tutorial = _number(key[2 * n]), _number(key[2 * n + 1]), bool(key[2 * n + 2])
    if tutorial:
        configs = [tuple(typed[c] for c in CONFIG)]
        preference = [0]
    else:
        tp_searched = bool(specs["tp"]) or np.isnan(_number(typed["tp"]))
        blank_preferred = [c for c in _PREFERRED_WHEN_BLANK
                           if not specs[c] and np.isnan(_number(typed[c]))]
        configs, preference = [], []
        for gpu in _values("gpu", specs["gpu"], typed["gpu"], "", tables):
            per_column = [
                [gpu] if c == "gpu" else _values(c, specs[c], typed[c], str(gpu), tables)
                for c in CONFIG
            ]
            for config in itertools.product(*per_column):
                values = dict(zip(CONFIG, config, strict=True))
                if tp_searched and not _tp_fits(_number(values["tp"]), heads, kv_heads):
                    continue  # a searched tp takes only the parallelisms that split the heads
                configs.append(config)
                preference.append(int(any(
                    values[c] != _PREFERRED_WHEN_BLANK[c] for c in blank_preferred)))
    columns = {}
    for c, column in zip(CONFIG, zip(*configs, strict=True), strict=True):
        kind = float if c in schema.NUMBER_COLUMNS else object
        columns[c] = np.asarray(column, dtype=kind)
    shapes: dict[tuple[object, ...], int] = {}  # an id per GPU, tp and pp, in order of first
    shape = [shapes.setdefault(key, len(shapes))
             for key in zip(columns["gpu"].tolist(), columns["tp"].tolist(),
                            columns["pp"].tolist(), strict=True)]
    return _Grid(columns, np.asarray(preference, dtype=np.int8),
                 np.asarray(shape, dtype=np.int64),
                 np.arange(first, first + len(configs), dtype=np.int64))


def _number(value: object) -> float:
    return float(value)  # type: ignore[arg-type]


def _signatures(scenarios: pd.DataFrame, specs: pd.DataFrame,
                tables: Tables) -> dict[tuple[object, ...], np.ndarray]:
    """Rows grouped by what their candidates depend on (rows of a group share a grid): the
    signature → the rows' positions."""
    heads, kv_heads = _heads(scenarios, tables)
    n = len(scenarios)
    columns = [
        *((specs[c].to_numpy(dtype=object) if c in specs else np.full(n, "", dtype=object))
          for c in CONFIG),
        *(scenarios[c].to_numpy() for c in CONFIG),
        heads, kv_heads, (scenarios["method"] == "tutorial").to_numpy(),
    ]
    # grouped by value (NaN with NaN), groups in order of first appearance
    groups, _ = group_rows({str(k): c for k, c in enumerate(columns)},
                           [str(k) for k in range(len(columns))], n)
    order = np.argsort(groups, kind="stable")
    bounds = np.flatnonzero(np.diff(groups[order])) + 1
    out: dict[tuple[object, ...], np.ndarray] = {}
    for rows in np.split(order, bounds) if n else []:
        key = tuple(column[int(rows[0])] for column in columns)
        # numbers are grouped by bit pattern: 0.0 and -0.0 are two groups of one signature
        out[key] = np.concatenate([out[key], rows]) if key in out else rows
    return out


@dataclass(frozen=True)
class _Chunk:
    """Candidates estimated together: source rows, CONFIG values, preferences, shapes and
    configuration ids."""

    rows: np.ndarray
    config: dict[str, np.ndarray]
    preference: np.ndarray
    shape: np.ndarray
    ids: np.ndarray


def _chunks(scenarios: pd.DataFrame, specs: pd.DataFrame, tables: Tables, size: int,
            tier: int, only: np.ndarray | None = None) -> Iterator[_Chunk]:
    """Candidates of preference ``tier`` in chunks of about ``size`` (of the rows ``only``,
    default all)."""
    pending: list[tuple[np.ndarray, _Grid]] = []
    count = first = 0
    for key, rows in _signatures(scenarios, specs, tables).items():
        if only is not None:
            rows = rows[np.isin(rows, only)]
            if not len(rows):
                continue
        grid = _grid(key, tables, first)
        first += len(grid.config)
        grid = grid.take(grid.preference == tier)
        if not len(grid.preference):
            continue
        step = max(1, size // len(grid.preference))
        for start in range(0, len(rows), step):
            block = rows[start : start + step]
            pending.append((block, grid))
            count += len(block) * len(grid.preference)
            if count >= size:
                yield _assemble(pending)
                pending, count = [], 0
    if pending:
        yield _assemble(pending)


def _assemble(pending: Sequence[tuple[np.ndarray, _Grid]]) -> _Chunk:
    n = [len(g.preference) for _, g in pending]
    return _Chunk(
        np.concatenate([np.repeat(block, k) for (block, _), k in zip(pending, n, strict=True)]),
        {c: np.concatenate([np.tile(g.columns[c], len(block)) for block, g in pending])
         for c in CONFIG},
        np.concatenate([np.tile(g.preference, len(block)) for block, g in pending]),
        np.concatenate([np.tile(g.shape, len(block)) for block, g in pending]),
        np.concatenate([np.tile(g.config, len(block)) for block, g in pending]),
    )


def candidates_frame(scenarios: pd.DataFrame, rows: np.ndarray,
                     config: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """Scenario rows ``rows`` with the CONFIG columns replaced: concrete inputs for the engine."""
    frame = scenarios.take(rows).reset_index(drop=True)
    for c, values in config.items():
        if c in schema.NUMBER_COLUMNS:
            frame[c] = np.asarray(values, dtype=float)
        else:
            frame[c] = np.asarray(values, dtype=object)
    return frame


def _rank_arrays(results: Mapping[str, Array], preference: np.ndarray,
                 order: np.ndarray) -> dict[str, Array]:
    """The figures candidates are ranked by (lower is better, in _RANK_COLUMNS order)."""
    bottleneck = np.asarray(results["bottleneck"], dtype=object)
    feasible = np.asarray(results["in_plan_total"], dtype=float) == 1
    tutorial = np.asarray(results["method"], dtype=object) == "tutorial"
    nofit = bottleneck == "weights_do_not_fit"
    usable = feasible | (tutorial & ~nofit)
    cost = np.asarray(results["monthly_cost"], dtype=float)
    priced = np.isfinite(cost) & (np.asarray(results["priced"], dtype=float) == 1)
    return {
        "infeasible": (~(usable & priced)).astype(np.int8),
        "nofit": nofit.astype(np.int8),
        "preference": np.asarray(preference, dtype=np.int8),
        "cost_key": np.where(usable & priced, xl_round(np.where(priced, cost, 0.0), 2), np.inf),
        "gpus_key": np.where(usable, np.asarray(results["gpus"], dtype=float),
                             -np.asarray(results["tp"], dtype=float)),
        "stages_key": np.asarray(results["pp"], dtype=float),
        "tpot_key": np.asarray(results["tpot_ms"], dtype=float),
        "order": np.asarray(order),
    }


def rank_fields(results: pd.DataFrame, preference: np.ndarray, order: np.ndarray) -> pd.DataFrame:
    """The figures candidates are ranked by (lower is better, in _RANK_COLUMNS order)."""
    columns = {c: results[c].to_numpy() for c in ("bottleneck", "in_plan_total", "method",
                                                  "monthly_cost", "gpus", "tp", "pp", "tpot_ms",
                                                  "priced")}
    return pd.DataFrame(_rank_arrays(columns, preference, order), index=results.index)


def _best_positions(table: Mapping[str, Array], keep: int, shapes: bool = True) -> np.ndarray:
    """Positions of the best ``keep`` candidates of each row and (``shapes``) the best of each
    of its replica shapes (what the levers and the cost chart read), best first within a row."""
    keys = [table[c] for c in reversed(_RANK_COLUMNS)]
    ordered = np.lexsort([*keys, table["row"]])
    rows = table["row"][ordered]
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    within = np.arange(len(rows)) - np.repeat(starts, np.diff(np.r_[starts, len(rows)]))
    if not shapes:
        return ordered[within < keep]
    shape = rows.astype(np.int64) * (int(table["shape"].max()) + 1) + table["shape"][ordered]
    firsts = np.zeros(len(rows), dtype=bool)
    firsts[np.unique(shape, return_index=True)[1]] = True
    return ordered[(within < keep) | firsts]


def _row_contexts(inputs: Mapping[str, Array]) -> np.ndarray:
    """Per scenario row, an id of its values of the columns shared quantities read besides
    the configuration (rows with the same id share those quantities at each configuration)."""
    n = len(next(iter(inputs.values())))
    return np.asarray(group_rows(inputs, _CONTEXT, n)[0], dtype=np.int64)


def _estimate_chunk(chunk: _Chunk, inputs: Mapping[str, Array], contexts: np.ndarray,
                    tables: Tables, offset: int) -> dict[str, Array]:
    """One chunk's candidates estimated and ranked: a table of columns, one entry each. The
    shared quantities (``_SHARED``) are computed once per distinct row context and
    configuration and broadcast to the candidates."""
    key = contexts[chunk.rows] * (int(chunk.ids.max()) + 1) + chunk.ids
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    source = chunk.rows[first]
    distinct = {c: inputs[c][source] for c in _CONTEXT}
    distinct.update({c: values[first] for c, values in chunk.config.items()})
    shared = evaluate(distinct, len(first), tables, wanted=_SHARED)
    columns = {name: values[chunk.rows] for name, values in inputs.items() if name in _READ}
    columns.update(chunk.config)
    pinned = {name: shared[name][inverse] for name in _SHARED}
    results = evaluate(columns, len(chunk.rows), tables, overrides=pinned, wanted=_RANKED)
    order = np.arange(offset, offset + len(chunk.rows))
    table: dict[str, Array] = {"row": chunk.rows, "shape": chunk.shape}
    # Kept configurations are stated as the registry resolved them (a blank precision as the
    # one the checkpoint ships in), so a kept row reads the same everywhere.
    table.update({c: results[c] for c in _RESOLVED})
    table.update({c: chunk.config[c] for c in _AS_SET})
    table.update({INPUT_PREFIX + c: chunk.config[c] for c in _AS_TYPED})
    table.update(_rank_arrays(results, chunk.preference, order))
    table.update({name: results[name] for name in _FIGURES})
    if any((chunk.config[c] == "").any() for c in ("weight_dtype", "kv_dtype")):
        # Two candidates that resolve to the same configuration (a blank precision is the one
        # the checkpoint ships in) are one candidate: keep the first.
        same = pd.DataFrame({c: table[c] for c in ("row", *_RESOLVED, *_AS_SET)})
        first = ~same.duplicated().to_numpy()
        table = {name: values[first] for name, values in table.items()}
    return table


def search(scenarios: pd.DataFrame, specs: pd.DataFrame, tables: Tables,
           keep: int = KEEP, chunk: int = CHUNK, shapes: bool = True) -> Search:
    """Plan every candidate of every row; keep the best of each row (see the module doc).
    ``specs``: validate.ValidatedInput.specs (a missing column searches nothing); ``keep`` and
    ``shapes``: what is kept besides each row's best (a results file needs the runner-up only:
    ``keep=2, shapes=False``)."""
    specs = specs.reindex(columns=list(CONFIG), fill_value="")
    inputs = input_arrays(scenarios)
    contexts = _row_contexts(inputs)
    kept: list[dict[str, Array]] = []
    evaluated = np.zeros(len(scenarios), dtype=np.int64)
    fits = np.zeros(len(scenarios), dtype=bool)
    offset = 0
    staged: np.ndarray | None = None
    for tier in (0, 1):
        for part in _chunks(scenarios, specs, tables, chunk, tier, staged):
            table = _estimate_chunk(part, inputs, contexts, tables, offset)
            offset += len(part.rows)
            evaluated += np.bincount(table["row"], minlength=len(scenarios))
            fits[table["row"][table["infeasible"] == 0]] = True
            top = _best_positions(table, keep, shapes)
            kept.append({name: values[top] for name, values in table.items()})
        staged = np.flatnonzero(~fits)  # rows whose preferred candidates all miss the targets
        if not len(staged):
            break
    merged = {name: np.concatenate([t[name] for t in kept]) for name in kept[0]}
    positions = _best_positions(merged, keep, shapes)
    best = pd.DataFrame({name: values[positions] for name, values in merged.items()})
    best["rank"] = best.groupby("row").cumcount() + 1
    best["feasible"] = best["infeasible"] == 0
    searched = searched_columns(scenarios, specs)
    staged_rows = set(best.loc[best["preference"] == 1, "row"].tolist())
    with_pp = tuple((*cols, "pp") if i in staged_rows and "pp" not in cols else cols
                    for i, cols in enumerate(searched))
    return Search(best.drop(columns=["shape"]), evaluated, with_pp)


def engine_inputs(kept: pd.DataFrame) -> dict[str, np.ndarray]:
    """The CONFIG columns of kept candidates as the engine takes them: the precisions as the
    candidate set them (blank: as the checkpoint ships them, which a mixed checkpoint needs —
    no one value states MXFP4 experts beside bf16 attention — and which the notes say)."""
    out = {c: kept[c].to_numpy() for c in CONFIG}
    out.update({c: kept[INPUT_PREFIX + c].to_numpy(dtype=object) for c in _AS_TYPED})
    return out


def concrete(scenarios: pd.DataFrame, kept: pd.DataFrame) -> pd.DataFrame:
    """Scenario inputs for the given kept candidates (their ``row`` and CONFIG columns)."""
    return candidates_frame(scenarios, kept["row"].to_numpy(), engine_inputs(kept))
