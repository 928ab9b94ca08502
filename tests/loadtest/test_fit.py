"""What the fit does with runs that do not exercise every efficiency, few runs, and runs that
queued: the shipped value stays, the shipped band stays, the queueing TTFT is not fitted."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd

from reportgen.calibration.loadtest_fit import MIN_RUNS_FOR_BAND
from reportgen.efficiency import load_efficiency
from reportgen.pipeline import CalibrateOptions, calibrate
from tests.loadtest import writers as w
from tests.loadtest.synthetic import KNOWN, stack, truth

STACK = {"gpu": "H100", "tp": "1", "weight_dtype": "fp8", "kv_dtype": "fp8", "engine": "vllm",
         "engine_version": "0.11.0"}


def test_runs_that_never_reach_compute_bound_decode_keep_its_shipped_value(
        tmp_path: Path) -> None:
    figures = truth(stack(), [(512, 256, 1), (512, 256, 4), (2048, 128, 2)], KNOWN)
    path = tmp_path / "low.jsonl"
    path.write_text(w.vllm_jsonl(figures))
    (fit,) = calibrate(CalibrateOptions((path,), tmp_path / "e.csv", stack=STACK)).fits
    shipped = load_efficiency().loc["hopper-fp8"]
    assert not fit.determined["mfu_decode"] and fit.fitted["mfu_decode"] == shipped["mfu_decode"]
    assert fit.determined["mbu"] and fit.determined["mfu_prefill"]
    assert fit.n_runs < MIN_RUNS_FOR_BAND
    assert fit.band == (shipped["throughput_ratio_p10"], shipped["throughput_ratio_p90"])
    row = pd.read_csv(tmp_path / "e.csv").iloc[0]
    assert "kept from hopper-fp8: mfu_decode" in row["determined"]
    assert "kept from hopper-fp8" in row["band_source"]


def test_a_run_beyond_the_batch_cap_queued_and_its_ttft_is_not_fitted(tmp_path: Path) -> None:
    figures = truth(stack(), [(512, 256, 1), (512, 256, 8), (512, 256, 32)], KNOWN)
    # A fourth run with 96 requests in flight on a server capped at 32 running sequences: the
    # extra requests waited, so its TTFT is far above what the batch of 32 gives.
    queued = dataclasses.replace(figures[2], concurrency=96, ttft_ms=figures[2].ttft_ms * 40)
    path = tmp_path / "q.jsonl"
    path.write_text(w.vllm_jsonl([*figures, queued]))
    (fit,) = calibrate(CalibrateOptions((path,), tmp_path / "e.csv",
                                        stack={**STACK, "max_batch": "32"})).fits
    runs = fit.runs
    assert runs["queued"].iloc[3].startswith("96.0 requests in flight per replica but "
                                             "max_batch is 32")
    assert (runs["queued"].iloc[:3] == "").all() and runs["batch_per_replica"].iloc[3] == 32
    assert fit.n_measurements == 3 * 4 - 1  # the queued run's TTFT is left out
