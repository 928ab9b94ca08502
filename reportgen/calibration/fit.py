"""The fit of the efficiency table: per GPU family × compute precision ``mfu_prefill``,
``mfu_decode`` and ``mbu``, one shared ``step_overhead_ms``, and their cross-validation."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from reportgen.calibration.measurements import BATCH1_KINDS, THROUGHPUT_KINDS
from reportgen.calibration.scenarios import (
    Bench,
    BoolArray,
    Constants,
    FloatArray,
    Pin,
    efficiency_keys,
    predict,
)

# What the fit may move, and within which bounds.
GROUP_PARAMETERS = ("mfu_prefill", "mfu_decode", "mbu")  # per GPU family × compute precision
# ... and, in a group with at least MIN_MOE_ROWS measurements of mixture-of-experts models, the
# speed of their routed experts' grouped GEMMs relative to a dense layer's
MOE_PARAMETER = "moe_gemm_efficiency"
MIN_MOE_ROWS = 10
SHARED_PARAMETER = "step_overhead_ms"  # one value for every row: scheduler and launch overhead
BOUNDS: dict[str, tuple[float, float]] = {
    "mfu_prefill": (0.05, 0.8),
    "mfu_decode": (0.05, 0.8),
    "mbu": (0.2, 0.9),
    "moe_gemm_efficiency": (0.2, 1.0),
    "step_overhead_ms": (0.1, 10.0),
}
# where every fit starts
START = {"mfu_prefill": 0.5, "mfu_decode": 0.4, "mbu": 0.7, "moe_gemm_efficiency": 0.8}
BATCH1_WEIGHT = 0.25  # total weight of each batch-1 kind relative to the throughput rows


def _bounds(names: Sequence[str]) -> tuple[FloatArray, FloatArray]:
    return (np.array([BOUNDS[n][0] for n in names], dtype=np.float64),
            np.array([BOUNDS[n][1] for n in names], dtype=np.float64))


def _to_params(x: FloatArray, names: Sequence[str]) -> FloatArray:
    lo, hi = _bounds(names)
    return np.asarray(lo + (hi - lo) / (1 + np.exp(-x)), dtype=np.float64)


def _to_unbounded(params: FloatArray, names: Sequence[str]) -> FloatArray:
    lo, hi = _bounds(names)
    share = np.clip((params - lo) / (hi - lo), 1e-6, 1 - 1e-6)
    return np.asarray(np.log(share / (1 - share)), dtype=np.float64)


def nelder_mead(f: Callable[[FloatArray], float], x0: FloatArray, step: float = 0.5,
                iterations: int = 300, tolerance: float = 1e-7) -> FloatArray:
    """Minimise ``f`` from ``x0`` with the Nelder–Mead simplex (no gradients: the loss is only
    piecewise smooth in the efficiencies)."""
    n = len(x0)
    simplex = np.vstack([x0] + [x0 + step * np.eye(n)[i] for i in range(n)])
    values = np.array([f(x) for x in simplex])
    for _ in range(iterations):
        order = np.argsort(values)
        simplex, values = simplex[order], values[order]
        if values[-1] - values[0] < tolerance:
            break
        centroid = simplex[:-1].mean(axis=0)
        reflected = centroid + (centroid - simplex[-1])
        fr = f(reflected)
        if fr < values[0]:
            expanded = centroid + 2 * (centroid - simplex[-1])
            fe = f(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
            continue
        if fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
            continue
        toward = reflected if fr < values[-1] else simplex[-1]
        contracted = centroid + 0.5 * (toward - centroid)
        fc = f(contracted)
        if fc < min(fr, values[-1]):
            simplex[-1], values[-1] = contracted, fc
        else:
            simplex[1:] = simplex[0] + 0.5 * (simplex[1:] - simplex[0])
            values[1:] = [f(x) for x in simplex[1:]]
    return np.asarray(simplex[int(np.argmin(values))], dtype=np.float64)


def kind_weights(measurements: pd.DataFrame) -> FloatArray:
    """Row weights of the fit: throughput rows weigh 1 each; each batch-1 kind together weighs
    BATCH1_WEIGHT of the throughput rows, so a handful of batch-1 rows anchor the low-batch end
    (step overhead, weight read) without drowning or dominating."""
    kind = measurements["kind"].to_numpy()
    weights = np.ones(len(kind))
    n_throughput = max(int(np.isin(kind, THROUGHPUT_KINDS).sum()), 1)
    for k in BATCH1_KINDS:
        rows = kind == k
        if rows.any():
            weights[rows] = BATCH1_WEIGHT * n_throughput / rows.sum()
    return weights


def log_loss(predicted: FloatArray, measured: FloatArray, weights: FloatArray) -> float:
    """The fit's robust loss: weighted mean absolute log ratio (an L1 loss, so a few anomalous
    rows do not pull the efficiencies)."""
    ratio = predicted / measured
    if not (np.isfinite(ratio) & (ratio > 0)).all():
        return 1e6
    return float(np.sum(weights * np.abs(np.log(ratio))) / np.sum(weights))


@dataclass(frozen=True)
class GroupFit:
    """The fitted efficiencies of one efficiency-table row and how well they fit."""

    key: str
    params: dict[str, float]
    n: int
    loss: float
    weight: float  # total row weight (for pooling losses across rows)
    batch1: dict[str, tuple[float, int]]  # batch-1 kind → (sum of |log ratio|, rows)


def fit_group(bench: Bench, key: str, constants: Constants | None = None,
              pin: Pin | None = None, names: Sequence[str] = GROUP_PARAMETERS,
              anchor: float = 0.0) -> GroupFit:
    """Fit the parameters ``names`` (default: the group parameters) of efficiency row ``key``
    to ``bench`` (all of whose rows use that row); the others stay as the table has them.

    ``anchor`` > 0 adds ``anchor`` × the mean |log(value / starting value)| to the loss: a
    parameter the measurements do not determine then stays where it started instead of
    drifting along a flat valley (the load-test fit starts from the shipped row)."""
    table = bench.tables.efficiency
    measured = bench.measurements["measured"].to_numpy(dtype=float)
    weights = kind_weights(bench.measurements)
    start = table.loc[key, list(names)].to_numpy(dtype=np.float64)

    row = table.index.get_loc(key)
    columns = [table.columns.get_loc(n) for n in names]
    cells = [(row, c) for c in columns if isinstance(row, int) and isinstance(c, int)]

    def with_params(params: FloatArray) -> Bench:
        new = table.copy()
        if len(cells) == len(names):  # unique labels: set the cells by position (fast)
            for cell, value in zip(cells, params, strict=True):
                new.iat[cell] = value
        else:
            new.loc[key, list(names)] = params
        return bench.with_efficiency(new)

    def loss(x: FloatArray) -> float:
        params = _to_params(x, names)
        predicted = predict(with_params(params), constants, pin)
        drift = float(np.mean(np.abs(np.log(params / start)))) if anchor else 0.0
        return log_loss(predicted, measured, weights) + anchor * drift

    best = nelder_mead(loss, _to_unbounded(start, names))
    # restarts: Nelder–Mead can stall in a narrow valley (MBU traded for step overhead), so
    # restart from the best point until a restart no longer improves it
    value = loss(best)
    for step in (0.2, 0.5, 0.2):
        again = nelder_mead(loss, best, step=step)
        again_value = loss(again)
        if again_value >= value - 1e-9:
            break
        best, value = again, again_value
    params = _to_params(best, names)
    predicted = predict(with_params(params), constants, pin)
    kind = bench.measurements["kind"].to_numpy()
    errors = np.abs(np.log(predicted / measured))
    batch1 = {k: (float(errors[kind == k].sum()), int((kind == k).sum()))
              for k in BATCH1_KINDS if (kind == k).any()}
    return GroupFit(key, {n: float(v) for n, v in zip(names, params, strict=True)},
                    len(measured), log_loss(predicted, measured, weights), float(weights.sum()),
                    batch1)


@dataclass(frozen=True)
class Fit:
    """A fitted efficiency table: per-row fits and the shared step overhead."""

    table: pd.DataFrame
    groups: dict[str, GroupFit]
    step_overhead_ms: float
    loss: float  # pooled loss over every fit row
    batch1_loss: float  # mean over batch-1 sources of their mean |log ratio| (sets the overhead)


def _batch1_loss(groups: Sequence[GroupFit]) -> float:
    """Mean over batch-1 kinds of their mean |log ratio| across groups."""
    per_kind = []
    for k in BATCH1_KINDS:
        parts = [g.batch1[k] for g in groups if k in g.batch1]
        if parts:
            per_kind.append(sum(p[0] for p in parts) / sum(p[1] for p in parts))
    return float(np.mean(per_kind)) if per_kind else 0.0


def moe_rows(bench: Bench) -> BoolArray:
    """The throughput measurements of mixture-of-experts models."""
    experts = bench.tables.models["experts"].reindex(bench.measurements["model"])
    throughput = bench.measurements["kind"].isin(THROUGHPUT_KINDS).to_numpy(dtype=bool)
    return np.asarray(experts.to_numpy(dtype=float) > 0, dtype=bool) & throughput


def fit_groups(bench: Bench, start: pd.DataFrame, mask: BoolArray, overhead_ms: float,
               constants: Constants | None = None, pin: Pin | None = None,
               moe: bool = True) -> Fit:
    """Fit the group parameters of every efficiency row with rows in ``mask``, with the shared
    step overhead held at ``overhead_ms``; with ``moe``, also the MoE GEMM efficiency of a row
    with at least MIN_MOE_ROWS mixture-of-experts rows (the others keep the start table's)."""
    table = start.copy()
    table[SHARED_PARAMETER] = overhead_ms
    bench = bench.with_efficiency(table)
    keys = efficiency_keys(bench)
    experts = moe_rows(bench)
    groups: dict[str, GroupFit] = {}
    for key in sorted({str(k) for k in keys[mask]}):
        mine = mask & (keys == key)
        names = (*GROUP_PARAMETERS, MOE_PARAMETER) if (
            moe and (mine & experts).sum() >= MIN_MOE_ROWS) else GROUP_PARAMETERS
        group = fit_group(bench.subset(mine), key, constants, pin, names=names)
        table.loc[key, list(names)] = [group.params[n] for n in names]
        groups[key] = group
    total = sum(g.weight for g in groups.values())
    loss = sum(g.loss * g.weight for g in groups.values()) / total
    return Fit(table, groups, overhead_ms, loss, _batch1_loss(list(groups.values())))


def start_table(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with every row's group parameters at :data:`START`, so that a refit does not
    depend on the table it replaces."""
    out = table.copy()
    for name, value in START.items():
        out[name] = value
    return out


def _golden_section(f: Callable[[float], float], lo: float, hi: float, evaluations: int) -> None:
    """Evaluate ``f`` ``evaluations`` times (at least 2) narrowing a golden-section bracket of
    its minimum on [lo, hi]; the caller keeps what it needs of the evaluations."""
    ratio = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(max(evaluations - 2, 0)):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = f(d)


def fit(bench: Bench, start: pd.DataFrame, mask: BoolArray, constants: Constants | None = None,
        evaluations: int = 10) -> Fit:
    """Fit the shared step overhead and the group parameters.

    The throughput rows hardly identify the overhead (their loss changes by under 1 % between
    0.3 and 6 ms: a longer step is traded for a higher MBU), while in the batch-1 rows it is a
    direct term. So the overhead minimises the loss of the batch-1 rows, each source (TensorRT-LLM
    first-token latency, gpt-fast decode) counting equally (golden-section search on a log
    scale); for each trial value the group parameters are fitted on every fit row."""
    cache: dict[float, Fit] = {}
    warm = start

    def trial(log_overhead: float) -> float:
        nonlocal warm
        result = fit_groups(bench, warm, mask, math.exp(log_overhead), constants)
        warm = result.table
        cache[log_overhead] = result
        return result.batch1_loss

    lo, hi = (math.log(b) for b in BOUNDS[SHARED_PARAMETER])
    _golden_section(trial, lo, hi, evaluations)
    return min(cache.values(), key=lambda f: f.batch1_loss)


def cross_validate(bench: Bench, fitted: Fit, mask: BoolArray, folds: npt.NDArray[Any],
                   constants: Constants | None = None, moe: bool = True) -> FloatArray:
    """Out-of-fold predictions: for each fold label, refit the engine-release factor on the
    same-configuration pairs left among the training rows and the group parameters without
    that fold's rows (shared overhead kept), and predict its rows. An efficiency row with no
    training rows left in a fold keeps the fitted table's values (that fold is then not out of
    sample: the benchmark's folds avoid it); rows whose fold label is empty are not predicted
    (NaN)."""
    from reportgen.calibration.release import with_release_scale

    out = np.full(len(folds), np.nan)
    for label in sorted({f for f in folds if f != ""}):
        held = folds == label
        fold = with_release_scale(bench, mask & ~held)
        result = fit_groups(fold, fitted.table, mask & ~held, fitted.step_overhead_ms, constants,
                            moe=moe)
        out[held] = predict(fold.with_efficiency(result.table).subset(held), constants)
    return out


def architecture_folds(bench: Bench) -> npt.NDArray[np.object_]:
    """Fold labels that keep models of one architecture together (same layers, width, KV heads
    and experts: Llama-3-8B, Llama-3.1-8B and Mistral-7B share one; the Llama 70Bs another)."""
    models = bench.tables.models
    labels = {}
    for name in bench.measurements["model"].unique():
        row = models.loc[name]
        labels[name] = (f"L{row['layers']:.0f}-h{row['hidden_size']:.0f}-kv{row['kv_heads']:.0f}"
                        f"-e{row['experts']:.0f}")
    names = {}
    for label in sorted(set(labels.values())):
        names[label] = "+".join(sorted(n for n, lab in labels.items() if lab == label))
    return np.array([names[labels[m]] for m in bench.measurements["model"]], dtype=object)
