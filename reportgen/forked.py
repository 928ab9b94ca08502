"""Work done by a forked process while this one goes on: a build writes its workbook while the
PDF is laid out.

The child inherits the parent's memory (the plan, the active language) without pickling it and
reports back only how the work ended: nothing, or the error a person should read, raised again
in the parent by :meth:`Forked.wait`. Where processes cannot be forked, or only one CPU core
is free, the work is done in place, at once.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any


def cores() -> int:
    """The CPU cores this process may use."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def worker_count(min_workers: int = 2) -> int:
    """Worker processes to fork for work split over cores: one per CPU core this process may
    use, or 0 (the work is done in place) with fewer than ``min_workers`` cores or no fork."""
    available = cores()
    return available if available >= min_workers and can_fork() else 0


def release_free_memory() -> None:
    """Hand the heap's free pages back to the system (glibc's ``malloc_trim``; elsewhere
    nothing): after a large file is read, hundreds of MB stay mapped but unused, and forked
    workers would inherit them."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library this process runs on
    except (OSError, AttributeError):  # not glibc
        return
    trim(0)


def _run(work: Callable[[], None], report: Connection) -> None:
    try:
        work()
    except BaseException as err:  # every ending, interrupts included, is reported
        try:
            report.send(err)
        except Exception:  # an error that cannot be pickled: its words
            report.send(RuntimeError(f"{type(err).__name__}: {err}"))
    else:
        report.send(None)
    finally:
        report.close()


class Forked:
    """Work started by :func:`start`."""

    def __init__(self, process: Any, result: Connection | None) -> None:
        self._process = process
        self._result = result

    def wait(self) -> None:
        """Wait until the work is done; raise its error, if it ended with one."""
        if self._process is None or self._result is None:
            return
        try:
            outcome = self._result.recv()
        except EOFError:  # the child died without a word (killed, out of memory)
            self._process.join()
            outcome = RuntimeError(f"a worker process ended with exit code "
                                   f"{self._process.exitcode} before finishing its work")
        finally:
            self._result.close()
            self._result = None
        self._process.join()
        if outcome is not None:
            raise outcome

    def cancel(self) -> None:
        """Stop the work if it still runs (the parent failed or was interrupted)."""
        if self._process is not None and self._process.is_alive():
            self._process.terminate()
            self._process.join()


def start(work: Callable[[], None], min_cores: int = 2) -> Forked:
    """``work()`` in a forked process while the caller goes on (in place, done already, with
    fewer than ``min_cores`` cores or no fork); :meth:`Forked.wait` for it."""
    if not worker_count(min_cores):
        work()
        return Forked(None, None)
    context = multiprocessing.get_context("fork")
    result, report = context.Pipe(duplex=False)
    process = context.Process(target=_run, args=(work, report), daemon=True)
    process.start()
    report.close()  # the child's end: a child that dies unheard reads as EOF here
    return Forked(process, result)
