"""A results file of many rows, planned in blocks of whole workloads by a process per core.

A row's results depend on its own inputs but for two things: the rows of one workload compete
for the budget (choose.py), and every row carries the provenance, whose inputs digest holds each
row's simulated knee. So the rows are cut into consecutive *blocks* that split no workload
(:func:`workload_blocks`). A block with a row whose knee may be simulated (a P99 target) is cut
as small as that allows and planned first: the digest follows from those blocks' knees. Each
block is planned, stamped and turned into CSV text by a forked worker (the validated input is
inherited, not pickled), with a placeholder where the provenance goes; this process puts the
provenance in and writes the blocks out in order while the workers plan the next ones.

The text is byte for byte that of the whole file planned at once (tests hold it so); memory
holds a few blocks' results, not the file's; every core works. With one core, or where processes
cannot be forked, the blocks are planned here, one after the other.
"""

from __future__ import annotations

import datetime as dt
import gc
import io
import multiprocessing
import secrets
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np
import pandas as pd

from reportgen import forked
from reportgen.csv_text import quoted_field, write_csv
from reportgen.engine import evaluate, input_arrays, raw_dependencies
from reportgen.errors import OutputError
from reportgen.pipeline import make_plan, provenance_of
from reportgen.simulate.sizing import MAX_KNEE_ROWS, may_need_knee
from reportgen.stamp import provenance_json, stamped_results
from reportgen.validate import ValidatedInput

if TYPE_CHECKING:
    from reportgen.calibration.user_rows import UserCalibration

# Rows a worker plans at once (about 2.3 KB of results text each). Smaller blocks share the
# cores more evenly at the end of a file; each costs about 50 ms more. 100,000 rows on two
# cores: 6.5-6.7 s in blocks of 20,000, 6.0-6.1 s in blocks of 10,000 (5,000: 6.3-6.5 s).
BLOCK_ROWS = 10_000
AHEAD = 2  # blocks planned ahead of the one being written, per worker


@dataclass(frozen=True)
class Block:
    """Consecutive rows ``start`` to ``stop`` (excluded); ``first``: planned before the others
    (a row of it may have its knee simulated)."""

    start: int
    stop: int
    first: bool = False


def workload_blocks(keys: np.ndarray, rows: int, first: np.ndarray | None = None
                    ) -> list[Block]:
    """The rows cut into consecutive blocks, none splitting a workload (rows of equal
    ``keys``), each of at least ``rows`` rows where the workloads allow (the last may be
    shorter); a block holding a row marked in ``first`` is as short as the workloads allow."""
    n = len(keys)
    if n == 0:
        return []
    codes, _ = pd.factorize(keys)
    last = np.zeros(codes.max() + 1, dtype=np.intp)
    np.maximum.at(last, codes, np.arange(n))
    reach = np.maximum.accumulate(last[codes])  # the last row of any workload begun so far
    ends = (np.flatnonzero(reach == np.arange(n)) + 1).tolist()  # where a block may end
    marked = np.concatenate([[0], np.cumsum(first if first is not None else np.zeros(n))])
    blocks: list[Block] = []
    start = begun = 0  # the open block's first row; the current segment's first row
    for end in ends:
        if marked[end] > marked[begun]:
            if start < begun:
                blocks.append(Block(start, begun))
            blocks.append(Block(begun, end, first=True))
            start = end
        elif end - start >= rows:
            blocks.append(Block(start, end))
            start = end
        begun = end
    if start < n:
        blocks.append(Block(start, n))
    return blocks


def workload_keys(checked: ValidatedInput) -> np.ndarray:
    """Each row's workload as rows are grouped by it (the registry's ``workload_key``)."""
    frame = checked.scenarios
    columns = input_arrays(frame[[c for c in frame.columns
                                  if c in raw_dependencies("workload_key")]])
    return evaluate(columns, len(frame), checked.tables, wanted=("workload_key",))["workload_key"]


@dataclass(frozen=True)
class _Job:
    """What every block is planned from (a forked worker inherits it)."""

    checked: ValidatedInput
    input_name: str
    generated: dt.date
    calibration: UserCalibration | None
    placeholder: str


_job: _Job | None = None


def _planned(start: int, stop: int) -> tuple[bytes, np.ndarray, tuple[str, ...]]:
    """The CSV text of rows ``start`` to ``stop`` (the column names first if they are the
    file's first rows), their knees as planned, and the efficiency keys of yours they use."""
    assert _job is not None
    checked = _job.checked
    rows = slice(start, stop)
    block = replace(checked, scenarios=checked.scenarios.iloc[rows],
                    specs=None if checked.specs is None else checked.specs.iloc[rows])
    plan = make_plan(block, _job.input_name, generated=_job.generated,
                     calibration=_job.calibration, results_only=True, digested=False)
    text = io.StringIO()
    write_csv(stamped_results(plan, _job.placeholder), text, header=start == 0)
    used = () if plan.calibration is None else plan.calibration.used
    return text.getvalue().encode("utf-8"), plan.typed["knee_rps"].to_numpy(dtype=float), used


class _InPlace(Executor):
    """Work done at once, here (one core, or no fork)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as err:
            future.set_exception(err)
        return future


def write_results(checked: ValidatedInput, input_name: str, target: BinaryIO,
                  calibration: UserCalibration | None = None,
                  generated: dt.date | None = None, rows: int = BLOCK_ROWS,
                  workers: int | None = None,
                  written: Callable[[int], None] | None = None) -> UserCalibration | None:
    """Plan ``checked`` for a results file (as ``make_plan(results_only=True)``) and write its
    stamped results to ``target`` as UTF-8 CSV, a block of ``rows`` rows at a time by
    ``workers`` processes (default: one per core; none for a single block), telling
    ``written`` how many rows are out after each block; the calibration with the keys the plan
    uses. A failure after the first rows were written is an OutputError that says so."""
    global _job
    generated = generated or dt.date.today()
    n = len(checked.scenarios)
    knee = may_need_knee(checked.scenarios)
    if knee.sum() > MAX_KNEE_ROWS:  # planned whole: the plan stops and says why
        blocks = [Block(0, n, first=True)]
    else:
        blocks = workload_blocks(workload_keys(checked), rows, knee)
    if workers is None:
        workers = forked.worker_count() if len(blocks) > 1 else 0
    placeholder = f"provenance-{secrets.token_hex(8)}"
    _job = _Job(checked, input_name, generated, calibration, placeholder)
    pool: Executor = _InPlace()
    if workers:  # forked at the first block
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
        forked.release_free_memory()  # what reading the file freed is not handed to the workers
    gc.freeze()  # the workers' collections leave the inherited objects (and their pages) alone
    try:
        with pool:
            used = _write_blocks(pool, blocks, max(workers, 1) * AHEAD, target, placeholder,
                                 checked, input_name, generated, written or (lambda _: None))
    finally:
        gc.unfreeze()
        _job = None
    if calibration is None:
        return None
    return replace(calibration, used=tuple(k for k in calibration.keys if k in used))


def _write_blocks(pool: Executor, blocks: list[Block], ahead: int, target: BinaryIO,
                  placeholder: str, checked: ValidatedInput, input_name: str,
                  generated: dt.date, written: Callable[[int], None]) -> set[str]:
    first = {i: pool.submit(_planned, b.start, b.stop) for i, b in enumerate(blocks) if b.first}
    waiting = deque(i for i, b in enumerate(blocks) if not b.first)
    running: dict[int, Future[tuple[bytes, np.ndarray, tuple[str, ...]]]] = {}

    def keep_busy() -> None:
        while waiting and len(running) < ahead:
            i = waiting.popleft()
            running[i] = pool.submit(_planned, blocks[i].start, blocks[i].stop)

    keep_busy()
    knees = checked.scenarios["knee_rps"].to_numpy(dtype=float)
    typed_knees = knees.copy()
    used: set[str] = set()
    held: dict[int, bytes] = {}
    for i, future in first.items():
        held[i], block_knees, keys = future.result()
        typed_knees[blocks[i].start:blocks[i].stop] = block_knees
        used.update(keys)
    typed = checked.scenarios
    if not np.array_equal(typed_knees, knees, equal_nan=True):
        typed = typed.assign(knee_rps=typed_knees)  # the other columns shared, not copied
    provenance = provenance_of(checked, typed, input_name, generated=generated)
    stamp = quoted_field(provenance_json(provenance)).encode("utf-8")
    mark = placeholder.encode("ascii")
    for i, block in enumerate(blocks):
        if i in held:
            text = held.pop(i)
        else:
            try:
                text, _, keys = running.pop(i).result()
            except Exception as err:
                if not block.start:
                    raise
                raise OutputError(
                    f"stopped after {block.start:,} of {blocks[-1].stop:,} rows: {err}. The "
                    "results written so far are incomplete: do not use them."
                ) from err
            used.update(keys)
            keep_busy()
        target.write(text.replace(mark, stamp))  # a closed pipe (`| head`) is the caller's
        written(block.stop)
    return used
