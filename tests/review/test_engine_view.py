"""The engine's view of the traffic that ran: achieved efficiency and the calibration factor
recover a known slow-down, growth is fitted exactly on noise-free periods, and the autoscaling
replay counts the replicas a threshold frees."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd
import pytest

from reportgen.review.actuals.combine import WorkloadActuals
from reportgen.review.actuals.measures import MEASURES
from reportgen.review.autoscale import advise, occupancy_at_operating_batch, replay
from reportgen.review.reforecast import growth, next_window, window_label
from reportgen.review.speed import evaluate, speed
from reportgen.review.workloads import plan_workloads
from tests.helpers import build_plan

ROW = dict(scenario="chat", model="Llama-3.1-8B", gpu="L40S", peak_qps=10, avg_qps=4,
           avg_prompt_tokens=600, avg_output_tokens=250, tpot_slo_ms=40)
WINDOW = (dt.date(2026, 1, 1), dt.date(2026, 4, 1))


def _actual(**values: float) -> WorkloadActuals:
    base = {m: math.nan for m in MEASURES}
    base.update(values)
    periods = pd.DataFrame({"start": [WINDOW[0]], "end": [WINDOW[1]],
                            "requests": [base.get("requests", 0.0)]})
    return WorkloadActuals("chat", base, {}, {"model": "", "gpu": "", "tp": "", "engine": ""},
                           periods, None)


def test_a_known_slow_down_is_measured_and_calibrated() -> None:
    """TPOT measured 1/0.8 of the engine's at batch 12: efficiency 0.8; with MFU and MBU times
    the calibration factor the engine gives the measured TPOT at that batch."""
    plan = build_plan([ROW])
    w = plan_workloads(plan)["chat"]
    requests = 1e7
    planned = dict(ROW, tp=float(plan.results["tp"].iloc[0]))  # the configuration that ran
    engine = evaluate(plan, [planned], {}, batch=np.array([12.0]))
    measured = float(engine["tpot_ms"].iloc[0]) / 0.8
    s = speed(plan, w, _actual(requests=requests, prompt_tokens=600 * requests,
                               output_tokens=250 * requests, running_mean=12.0,
                               tpot_mean_ms=measured), {})
    assert s.measured and s.efficiency == pytest.approx(0.8, rel=1e-9)
    assert s.tokens_factor == pytest.approx(1.0, rel=1e-9)  # lengths as planned
    assert s.efficiency_factor == pytest.approx(1.25, rel=1e-9)
    resolved = plan.results.iloc[0]
    calibrated = dict(planned, **{k: float(resolved[k]) * s.calibration
                              for k in ("mfu_prefill", "mfu_decode", "mbu")})
    again = evaluate(plan, [calibrated], {}, batch=np.array([12.0]))
    assert float(again["tpot_ms"].iloc[0]) == pytest.approx(measured, rel=5e-3)


def test_without_tpot_and_batch_efficiency_is_not_measured() -> None:
    plan = build_plan([ROW])
    w = plan_workloads(plan)["chat"]
    s = speed(plan, w, _actual(requests=1e6, prompt_tokens=6e8, output_tokens=2.5e8), {})
    assert not s.measured and s.efficiency == 1.0 and "not measured" in " ".join(s.notes)


def test_growth_is_fitted_exactly_on_exponential_traffic() -> None:
    """Rates growing 5 % every 730 hours, sampled as three monthly periods."""
    months = [(dt.date(2026, m, 1), dt.date(2026, m + 1, 1)) for m in (1, 2, 3)]
    start = dt.datetime(2026, 1, 1)
    b = math.log(1.05) / 730
    requests = []
    for s, e in months:
        t0 = (dt.datetime.combine(s, dt.time()) - start).total_seconds() / 3600
        t1 = (dt.datetime.combine(e, dt.time()) - start).total_seconds() / 3600
        requests.append(2.0 * 3600 * (math.exp(b * t1) - math.exp(b * t0)) / b)
    actual = _actual(requests=sum(requests))
    actual = WorkloadActuals(actual.name, actual.values, {}, actual.stack, pd.DataFrame(
        {"start": [s for s, _ in months], "end": [e for _, e in months],
         "requests": requests}), None)
    g = growth(actual, WINDOW)
    assert g.known and g.monthly == pytest.approx(0.05, rel=2e-3)
    # the average rate over the next quarter (91 days, 2,184 hours) of the same curve
    expected = 2.0 * (math.exp(b * 4_344) - math.exp(b * 2_160)) / (b * 2_184)
    assert g.next_qps == pytest.approx(expected, rel=5e-3)


def test_window_labels() -> None:
    assert window_label((dt.date(2026, 4, 1), dt.date(2026, 7, 1))) == "2026-Q2"
    assert next_window(WINDOW) == (dt.date(2026, 4, 1), dt.date(2026, 7, 1))
    assert next_window((dt.date(2026, 4, 15), dt.date(2026, 5, 15))) == (
        dt.date(2026, 5, 15), dt.date(2026, 6, 14))
    assert window_label((dt.date(2026, 4, 15), dt.date(2026, 5, 15))) == "2026-04-15 – 2026-05-14"


def test_the_replay_frees_replicas_above_need() -> None:
    """Four replicas at 10 % and 50 % occupancy against a 40 % threshold: one replica does
    the first hour's work (0.4 / 0.4), five would be needed in the second (so none freed)."""
    series = pd.DataFrame({"kv_usage": [0.1, 0.5], "replicas": [4, 4], "tpot_ms": [30.0, 30.0]},
                          index=[0.0, 3600.0])
    assert replay(series, 0.4, gpus_per_replica=2) == pytest.approx(3 * 1 * 2)


def test_a_missed_interval_lowers_the_scale_out_threshold() -> None:
    plan = build_plan([ROW])
    row = plan.results.iloc[0]
    engine = occupancy_at_operating_batch(row)
    series = pd.DataFrame({"kv_usage": [0.05, engine / 2, 0.02], "replicas": [3, 3, 3],
                           "tpot_ms": [30.0, 45.0, 30.0]}, index=[0.0, 3600.0, 7200.0])
    actual = WorkloadActuals("chat", {m: math.nan for m in MEASURES}, {}, {}, pd.DataFrame(),
                             series)
    a = advise(actual, 40.0, row, 3.0, 1.0, 2.0)
    assert a.observed_miss == pytest.approx(engine / 2)
    assert a.scale_out == pytest.approx(math.floor(engine / 2 * 0.85 * 100) / 100)
    assert a.scale_in is not None and a.scale_in < a.scale_out
    assert a.gpu_hours_saved is not None and a.cost_saved == pytest.approx(a.gpu_hours_saved * 2)
