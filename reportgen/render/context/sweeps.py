"""Batch sweeps for the charts: every registry quantity at a grid of batches, for every scenario
that fits, from one call of the engine (``overrides={"batch": grid}``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from reportgen import engine
from reportgen.plan import Plan
from reportgen.render.context.common import Row, as_float, fits


def _grid(row: Row) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Batches to draw: 1 to about twice the interesting limit, log-spaced, with B* included."""
    batch = as_float(row, "batch")
    reach = min(as_float(row, "batch_max_kv"), as_float(row, "max_batch"))
    top = min(8192.0, max(16.0, 2 * batch, 1.25 * reach))
    grid = np.unique(np.concatenate([np.round(np.geomspace(1, top, 40)), [batch]]))
    return grid.astype(float)


def sweeps(plan: Plan, rows: Sequence[Row]) -> dict[int, pd.DataFrame]:
    """Row index → the engine's results at each batch of its grid (scenarios that fit only)."""
    wanted = [i for i, r in enumerate(rows) if fits(r)]
    if not wanted:
        return {}
    grids = {i: _grid(rows[i]) for i in wanted}
    positions = [i for i in wanted for _ in range(len(grids[i]))]
    frame = plan.scenarios.iloc[positions].reset_index(drop=True)
    batches = np.concatenate([grids[i] for i in wanted])
    with np.errstate(all="ignore"):
        swept = engine.estimate(frame, plan.tables, overrides={"batch": batches})
    out: dict[int, pd.DataFrame] = {}
    start = 0
    for i in wanted:
        n = len(grids[i])
        out[i] = swept.iloc[start : start + n].reset_index(drop=True)
        start += n
    return out
