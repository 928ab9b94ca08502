"""What one actuals file contributes: measures per workload and period, the span it covers,
time series for the autoscaling analysis, and notes on how it was read."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import pandas as pd

from reportgen.review.actuals.measures import KEYS, MEASURES, STACK

Span = tuple[dt.date, dt.date]  # first day, day after the last (UTC)


@dataclass(frozen=True)
class SourceData:
    """One file's actuals.

    ``periods`` has one row per workload and period: ``workload``, ``start`` and ``end``
    (dt.date, end exclusive), ``source`` (the file), every measure (NaN where this file does not
    give it) and the stack columns ("" where not given). ``series`` maps a workload to a frame
    indexed by timestamp (UTC) with ``replicas``, ``kv_usage`` (fleet mean, 0-1) and
    ``tpot_ms`` (mean time per output token in the interval), for the autoscaling analysis.
    """

    name: str
    kind: str
    periods: pd.DataFrame
    coverage: dict[str, Span]
    notes: tuple[str, ...] = ()
    series: dict[str, pd.DataFrame] = field(default_factory=dict)


def period_frame(rows: list[dict[str, object]], source: str) -> pd.DataFrame:
    """Rows (dicts with some measures) as a period table with every column."""
    frame = pd.DataFrame(rows)
    for column in KEYS:
        if column not in frame.columns:
            frame[column] = source if column == "source" else None
    for column in MEASURES:
        frame[column] = (pd.to_numeric(frame[column], errors="coerce").astype(float)
                         if column in frame.columns else float("nan"))
    for column in STACK:
        frame[column] = frame[column].fillna("").astype(str) if column in frame.columns else ""
    return frame[[*KEYS, *MEASURES, *STACK]].reset_index(drop=True)


def next_month(day: dt.date) -> dt.date:
    """The first day of the month after ``day``'s."""
    return (day.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
