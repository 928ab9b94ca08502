#!/usr/bin/env python3
"""Regenerate the sample quarter of actuals in inputs/review/ from the sample plan.

    .venv/bin/python scripts/make_review_sample.py

The traffic, fleet and prices that "happened" are the DEVIATIONS below, applied to the plan of
record (inputs/review/plan-2026q1.csv); what the servers would have measured comes from the
engine: each hour's sequences per replica solve batch = requests per replica per second ×
response time at that batch (a fixed point, with the engine's latency at a pinned batch), time
per output token and time to first token are the engine's at that batch divided by the
workload's achieved efficiency, and KV-cache usage is the tokens held ÷ the engine's KV budget.
Noise is lognormal, drawn from a fixed seed, so the files are the same on every run. Prices are
illustrative, not any provider's list prices.

Writes (overwriting) inputs/review/vllm-chat-assistant-2026q1.json.gz (Prometheus query_range
export, vLLM >= 0.11 metric names, 6-hour step, one server restart), actuals-2026q1.csv (the
actuals template) and cur-2026q1.csv (an AWS Cost and Usage Report, daily line items).
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import json
import math
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reportgen.engine import estimate  # noqa: E402
from reportgen.pipeline import load, make_plan  # noqa: E402

OUT = ROOT / "inputs" / "review"
PLAN = OUT / "plan-2026q1.csv"
SEED = 20260401
START = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
END = dt.datetime(2026, 4, 1, tzinfo=dt.UTC)
HOURS = int((END - START).total_seconds() // 3600)
STEP_S = 6 * 3600  # the Prometheus export's step
RESTART = dt.datetime(2026, 2, 12, 9, 30, tzinfo=dt.UTC)  # chat-assistant replica 2 restarts
TTFT_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
                7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0)  # vLLM's, seconds
ITL_BUCKETS = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0,
               7.5, 10.0, 20.0, 40.0, 80.0)


@dataclass(frozen=True)
class Deviation:
    """What happened to one workload, against its plan."""

    traffic: float  # January's average rate ÷ the plan's average rate
    growth: float  # per month
    prompt: float  # tokens per request ÷ the plan's
    output: float
    efficiency: float  # achieved TPOT speed ÷ the engine's at the same batch
    replicas: tuple[int, int, int]  # per month
    gpus_paid: tuple[int, int, int]  # GPUs billed per month
    price: tuple[float, float, float]  # USD per GPU-hour paid, per month
    source: str  # how its actuals reach the review


DEVIATIONS = {
    "chat-assistant": Deviation(1.05, 0.06, 0.90, 1.20, 0.88, (3, 3, 4), (8, 8, 8),
                                (3.40, 3.40, 3.40), "Prometheus export + AWS CUR (one "
                                "p5.48xlarge node, Savings Plan); peak rate from the template"),
    "support-bot": Deviation(0.80, 0.00, 1.30, 1.00, 0.95, (3, 3, 3), (3, 3, 3),
                             (6.88, 3.10, 3.10), "template + AWS CUR (three p5.4xlarge; "
                             "on-demand in January, Savings Plan from February)"),
    "code-completion": Deviation(1.25, 0.03, 1.00, 0.90, 1.02, (12, 12, 14), (12, 12, 14),
                                 (1.75, 1.75, 1.75), "template only (an L40S pool billed by "
                                 "internal chargeback)"),
}


def hours_index() -> pd.DatetimeIndex:
    return pd.date_range(START, END, freq="h", inclusive="left")


def month_of(index: pd.DatetimeIndex) -> np.ndarray:
    return np.asarray(index.month - 1)


def traffic(rng: np.random.Generator, plan_avg: float, d: Deviation) -> np.ndarray:
    """Requests per second, hour by hour: growth, a daily cycle (peak at 15:00 UTC), noise."""
    index = hours_index()
    t_months = np.arange(HOURS) / 730.0
    daily = 1 + 0.45 * np.sin(2 * np.pi * (index.hour.to_numpy() - 9) / 24)
    weekly = np.where(index.day_of_week.to_numpy() >= 5, 0.8, 1.06)
    noise = rng.lognormal(0, 0.08, HOURS)
    shape = daily * weekly * noise
    return plan_avg * d.traffic * (1 + d.growth) ** t_months * shape / shape.mean()


def engine_at(checked, prompt: float, output: float, batch: np.ndarray) -> pd.DataFrame:
    scenarios = pd.concat([checked.scenarios] * len(batch), ignore_index=True)
    scenarios["avg_prompt_tokens"] = prompt
    scenarios["avg_output_tokens"] = output
    return estimate(scenarios, checked.tables, overrides={"batch": batch})


def operate(checked, rate: np.ndarray, replicas: np.ndarray, prompt: float, output: float,
            efficiency: float) -> dict[str, np.ndarray]:
    """Sequences per replica, TPOT and TTFT each hour, at the achieved efficiency."""
    cap = float(estimate(checked.scenarios, checked.tables)["batch_max_kv"].iloc[0])
    batch = np.ones(HOURS)
    for _ in range(30):
        r = engine_at(checked, prompt, output, batch)
        response = r["response_time_s"].to_numpy(dtype=float) / efficiency
        batch = np.clip(rate / replicas * response, 1.0, cap)
    r = engine_at(checked, prompt, output, batch)
    kv_bytes = r["kv_bytes_per_token"].to_numpy(dtype=float)
    budget = r["kv_budget_gib"].to_numpy(dtype=float) * 2**30
    held = batch * (prompt + output / 2) * kv_bytes
    return {
        "batch": batch,
        "tpot_ms": r["tpot_ms"].to_numpy(dtype=float) / efficiency,
        "ttft_ms": r["ttft_ms"].to_numpy(dtype=float) / efficiency,
        "kv": np.clip(held / budget, 0, 1),
    }


def lognormal_cdf(x: np.ndarray, mean: np.ndarray, sigma: float) -> np.ndarray:
    """P(X <= x) for lognormals with the given means (broadcast)."""
    from math import erf, sqrt

    mu = np.log(mean) - sigma**2 / 2
    z = (np.log(np.maximum(x, 1e-12)) - mu) / (sigma * sqrt(2))
    return 0.5 * (1 + np.vectorize(erf)(z))


def mixture_quantile(q: float, means: np.ndarray, weights: np.ndarray, sigma: float) -> float:
    grid = np.geomspace(means.min() / 20, means.max() * 20, 4000)
    cdf = (lognormal_cdf(grid[:, None], means[None, :], sigma) * weights[None, :]).sum(1)
    cdf /= weights.sum()
    return float(np.interp(q, cdf, grid))


def main() -> None:
    rng = np.random.default_rng(SEED)
    checked_all = load(PLAN)
    planned = make_plan(checked_all, PLAN.name)
    plan = planned.results
    concrete = planned.scenarios  # the configuration the plan chose for each row
    index = hours_index()
    months = month_of(index)
    template_rows: list[dict[str, object]] = []
    cur_rows: list[dict[str, object]] = []
    prometheus: dict[str, object] | None = None
    for i, (name, d) in enumerate(DEVIATIONS.items()):
        row = plan.iloc[i]
        assert row["scenario"] == name, (row["scenario"], name)
        checked = type(checked_all)(concrete.iloc[[i]].reset_index(drop=True),
                                    checked_all.tables, checked_all.source, "")
        rate = traffic(rng, float(row["avg_qps"]), d)
        prompt = float(row["avg_prompt_tokens"]) * d.prompt
        output = float(row["avg_output_tokens"]) * d.output
        replicas = np.array(d.replicas, dtype=float)[months]
        ran = operate(checked, rate, replicas, prompt, output, d.efficiency)
        requests = rng.poisson(rate * 3600).astype(float)
        prompt_tokens = np.round(requests * prompt * rng.lognormal(0, 0.03, HOURS))
        output_tokens = np.round(requests * output * rng.lognormal(0, 0.03, HOURS))
        if name == "chat-assistant":
            prometheus = prometheus_export(rng, index, requests, prompt_tokens, output_tokens,
                                           ran, replicas)
        for m in range(3):
            month = months == m
            template_rows.append(template_row(name, d, m, month, rate, requests, prompt_tokens,
                                              output_tokens, ran, rng))
        if name != "code-completion":
            cur_rows += cur_lines(name, d, index)
    write_template(template_rows)
    write_cur(cur_rows)
    assert prometheus is not None
    path = OUT / "vllm-chat-assistant-2026q1.json.gz"
    text = json.dumps(prometheus, separators=(",", ":")).encode()
    path.write_bytes(gzip.compress(text, compresslevel=9, mtime=0))
    print(f"wrote {path.name} ({len(text) / 1e6:.1f} MB of JSON), actuals-2026q1.csv, "
          "cur-2026q1.csv")


def minute_peak(rng: np.random.Generator, rate: np.ndarray) -> float:
    """p99 of 1-minute rates: each hour's rate with minute-to-minute noise."""
    minutes = np.repeat(rate, 60) * rng.lognormal(0, 0.12, len(rate) * 60)
    return float(np.quantile(minutes, 0.99))


def template_row(name: str, d: Deviation, m: int, month: np.ndarray, rate: np.ndarray,
                 requests: np.ndarray, prompt_tokens: np.ndarray, output_tokens: np.ndarray,
                 ran: dict[str, np.ndarray], rng: np.random.Generator) -> dict[str, object]:
    start = dt.date(2026, m + 1, 1)
    end = dt.date(2026, m + 2, 1) - dt.timedelta(days=1)
    row: dict[str, object] = {"workload": name, "period_start": start, "period_end": end,
                              "peak_qps": round(minute_peak(rng, rate[month]), 2)}
    if name == "chat-assistant":  # the rest comes from the Prometheus export
        return row
    reqs, toks = requests[month], output_tokens[month]
    tpot, ttft = ran["tpot_ms"][month], ran["ttft_ms"][month]
    batch, kv = ran["batch"][month], ran["kv"][month]
    row.update(
        requests=int(reqs.sum()), prompt_tokens=int(prompt_tokens[month].sum()),
        output_tokens=int(toks.sum()),
        ttft_mean_ms=round(float((ttft * reqs).sum() / reqs.sum()), 1),
        ttft_p50_ms=round(mixture_quantile(0.5, ttft, reqs, 0.5), 1),
        ttft_p99_ms=round(mixture_quantile(0.99, ttft, reqs, 0.5), 1),
        tpot_mean_ms=round(float((tpot * toks).sum() / toks.sum()), 2),
        tpot_p50_ms=round(mixture_quantile(0.5, tpot, reqs, 0.15), 2),
        tpot_p99_ms=round(mixture_quantile(0.99, tpot, reqs, 0.15), 2),
        kv_cache_usage_mean=round(float(kv.mean()), 3),
        kv_cache_usage_p95=round(float(np.quantile(kv, 0.95)), 3),
        running_mean=round(float((batch**2).sum() / batch.sum()), 1),
    )
    if name == "code-completion":
        hours = int(month.sum())
        row.update(gpu_hours=d.gpus_paid[m] * hours,
                   billed_cost=round(d.gpus_paid[m] * hours * d.price[m], 2), gpu="L40S")
    return row


def write_template(rows: list[dict[str, object]]) -> None:
    columns = ["workload", "period_start", "period_end", "requests", "prompt_tokens",
               "output_tokens", "peak_qps", "gpu_hours", "billed_cost", "ttft_mean_ms",
               "ttft_p50_ms", "ttft_p99_ms", "tpot_mean_ms", "tpot_p50_ms", "tpot_p99_ms",
               "kv_cache_usage_mean", "kv_cache_usage_p95", "running_mean", "gpu"]
    with (OUT / "actuals-2026q1.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: row.get(k, "") for k in columns})


CUR_COLUMNS = (
    "identity/LineItemId", "identity/TimeInterval", "bill/PayerAccountId",
    "lineItem/UsageAccountId", "lineItem/LineItemType", "lineItem/UsageStartDate",
    "lineItem/UsageEndDate", "lineItem/ProductCode", "lineItem/UsageType", "lineItem/Operation",
    "lineItem/ResourceId", "lineItem/UsageAmount", "lineItem/CurrencyCode",
    "lineItem/UnblendedRate", "lineItem/UnblendedCost", "lineItem/LineItemDescription",
    "product/instanceType", "product/region", "pricing/unit", "reservation/EffectiveCost",
    "savingsPlan/SavingsPlanEffectiveCost", "resourceTags/user:workload",
)
ON_DEMAND = {"p5.48xlarge": 55.04, "p5.4xlarge": 6.88, "c7i.2xlarge": 0.357}  # illustrative


def cur_lines(name: str, d: Deviation, index: pd.DatetimeIndex) -> list[dict[str, object]]:
    """Daily line items of one workload's instances (and its CPU gateway)."""
    lines = []
    kind, per = ("p5.48xlarge", 8) if d.gpus_paid[0] == 8 else ("p5.4xlarge", 1)
    instances = d.gpus_paid[0] // per
    day = START
    while day < END:
        m = day.month - 1
        nxt = day + dt.timedelta(days=1)
        for k in range(instances):
            covered = not (name == "support-bot" and m == 0)
            hours, od = 24.0, ON_DEMAND[kind]
            paid = d.price[m] * per * hours
            lines.append(_line(day, nxt, "SavingsPlanCoveredUsage" if covered else "Usage",
                               kind, _resource(name, k), hours,
                               od * hours, name, paid if covered else None))
            if covered:
                lines.append(_line(day, nxt, "SavingsPlanNegation", kind, _resource(name, k), hours,
                                   -od * hours, name, None))
        if name == "chat-assistant":  # an API gateway tagged with the workload: not a GPU
            lines.append(_line(day, nxt, "Usage", "c7i.2xlarge", "i-0gateway000000001", 24.0,
                               ON_DEMAND["c7i.2xlarge"] * 24, name, None))
        day = nxt
    if name == "chat-assistant":
        for m in range(3):
            month = dt.datetime(2026, m + 1, 1, tzinfo=dt.UTC)
            lines.append(_line(month, month + dt.timedelta(days=1), "Tax", "", "", 0.0,
                               412.77, "", None))
    return lines


def _resource(name: str, k: int) -> str:
    return f"i-0{zlib.crc32(f'{name}/{k}'.encode()):08x}{k:07d}"


def _line(start: dt.datetime, end: dt.datetime, kind: str, instance: str, resource: str,
          amount: float, unblended: float, workload: str, effective: float | None
          ) -> dict[str, object]:
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    return {
        "identity/LineItemId": "", "identity/TimeInterval":
            f"{start.strftime(stamp)}/{end.strftime(stamp)}",
        "bill/PayerAccountId": "111122223333", "lineItem/UsageAccountId": "111122223333",
        "lineItem/LineItemType": kind, "lineItem/UsageStartDate": start.strftime(stamp),
        "lineItem/UsageEndDate": end.strftime(stamp),
        "lineItem/ProductCode": "AmazonEC2",
        "lineItem/UsageType": f"USE1-BoxUsage:{instance}" if instance else "",
        "lineItem/Operation": "RunInstances" if instance else "",
        "lineItem/ResourceId": resource, "lineItem/UsageAmount": f"{amount:g}",
        "lineItem/CurrencyCode": "USD",
        "lineItem/UnblendedRate": f"{ON_DEMAND.get(instance, 0):g}",
        "lineItem/UnblendedCost": f"{unblended:.6f}",
        "lineItem/LineItemDescription": "", "product/instanceType": instance,
        "product/region": "us-east-1", "pricing/unit": "Hrs" if instance else "",
        "reservation/EffectiveCost": "",
        "savingsPlan/SavingsPlanEffectiveCost": "" if effective is None else f"{effective:.6f}",
        "resourceTags/user:workload": workload,
    }


def write_cur(rows: list[dict[str, object]]) -> None:
    for n, row in enumerate(rows, start=1):
        row["identity/LineItemId"] = f"li{n:08d}"
    with (OUT / "cur-2026q1.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, CUR_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def prometheus_export(rng: np.random.Generator, index: pd.DatetimeIndex, requests: np.ndarray,
                      prompt_tokens: np.ndarray, output_tokens: np.ndarray,
                      ran: dict[str, np.ndarray], replicas: np.ndarray) -> dict[str, object]:
    """The query_range body: raw series per replica, sampled every STEP_S (values at each step
    are cumulative counters and instantaneous gauges, as Prometheus returns them)."""
    starts = index.as_unit("s").asi8
    samples = np.arange(starts[0], starts[-1] + 3600 + 1, STEP_S)
    result: list[dict[str, object]] = []
    for k in range(int(replicas.max())):
        up = replicas > k  # hours this replica served
        share = np.where(up, 1.0 / replicas, 0.0)
        jitter = rng.lognormal(0, 0.02, len(share))
        reqs = np.round(requests * share * jitter)
        restart = k == 1
        first = int(np.argmax(up))
        live = samples >= starts[first]

        def cumulative(per_hour: np.ndarray, offset: float, restart: bool = restart
                       ) -> np.ndarray:
            total = np.concatenate([[0.0], np.cumsum(per_hour)])
            at = total[np.minimum((samples - starts[0]) // 3600, HOURS)] + offset
            if restart:  # the process restarts: counters start again from 0
                cut = np.searchsorted(samples, RESTART.timestamp())
                hour = int((RESTART.timestamp() - starts[0]) // 3600)
                at[cut:] -= total[hour] + offset
            return at

        labels = {"engine": "0", "instance": f"10.0.1.{11 + k}:8000", "job": "vllm",
                  "model_name": "chat-assistant"}

        def add(name: str, values: np.ndarray, live: np.ndarray = live,
                labels: dict[str, str] = labels, **extra: str) -> None:
            pairs = [[int(t), _fmt(v)] for t, v, ok in zip(samples, values, live, strict=True)
                     if ok]
            result.append({"metric": {"__name__": name, **labels, **extra}, "values": pairs})

        length = np.round(reqs * 0.04)
        add("vllm:request_success_total", cumulative(reqs - length, 4e5), finished_reason="stop")
        add("vllm:request_success_total", cumulative(length, 2e4), finished_reason="length")
        add("vllm:prompt_tokens_total", cumulative(np.round(prompt_tokens * share), 5e8))
        add("vllm:generation_tokens_total", cumulative(np.round(output_tokens * share), 1.4e8))
        add("vllm:num_preemptions_total", cumulative(np.zeros(HOURS), 0))
        gaps = np.maximum(np.round(output_tokens * share) - reqs, 0)
        for family, bounds, mean_s, weight in (
            ("vllm:time_to_first_token_seconds", TTFT_BUCKETS, ran["ttft_ms"] / 1000, reqs),
            ("vllm:inter_token_latency_seconds", ITL_BUCKETS, ran["tpot_ms"] / 1000, gaps),
        ):
            cdf = lognormal_cdf(np.array(bounds)[:, None], mean_s[None, :],
                                0.5 if "first" in family else 0.15)
            per_hour = np.vstack([cdf * weight[None, :], weight[None, :]])
            for b, le in enumerate([*map(_le, bounds), "+Inf"]):
                add(f"{family}_bucket", cumulative(np.round(per_hour[b]), 0), le=le)
            add(f"{family}_sum", cumulative(mean_s * weight, 0))
            add(f"{family}_count", cumulative(weight, 0))
        hour = np.minimum((samples - starts[0]) // 3600, HOURS - 1)
        kv = np.clip(ran["kv"][hour] * rng.lognormal(0, 0.05, len(samples)), 0, 1)
        running = np.round(ran["batch"][hour] * rng.lognormal(0, 0.05, len(samples)))
        add("vllm:kv_cache_usage_perc", np.round(kv, 4))
        add("vllm:num_requests_running", running)
        add("vllm:num_requests_waiting", np.zeros(len(samples)))
    return {"status": "success", "data": {"resultType": "matrix", "result": result}}


def _le(bound: float) -> str:
    return repr(float(bound))


def _fmt(value: float) -> str:
    if math.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return f"{value:.10g}"


if __name__ == "__main__":
    main()
