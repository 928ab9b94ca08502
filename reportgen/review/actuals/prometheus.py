"""vLLM's Prometheus metrics, exported with the Prometheus HTTP API range query.

The file is the JSON body of ``GET /api/v1/query_range`` (``{"status": "success", "data":
{"resultType": "matrix", "result": [{"metric": {labels}, "values": [[unix_seconds, "value"],
...]}, ...]}}``), or a JSON array of such bodies (one per query), optionally gzip-compressed
(``.json.gz``). Series must be raw (query the metric names, e.g. ``{__name__=~"vllm:.*"}``),
not ``rate()`` or ``sum()`` results: counters are differenced here, per series, with counter
resets (a restarted server starts again from 0) handled as Prometheus's ``increase()`` does.

Read, per workload (label ``workload`` if the scrape adds one, else vLLM's ``model_name``) and
calendar month (UTC):

* ``vllm:request_success_total``, ``vllm:prompt_tokens_total``, ``vllm:generation_tokens_total``:
  requests, prompt and output tokens (sum of increments); with a step of 60 s or less, the peak
  rate: the 99th percentile of the fleet's 1-minute request rates;
* ``vllm:time_to_first_token_seconds``: TTFT mean (``_sum``/``_count``) and p50/p99 (bucket
  interpolation, as ``histogram_quantile``);
* time per output token: the mean from the inter-token latency histogram
  (``vllm:inter_token_latency_seconds``; before vLLM 0.11 the same histogram was named
  ``vllm:time_per_output_token_seconds``), which is the per-token mean the plan's TPOT is;
  p50/p99 from ``vllm:request_time_per_output_token_seconds`` (per request, vLLM ≥ 0.11) when
  present, else from the inter-token histogram (per token gaps, noted);
* ``vllm:kv_cache_usage_perc`` (``vllm:gpu_cache_usage_perc`` before 0.9; a fraction 0-1):
  mean and p95 over samples; ``vllm:num_requests_running``: sequences per replica, weighted by
  the sequences running (the batch an output token saw on average).
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reportgen.errors import ActualsError
from reportgen.review.actuals.source import SourceData, Span, next_month, period_frame

KIND = "Prometheus range query of vLLM metrics"
MAX_BYTES = 512 * 2**20
MAX_GAP_S = 24 * 3600.0  # a hole longer than a day in a workload's samples is a missing period
PEAK_WINDOW_S = 60.0  # the peak rate is the p99 of 1-minute rates: only a step this fine gives it
COUNTERS = {
    "vllm:request_success": "requests",
    "vllm:prompt_tokens": "prompt_tokens",
    "vllm:generation_tokens": "output_tokens",
    "vllm:num_preemptions": "preemptions",
}
HISTOGRAMS = {
    "vllm:time_to_first_token_seconds": "ttft",
    "vllm:inter_token_latency_seconds": "itl",
    "vllm:time_per_output_token_seconds": "itl_before_0_11",
    "vllm:request_time_per_output_token_seconds": "tpot",
}
GAUGES = {
    "vllm:kv_cache_usage_perc": "kv",
    "vllm:gpu_cache_usage_perc": "kv_before_0_9",
    "vllm:num_requests_running": "running",
    "vllm:num_requests_waiting": "waiting",
}


@dataclass(frozen=True)
class _Series:
    family: str  # a key of COUNTERS/HISTOGRAMS/GAUGES values, e.g. "ttft"
    part: str  # "counter", "bucket", "sum", "count" or "gauge"
    workload: str
    instance: str  # the series' labels other than __name__, le and finished_reason
    le: float  # buckets only
    t: np.ndarray
    v: np.ndarray


def _load(path: Path) -> Any:
    try:
        data = path.read_bytes()
        if len(data) > MAX_BYTES:
            raise ActualsError([f"{path}: {len(data) / 2**20:,.0f} MiB; the limit is "
                                f"{MAX_BYTES / 2**20:,.0f} MiB. Export a coarser step."])
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        return json.loads(data)
    except (OSError, EOFError, gzip.BadGzipFile) as err:
        raise ActualsError([f"{path}: cannot be read ({err})."]) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ActualsError([f"{path}: not JSON ({err}); expected the body of a Prometheus "
                            "/api/v1/query_range response."]) from None


def _bodies(path: Path, document: Any, problems: list[str]) -> list[dict[str, Any]]:
    bodies = document if isinstance(document, list) else [document]
    good = []
    for k, body in enumerate(bodies, start=1):
        where = f"{path}" + (f", response {k}" if len(bodies) > 1 else "")
        if not isinstance(body, dict) or "data" not in body:
            problems.append(f"{where}: not a Prometheus API response (no \"data\").")
        elif body.get("status") != "success":
            problems.append(f"{where}: the query failed ({body.get('errorType', '')}: "
                            f"{body.get('error', 'status ' + str(body.get('status')))}).")
        elif body["data"].get("resultType") != "matrix":
            kind = body["data"].get("resultType")
            problems.append(f"{where}: resultType {kind!r}; expected \"matrix\" (a range query, "
                            "/api/v1/query_range with start, end and step).")
        else:
            good.append(body)
    return good


def _family(name: str) -> tuple[str, str] | None:
    base = name.removesuffix("_total")
    if base in COUNTERS:
        return COUNTERS[base], "counter"
    if name in GAUGES:
        return GAUGES[name], "gauge"
    for suffix, part in (("_bucket", "bucket"), ("_sum", "sum"), ("_count", "count")):
        if name.endswith(suffix) and name.removesuffix(suffix) in HISTOGRAMS:
            return HISTOGRAMS[name.removesuffix(suffix)], part
    return None


def _series(path: Path, bodies: list[dict[str, Any]], problems: list[str],
            ignored: set[str]) -> list[_Series]:
    out = []
    for body in bodies:
        for item in body["data"].get("result", []):
            labels = dict(item.get("metric", {}))
            name = labels.pop("__name__", None)
            if name is None:
                problems.append(f"{path}: a series without __name__ ({labels}): the result of "
                                "rate(), sum() or another function. Export the raw metrics "
                                "(query the metric names) so counters can be differenced here.")
                continue
            kind = _family(str(name))
            if kind is None:
                ignored.add(str(name))
                continue
            workload = labels.get("workload") or labels.get("model_name")
            if not workload:
                problems.append(f"{path}: series {name} has neither a workload nor a model_name "
                                "label; add a workload label in the scrape configuration.")
                continue
            try:
                pairs = np.array([[float(t), float(v)] for t, v in item.get("values", [])],
                                 dtype=float).reshape(-1, 2)
                le = float(labels.get("le", "nan"))
            except (TypeError, ValueError):
                problems.append(f"{path}: series {name} {labels} has values that are not "
                                "[timestamp, \"number\"] pairs.")
                continue
            pairs = pairs[~np.isnan(pairs[:, 1])]
            order = np.argsort(pairs[:, 0], kind="stable")
            instance = ",".join(f"{k}={labels[k]}" for k in sorted(labels)
                                if k not in ("le", "finished_reason", "workload"))
            out.append(_Series(kind[0], kind[1], str(workload), instance, le,
                               pairs[order, 0], pairs[order, 1]))
    return out


def increments(v: np.ndarray) -> tuple[np.ndarray, int]:
    """A counter's increase between consecutive samples, and how many resets it had: a sample
    below the previous one means the counter restarted from 0, so its value is the increase
    (what Prometheus's ``increase()`` and ``rate()`` assume)."""
    delta = np.diff(v)
    reset = delta < 0
    return np.where(reset, v[1:], delta), int(reset.sum())


def quantile(q: float, bounds: np.ndarray, counts: np.ndarray) -> float:
    """``histogram_quantile``: the q-quantile of a histogram with cumulative ``counts`` at upper
    ``bounds`` (ascending, +Inf last), interpolating linearly within the bucket; NaN when
    empty. A quantile in the +Inf bucket is the highest finite bound."""
    total = counts[-1] if len(counts) else 0.0
    if total <= 0:
        return float("nan")
    rank = q * total
    k = int(np.searchsorted(counts, rank, side="left"))
    k = min(k, len(counts) - 1)
    if math.isinf(bounds[k]):
        return float(bounds[k - 1]) if k > 0 else float("nan")
    lower = bounds[k - 1] if k > 0 else 0.0
    below = counts[k - 1] if k > 0 else 0.0
    inside = counts[k] - below
    if inside <= 0:
        return float(bounds[k])
    return float(lower + (bounds[k] - lower) * (rank - below) / inside)


def _day(t: float) -> dt.date:
    return dt.datetime.fromtimestamp(t, dt.UTC).date()


def _month_edges(span: Span) -> list[tuple[dt.date, dt.date]]:
    edges, start = [], span[0]
    while start < span[1]:
        end = min(next_month(start), span[1])
        edges.append((start, end))
        start = end
    return edges


def _epoch(day: dt.date) -> float:
    return dt.datetime.combine(day, dt.time(), dt.UTC).timestamp()


class _Workload:
    """Everything one workload's series say, gathered per interval (by the interval's start)."""

    def __init__(self, series: list[_Series]) -> None:
        self.series = series
        self.resets: set[tuple[str, float]] = set()  # (instance, time) of each restart seen
        self.reset_series = 0
        self._steps: dict[tuple[str, str], pd.DataFrame] = {}

    def by(self, family: str, part: str) -> list[_Series]:
        return [s for s in self.series if s.family == family and s.part == part]

    def counter_steps(self, family: str, part: str = "counter") -> pd.DataFrame:
        """Per series increments as (t: interval start, dt, inc, le), computed once."""
        if (family, part) not in self._steps:
            self._steps[family, part] = self._increments(family, part)
        return self._steps[family, part]

    def _increments(self, family: str, part: str) -> pd.DataFrame:
        frames = []
        for s in self.by(family, part):
            if len(s.t) < 2:
                continue
            inc, resets = increments(s.v)
            if resets:
                self.reset_series += 1
                self.resets.update((s.instance, float(t)) for t in s.t[1:][np.diff(s.v) < 0])
            frames.append(pd.DataFrame({"t": s.t[:-1], "dt": np.diff(s.t), "inc": inc,
                                        "le": s.le}))
        if not frames:
            return pd.DataFrame({"t": [], "dt": [], "inc": [], "le": []}, dtype=float)
        return pd.concat(frames, ignore_index=True)

    def gauge_samples(self, *families: str) -> pd.DataFrame:
        for family in families:
            found = self.by(family, "gauge")
            if found:
                return pd.concat([pd.DataFrame({"t": s.t, "v": s.v, "instance": s.instance})
                                  for s in found], ignore_index=True)
        return pd.DataFrame({"t": [], "v": [], "instance": []})


def _in(frame: pd.DataFrame, start: dt.date, end: dt.date) -> pd.DataFrame:
    return frame[(frame["t"] >= _epoch(start)) & (frame["t"] < _epoch(end))]


def _histogram(steps: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    by_le = steps.groupby("le")["inc"].sum().sort_index()
    return by_le.index.to_numpy(dtype=float), np.maximum.accumulate(by_le.to_numpy(dtype=float))


def _latency(w: _Workload, family: str, start: dt.date, end: dt.date) -> dict[str, float]:
    total = _in(w.counter_steps(family, "sum"), start, end)["inc"].sum()
    count = _in(w.counter_steps(family, "count"), start, end)["inc"].sum()
    bounds, counts = _histogram(_in(w.counter_steps(family, "bucket"), start, end))
    return {
        "mean": 1000 * total / count if count > 0 else float("nan"),
        "p50": 1000 * quantile(0.5, bounds, counts) if len(bounds) else float("nan"),
        "p99": 1000 * quantile(0.99, bounds, counts) if len(bounds) else float("nan"),
    }


def _period(w: _Workload, itl: str, start: dt.date, end: dt.date, step: float
            ) -> dict[str, object]:
    row: dict[str, object] = {"start": start, "end": end}
    for family in ("requests", "prompt_tokens", "output_tokens"):
        row[family] = _in(w.counter_steps(family), start, end)["inc"].sum()
    rates = _in(w.counter_steps("requests"), start, end)
    if len(rates) and step <= PEAK_WINDOW_S:
        fleet = rates.groupby("t").agg(inc=("inc", "sum"), dt=("dt", "max"))
        row["peak_qps"] = float(np.quantile(fleet["inc"] / fleet["dt"], 0.99))
    ttft = _latency(w, "ttft", start, end)
    row.update(ttft_mean_ms=ttft["mean"], ttft_p50_ms=ttft["p50"], ttft_p99_ms=ttft["p99"])
    per_token = _latency(w, itl, start, end)
    row["tpot_mean_ms"] = per_token["mean"]
    per_request = _latency(w, "tpot", start, end) if w.by("tpot", "bucket") else per_token
    row.update(tpot_p50_ms=per_request["p50"], tpot_p99_ms=per_request["p99"])
    kv = _in(w.gauge_samples("kv", "kv_before_0_9"), start, end)["v"].to_numpy(dtype=float)
    if len(kv):
        row.update(kv_cache_usage_mean=float(kv.mean()),
                   kv_cache_usage_p95=float(np.quantile(kv, 0.95)))
    running = _in(w.gauge_samples("running"), start, end)["v"].to_numpy(dtype=float)
    if running.sum() > 0:
        row["running_mean"] = float((running**2).sum() / running.sum())
    return row


def _series_for_autoscaling(w: _Workload, itl: str) -> pd.DataFrame:
    kv = w.gauge_samples("kv", "kv_before_0_9")
    if kv.empty:
        return pd.DataFrame()
    fleet = kv.groupby("t").agg(kv_usage=("v", "mean"), replicas=("instance", "nunique"))
    sums = w.counter_steps(itl, "sum").groupby("t")["inc"].sum()
    counts = w.counter_steps(itl, "count").groupby("t")["inc"].sum()
    tpot = (1000 * sums / counts.where(counts > 0)).rename("tpot_ms")
    return fleet.join(tpot, how="left")


def _coverage(series: list[_Series], step: float) -> tuple[Span, list[tuple[float, float]]]:
    times = np.unique(np.concatenate([s.t for s in series]))
    first, last = float(times[0]), float(times[-1])
    start = _day(first) if first - _epoch(_day(first)) < step else _day(first + 86400)
    end = _day(last + step)
    gaps = np.diff(times)
    holes = [(float(times[i]), float(times[i + 1])) for i in np.flatnonzero(gaps > 1.5 * step)]
    return (start, end), holes


def read_prometheus(path: Path, document: Any | None = None) -> SourceData:
    """Read a query_range export of vLLM metrics (see the module docstring)."""
    document = _load(path) if document is None else document
    problems: list[str] = []
    bodies = _bodies(path, document, problems)
    ignored: set[str] = set()
    series = _series(path, bodies, problems, ignored)
    if not problems and not any(s.family == "requests" for s in series):
        problems.append(f"{path}: no vllm:request_success_total series; export the request, "
                        "prompt and generation token counters (see docs/retrospective.md).")
    if problems:
        raise ActualsError(problems)
    steps = [float(np.median(np.diff(s.t))) for s in series if len(s.t) > 1]
    step = float(np.median(steps)) if steps else 60.0
    notes: list[str] = []
    rows: list[dict[str, object]] = []
    coverage: dict[str, Span] = {}
    autoscaling: dict[str, pd.DataFrame] = {}
    grouped: dict[str, list[_Series]] = defaultdict(list)
    for s in series:
        grouped[s.workload].append(s)
    for workload, members in grouped.items():
        w = _Workload(members)
        span, holes = _coverage(members, step)
        coverage[workload] = span
        for a, b in holes:
            if b - a > MAX_GAP_S:
                problems.append(f"{path}: workload {workload!r} has no samples from "
                                f"{_stamp(a)} to {_stamp(b)} (a missing period); export the "
                                "whole quarter, or give those days in the actuals template.")
        short = [b - a for a, b in holes if b - a <= MAX_GAP_S]
        if short:
            notes.append(f"{workload}: {len(short)} gap(s) in the samples, {sum(short) / 3600:,.1f}"
                         " h in all (counters carry across them; gauges and latency miss them).")
        itl = "itl" if w.by("itl", "bucket") else "itl_before_0_11"
        if w.by("itl", "bucket") and w.by("itl_before_0_11", "bucket"):
            notes.append(f"{workload}: both vllm:inter_token_latency_seconds and its pre-0.11 "
                         "name vllm:time_per_output_token_seconds are exported; the new name "
                         "is read, the old one ignored.")
        elif itl == "itl_before_0_11" and w.by(itl, "bucket"):
            notes.append(f"{workload}: time per output token from "
                         "vllm:time_per_output_token_seconds, which before vLLM 0.11 measured "
                         "the inter-token latency (per token gap); its mean is the per-token "
                         "TPOT.")
        if not w.by("tpot", "bucket") and w.by(itl, "bucket"):
            notes.append(f"{workload}: TPOT p50/p99 are per-token gaps (inter-token latency); "
                         "vLLM ≥ 0.11's vllm:request_time_per_output_token_seconds gives them "
                         "per request.")
        for start, end in _month_edges(span):
            rows.append({"workload": workload, **_period(w, itl, start, end, step)})
        for name in ("requests", "prompt_tokens", "output_tokens"):
            w.counter_steps(name)
        if w.resets:
            restarts = len(w.resets)
            notes.append(f"{workload}: {restarts} server restart(s) seen as counter resets (in "
                         f"{w.reset_series} series, counted again from 0 as Prometheus's "
                         "increase() does).")
        table = _series_for_autoscaling(w, itl)
        if not table.empty:
            autoscaling[workload] = table
    if problems:
        raise ActualsError(problems)
    if step > PEAK_WINDOW_S:
        notes.append(f"No peak request rate: the export's step is {step:,.0f} s, and the peak is "
                     "the p99 of 1-minute rates (export step=60s, or give peak_qps in the "
                     "actuals template).")
    if ignored:
        notes.append(f"{len(ignored)} other metric(s) ignored: {', '.join(sorted(ignored)[:6])}"
                     + ("…" if len(ignored) > 6 else "") + ".")
    return SourceData(path.name, KIND, period_frame(rows, path.name), coverage, tuple(notes),
                      autoscaling)


def _stamp(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")

