"""The simulator against queueing theory, the closed form and itself."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.simulate import (
    Requests,
    ServerConfig,
    StepModel,
    draw_lengths,
    poisson_or_bursty,
    serve,
)
from reportgen.simulate.traffic import unit_gaps
from reportgen.simulate.workload import workload_for
from tests.helpers import build_plan

ROW = {"scenario": "chat", "model": "llama-3.1-8b", "gpu": "H100", "peak_qps": 10,
       "avg_prompt_tokens": 600, "avg_output_tokens": 200, "tp": 1, "weight_dtype": "bf16",
       "kv_dtype": "bf16"}


def _row_values(**changes: object) -> tuple[dict[str, object], dict[str, object]]:
    plan = build_plan([{**ROW, **changes}])
    values = {**plan.scenarios.iloc[0].to_dict(), **plan.results.iloc[0].to_dict()}
    return values, plan.tables.models.loc[values["model"]].to_dict()


def _time_average_in_system(arrival: np.ndarray, departure: np.ndarray, start: float,
                            end: float) -> float:
    """∫ N(t) dt / (end − start): requests in the system, integrated event by event."""
    times = np.concatenate([arrival, departure])
    change = np.concatenate([np.ones(len(arrival)), -np.ones(len(departure))])
    order = np.argsort(times, kind="stable")
    times, count = times[order], np.cumsum(change[order])
    before = int((times < start).sum())
    inside = (times >= start) & (times <= end)
    edges = np.concatenate([[start], times[inside], [end]])
    levels = np.concatenate([[count[before - 1] if before else 0.0], count[inside]])
    return float((levels * np.diff(edges)).sum() / (end - start))


def test_littles_law_holds_within_two_percent() -> None:
    """L = λW (Little, 1961) over the steady window of 10,000 requests at about 70 % load."""
    values, model = _row_values(max_prompt_tokens=2000, max_output_tokens=800)
    workload = workload_for(values, model, requests=10_000)
    served = workload.at_rate(0.7 * float(values["instance_rps"]))
    start, end = served.arrival_s[1000], served.arrival_s[-1]
    window = (served.arrival_s >= start) & (served.arrival_s <= end)
    rate = window.sum() / (end - start)
    mean_time = float((served.finished_s - served.arrival_s)[window].mean())
    in_system = _time_average_in_system(served.arrival_s, served.finished_s, start, end)
    assert abs(in_system - rate * mean_time) / (rate * mean_time) < 0.02


def test_low_load_ttft_tends_to_the_closed_form() -> None:
    """At a trickle nearly every request runs alone: its TTFT is the closed form's prefill plus
    one step at batch 1 (the engine's ttft_ms for max_batch = 1), to rounding; the rare one
    arriving behind another waits, which moves the mean by under 2 %."""
    values, model = _row_values(max_batch=1)
    assert values["batch"] == 1
    workload = workload_for(values, model, requests=200)
    served = workload.at_rate(1e-4 * float(values["instance_rps"]))
    ttft_ms = 1000 * (served.first_token_s - served.arrival_s)
    closed_form_ms = float(values["ttft_ms"])
    np.testing.assert_allclose(np.median(ttft_ms), closed_form_ms, rtol=1e-8)
    assert abs(ttft_ms.mean() - closed_form_ms) / closed_form_ms < 0.02


def test_an_md1_queue_matches_its_mean_wait() -> None:
    """One sequence at a time, one output token, fixed prompts: each request takes the same
    service time D, so Poisson arrivals make an M/D/1 queue whose mean wait is
    ρ·D / (2·(1 − ρ)) (Pollaczek–Khinchine with zero service variance)."""
    step = StepModel(decode_ms=np.array([5.0, 7.0]), prefill_ms_per_token=0.01)
    service_s = (step.step_ms(0, 1000) + step.step_ms(1, 0)) / 1000
    n, load = 40_000, 0.6
    rng = np.random.default_rng(7)
    requests = poisson_or_bursty(load / service_s, unit_gaps(n, 1.0, rng), np.full(n, 1000.0),
                                 np.full(n, 1.0))
    served = serve(requests, ServerConfig(max_seqs=1, token_budget=8192, kv_blocks=1000), step)
    np.testing.assert_allclose(served.finished_s - served.admitted_s, service_s, rtol=1e-9)
    expected_wait = load * service_s / (2 * (1 - load))
    measured_wait = float((served.admitted_s - served.arrival_s)[n // 10:].mean())
    assert abs(measured_wait - expected_wait) / expected_wait < 0.05


def test_same_seed_same_run() -> None:
    values, model = _row_values(max_prompt_tokens=2000, max_output_tokens=800)
    first = workload_for(values, model).at_rate(5.0)
    second = workload_for(values, model).at_rate(5.0)
    for field in ("arrival_s", "admitted_s", "first_token_s", "finished_s", "kv_occupancy"):
        np.testing.assert_array_equal(getattr(first, field), getattr(second, field))
    other = workload_for(values, model, seed=1).at_rate(5.0)
    assert not np.array_equal(first.arrival_s, other.arrival_s)


def test_tight_kv_preempts_and_still_serves_every_token() -> None:
    """With room for about ten sequences the scheduler preempts and recomputes, and every
    request still finishes, in order of its tokens: first token before the last."""
    step = StepModel(decode_ms=np.linspace(10, 20, 65), prefill_ms_per_token=0.01)
    rng = np.random.default_rng(3)
    n = 400
    requests = poisson_or_bursty(50.0, unit_gaps(n, 1.0, rng), draw_lengths(n, 300, 1000, rng),
                                 draw_lengths(n, 300, 1000, rng))
    config = ServerConfig(max_seqs=64, token_budget=2048, kv_blocks=400)
    served = serve(requests, config, step)
    assert served.preemptions > 0
    assert served.rejected == 0
    assert np.all(served.first_token_s < served.finished_s)
    assert np.all(served.admitted_s >= served.arrival_s)
    assert served.kv_occupancy.max() <= 1.0


def test_a_request_too_long_for_the_cache_is_rejected_not_looped() -> None:
    step = StepModel(decode_ms=np.array([5.0, 6.0]), prefill_ms_per_token=0.01)
    requests = Requests(np.array([0.0, 1.0]), np.array([100.0, 10_000.0]), np.array([5.0, 5.0]))
    served = serve(requests, ServerConfig(max_seqs=1, token_budget=512, kv_blocks=100), step)
    assert served.rejected == 1
    assert np.isnan(served.finished_s[1]) and not np.isnan(served.finished_s[0])


@settings(max_examples=40, deadline=None)
@given(mean=st.floats(1, 20_000), extra=st.floats(1.0, 10.0), seed=st.integers(0, 2**32 - 1))
def test_lengths_match_the_average_and_respect_the_maximum(mean: float, extra: float,
                                                           seed: int) -> None:
    top = np.floor(mean * extra)
    lengths = draw_lengths(5_000, mean, top, np.random.default_rng(seed))
    assert lengths.min() >= 1 and lengths.max() <= max(top, round(mean))
    assert abs(lengths.mean() - mean) <= max(0.01 * mean, 0.6)


def test_bursty_gaps_have_the_asked_variation() -> None:
    gaps = unit_gaps(200_000, 3.0, np.random.default_rng(0))
    assert abs(gaps.mean() - 1) < 0.03
    assert abs(gaps.std() / gaps.mean() - 3.0) < 0.1
