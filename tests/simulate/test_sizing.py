"""Percentile targets size the fleet by the simulated knee; mean targets keep the closed form."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reportgen.errors import InputError
from reportgen.simulate.knee import Targets, meets
from reportgen.simulate.metrics import summarize
from reportgen.simulate.plan_latency import row_values
from reportgen.simulate.workload import workload_for
from tests.helpers import build_plan

CHAT = {"scenario": "chat", "model": "llama-3.1-8b", "gpu": "H100", "peak_qps": 30,
        "avg_prompt_tokens": 600, "avg_output_tokens": 200, "max_prompt_tokens": 2000,
        "max_output_tokens": 800, "tp": 1, "weight_dtype": "bf16", "kv_dtype": "bf16"}


def test_p99_targets_are_sized_by_the_knee() -> None:
    plan = build_plan([{**CHAT, "ttft_p99_ms": 400, "tpot_p99_ms": 30}])
    row = plan.results.iloc[0]
    knee = float(row["knee_rps_per_instance"])
    assert knee > 0
    assert row["sized_by"] == "knee of the P99 targets"
    assert row["fleet_bottleneck"] == "queueing"
    assert row["instances"] == math.ceil(30 * float(row["safety_factor"]) / knee)
    values = row_values(plan.scenarios, plan.results, 0)
    workload = workload_for(values, plan.tables.models.loc["Llama-3.1-8B"].to_dict())
    targets = Targets(400, 30, "p99")
    assert meets(summarize(workload.at_rate(knee)), targets)
    assert not meets(summarize(workload.at_rate(1.05 * knee)), targets)


def test_mean_targets_keep_the_closed_form() -> None:
    plan = build_plan([{**CHAT, "ttft_slo_ms": 400, "tpot_slo_ms": 30}])
    row = plan.results.iloc[0]
    assert row["sized_by"] == "closed form"
    assert row["knee_rps_per_instance"] == 0
    assert row["instances"] == math.ceil(round(
        float(row["concurrency"]) / float(row["batch"]) * float(row["safety_factor"]), 9))


def test_a_typed_knee_is_used_as_typed() -> None:
    plan = build_plan([{**CHAT, "ttft_p99_ms": 400, "knee_rps": 2.5}])
    row = plan.results.iloc[0]
    assert row["knee_rps_per_instance"] == 2.5
    assert row["instances"] == math.ceil(30 * 1.4 / 2.5)


def test_unreachable_p99_targets_say_so_and_keep_the_closed_form() -> None:
    plan = build_plan([{**CHAT, "ttft_p99_ms": 1}])
    row = plan.results.iloc[0]
    assert row["sized_by"] == "closed form"
    assert len(plan.simulation_notes) == 1 and "'chat'" in plan.simulation_notes[0]
    assert np.isfinite(float(row["instances"])) and row["instances"] > 0


def test_too_many_p99_rows_stop_the_build_with_a_message(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setattr("reportgen.simulate.sizing.MAX_KNEE_ROWS", 1)
    rows = [{**CHAT, "scenario": f"chat-{k}", "ttft_p99_ms": 400} for k in range(2)]
    with pytest.raises(InputError, match="2 rows have P99 targets"):
        build_plan(rows)
