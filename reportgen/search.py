"""The search: every configuration a scenario row allows, planned in one vectorised pass.

A row whose GPU, tensor parallelism, precisions or engine say ``auto`` or list several values —
or whose tp is blank — stands for many concrete configurations (*candidates*). Candidates are
just more rows of the quantity registry: the row is repeated, the searched columns are set, and
all candidates are estimated together in chunks. Per row they are ranked: configurations that
meet every target first, then the lowest monthly cost, then fewer GPUs, then the lower TPOT
(then the order they were generated in, so ties are stable). Only a few candidates per row are
kept — the best :data:`KEEP` and the best of each GPU and tensor parallelism — so memory stays
bounded however large the search; the kept ones feed the choice, the alternatives and the levers.

Pure: no files, no printing. The choice between rows of one workload is :mod:`choose`'s.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen import schema
from reportgen.engine import Tables, estimate
from reportgen.xlfuncs import xl_round

# The columns a candidate sets; the others come from its row.
CONFIG: tuple[str, ...] = tuple(
    c for c in ("gpu", "tp", "pp", "weight_dtype", "kv_dtype", "engine") if c in schema.BY_NAME
)
KEEP = 10  # candidates kept per row besides the best on each GPU
CHUNK = 100_000  # candidates estimated at once (memory: ~1 KB per candidate)
INFEASIBLE = ("weights_do_not_fit", "slo_unreachable")
# A blank pp prefers single-node replicas: larger values are planned only when nothing fits.
_PREFERRED_WHEN_BLANK = {"pp": 1.0}
# Lower precisions `auto` adds on GPUs whose tensor cores run them (catalog throughput > 0).
_AUTO_WEIGHTS = (("fp8", "fp8_tflops"), ("fp4", "fp4_tflops"))
_AUTO_KV = ("fp8",)
_RANK_COLUMNS = ("infeasible", "nofit", "preference", "cost_key", "gpus_key", "tpot_key", "order")


@dataclass(frozen=True)
class Search:
    """What the search found.

    ``kept``: the kept candidates of every row, best first within a row: ``row`` (position of the
    scenario row), the CONFIG columns as the engine takes them, ``rank`` (1 = the row's best),
    and the figures the ranking used (``feasible``, ``monthly_cost``, ``gpus``, ``tpot_ms``,
    ``bottleneck``). ``evaluated``: candidates planned per row. ``searched``: per row, the CONFIG
    columns that were searched.
    """

    kept: pd.DataFrame
    evaluated: np.ndarray
    searched: tuple[tuple[str, ...], ...]

    def best(self) -> pd.DataFrame:
        """The best candidate of every row (one per row, in row order)."""
        return self.kept[self.kept["rank"] == 1].sort_values("row").reset_index(drop=True)


def searched_columns(scenarios: pd.DataFrame, specs: pd.DataFrame) -> list[tuple[str, ...]]:
    """Per row, the CONFIG columns it searches: those with a spec, and a blank tp or pp (tutorial
    rows reproduce the tutorial's single configuration and search nothing)."""
    out: list[tuple[str, ...]] = []
    tutorial = (scenarios["method"] == "tutorial").to_numpy()
    numbers = {c: scenarios[c].to_numpy(dtype=float) for c in ("tp", "pp") if c in CONFIG}
    spec_text = {c: specs[c].to_numpy(dtype=object) for c in CONFIG if c in specs}
    for i in range(len(scenarios)):
        cols = [c for c in CONFIG if (c in spec_text and spec_text[c][i])
                or (c in numbers and np.isnan(numbers[c][i]))]
        out.append(() if tutorial[i] else tuple(cols))
    return out


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
    if column in ("tp", "pp"):
        allowed = schema.TP_VALUES if column == "tp" else schema.BY_NAME[column].choices
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


def _grid(key: tuple[object, ...], tables: Tables) -> tuple[list[tuple[object, ...]], list[int]]:
    """Every configuration of one signature (see :func:`_signatures`), with its preference
    (0 = preferred, 1 = only if nothing preferred fits)."""
    n = len(CONFIG)
    specs = {c: str(v) for c, v in zip(CONFIG, key[:n], strict=True)}
    typed = dict(zip(CONFIG, key[n : 2 * n], strict=True))
    heads, kv_heads, tutorial = _number(key[2 * n]), _number(key[2 * n + 1]), bool(key[2 * n + 2])
    if tutorial:
        return [tuple(typed[c] for c in CONFIG)], [0]
    tp_searched = bool(specs["tp"]) or np.isnan(_number(typed["tp"]))
    blank_preferred = [c for c in _PREFERRED_WHEN_BLANK
                       if c in typed and not specs[c] and np.isnan(_number(typed[c]))]
    configs: list[tuple[object, ...]] = []
    preference: list[int] = []
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
    return configs, preference


def _number(value: object) -> float:
    return float(value)  # type: ignore[arg-type]


def _signatures(scenarios: pd.DataFrame, specs: pd.DataFrame,
                tables: Tables) -> dict[tuple[object, ...], np.ndarray]:
    """Rows grouped by what their candidates depend on (rows of a group share a grid): the
    signature → the rows' positions."""
    heads, kv_heads = _heads(scenarios, tables)
    frame = pd.DataFrame({
        **{f"spec_{c}": (specs[c].to_numpy(dtype=object) if c in specs else "") for c in CONFIG},
        **{f"typed_{c}": scenarios[c].to_numpy() for c in CONFIG},
        "heads": heads, "kv_heads": kv_heads,
        "tutorial": (scenarios["method"] == "tutorial").to_numpy(),
    })
    groups = frame.groupby(list(frame.columns), dropna=False, sort=False).indices
    return {tuple(key): np.asarray(rows)  # type: ignore[arg-type]
            for key, rows in groups.items()}


def _chunks(scenarios: pd.DataFrame, specs: pd.DataFrame, tables: Tables,
            size: int) -> Iterator[tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]]:
    """Candidates in chunks of about ``size``: source rows, CONFIG values, preferences."""
    groups = _signatures(scenarios, specs, tables)
    pending: list[tuple[np.ndarray, list[tuple[object, ...]], np.ndarray]] = []
    count = 0
    for key, rows in groups.items():
        configs, preference = _grid(key, tables)
        step = max(1, size // max(1, len(configs)))
        for start in range(0, len(rows), step):
            block = rows[start : start + step]
            pending.append((block, configs, np.asarray(preference)))
            count += len(block) * len(configs)
            if count >= size:
                yield _assemble(pending)
                pending, count = [], 0
    if pending:
        yield _assemble(pending)


def _assemble(
    pending: Sequence[tuple[np.ndarray, list[tuple[object, ...]], np.ndarray]],
) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
    rows: list[np.ndarray] = []
    columns: dict[str, list[np.ndarray]] = {c: [] for c in CONFIG}
    preferences: list[np.ndarray] = []
    for block, configs, preference in pending:
        rows.append(np.repeat(block, len(configs)))
        for c, values in zip(CONFIG, zip(*configs, strict=True), strict=True):
            columns[c].append(np.tile(np.asarray(values, dtype=object), len(block)))
        preferences.append(np.tile(preference, len(block)))
    config = {c: np.concatenate(v) for c, v in columns.items()}
    return np.concatenate(rows), config, np.concatenate(preferences)


def candidates_frame(scenarios: pd.DataFrame, rows: np.ndarray,
                     config: dict[str, np.ndarray]) -> pd.DataFrame:
    """Scenario rows ``rows`` with the CONFIG columns replaced: concrete inputs for the engine."""
    frame = scenarios.take(rows).reset_index(drop=True)
    for c, values in config.items():
        if c in schema.NUMBER_COLUMNS:
            frame[c] = np.asarray(values, dtype=float)
        else:
            frame[c] = np.asarray(values, dtype=object)
    return frame


def rank_fields(results: pd.DataFrame, preference: np.ndarray, order: np.ndarray) -> pd.DataFrame:
    """The figures candidates are ranked by (lower is better, in _RANK_COLUMNS order)."""
    bottleneck = results["bottleneck"].to_numpy(dtype=object)
    feasible = results["in_plan_total"].to_numpy(dtype=float) == 1
    tutorial = results["method"].to_numpy(dtype=object) == "tutorial"
    usable = feasible | (tutorial & (bottleneck != "weights_do_not_fit"))
    cost = results["monthly_cost"].to_numpy(dtype=float)
    priced = np.isfinite(cost)
    return pd.DataFrame({
        "infeasible": (~(usable & priced)).astype(np.int8),
        "nofit": (bottleneck == "weights_do_not_fit").astype(np.int8),
        "preference": preference.astype(np.int8),
        "cost_key": np.where(usable & priced, xl_round(np.where(priced, cost, 0.0), 2), np.inf),
        "gpus_key": np.where(usable, results["gpus"].to_numpy(dtype=float),
                             -results["tp"].to_numpy(dtype=float)),
        "tpot_key": results["tpot_ms"].to_numpy(dtype=float),
        "order": order,
    })


def _keep(frame: pd.DataFrame, keep: int) -> pd.DataFrame:
    """The best ``keep`` candidates of each row and the best of each GPU and tensor parallelism
    (what the levers and the cost-by-GPU chart read), best first."""
    frame = frame.sort_values(["row", *_RANK_COLUMNS], kind="stable")
    top = frame.groupby("row", sort=False).head(keep)
    per_gpu_tp = frame.groupby(["row", "gpu", "tp"], sort=False).head(1)
    return pd.concat([top, per_gpu_tp]).drop_duplicates("order").sort_values(
        ["row", *_RANK_COLUMNS], kind="stable")


def search(scenarios: pd.DataFrame, specs: pd.DataFrame, tables: Tables,
           keep: int = KEEP, chunk: int = CHUNK) -> Search:
    """Plan every candidate of every row; keep the best of each row (see the module doc).
    ``specs``: validate.ValidatedInput.specs (a missing column searches nothing)."""
    kept: list[pd.DataFrame] = []
    evaluated = np.zeros(len(scenarios), dtype=np.int64)
    offset = 0
    for rows, config, preference in _chunks(scenarios, specs, tables, chunk):
        results = estimate(candidates_frame(scenarios, rows, config), tables)
        order = np.arange(offset, offset + len(rows))
        offset += len(rows)
        # Kept configurations are stated as the registry resolved them (a blank precision as
        # the one the checkpoint ships in), so a kept row reads the same everywhere.
        frame = pd.DataFrame({"row": rows, **{c: results[c].to_numpy() for c in CONFIG}})
        frame = pd.concat([frame, rank_fields(results, preference, order)], axis=1)
        for name in ("monthly_cost", "gpus", "tpot_ms", "bottleneck"):
            frame[name] = results[name].to_numpy()
        frame["feasible"] = frame["infeasible"] == 0
        # Two candidates that resolve to the same configuration (a blank precision is the one
        # the checkpoint ships in) are one candidate: keep the first.
        if any((config[c] == "").any() for c in ("weight_dtype", "kv_dtype") if c in config):
            same = pd.DataFrame({"row": rows, **{c: results[c].to_numpy() for c in CONFIG}})
            frame = frame[~same.duplicated().to_numpy()]
        evaluated += np.bincount(frame["row"].to_numpy(), minlength=len(scenarios))
        kept.append(_keep(frame, keep))
    merged = _keep(pd.concat(kept, ignore_index=True), keep).reset_index(drop=True)
    merged["rank"] = merged.groupby("row").cumcount() + 1
    searched = tuple(searched_columns(scenarios, specs))
    return Search(merged, evaluated, searched)


def concrete(scenarios: pd.DataFrame, kept: pd.DataFrame) -> pd.DataFrame:
    """Scenario inputs for the given kept candidates (their ``row`` and CONFIG columns)."""
    return candidates_frame(scenarios, kept["row"].to_numpy(),
                            {c: kept[c].to_numpy() for c in CONFIG})
