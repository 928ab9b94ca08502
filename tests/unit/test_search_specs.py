"""Searchable columns in the scenario file: one value, `auto`, or a list `a|b|c`."""

from __future__ import annotations

import math

import pytest

from reportgen.errors import ScenarioValidationError
from tests.scenarios import base_row, validated


def test_lists_are_normalised_and_leave_the_value_blank() -> None:
    checked = validated([base_row(gpu="H100|h200 | H100", tp="4|2", weight_dtype="BF16|fp8",
                                  kv_dtype="auto", engine="vllm|sglang", attention_dp="1 | 0")])
    specs = checked.specs
    assert specs is not None
    assert specs.iloc[0].to_dict() == {
        "gpu": "H100-SXM|H200-SXM", "tp": "4|2", "pp": "", "attention_dp": "1|0",
        "weight_dtype": "bf16|fp8", "kv_dtype": "auto", "engine": "vllm|sglang",
    }
    row = checked.scenarios.iloc[0]
    assert row["gpu"] == "" and math.isnan(row["tp"])
    assert row["weight_dtype"] == "" and row["kv_dtype"] == "" and row["engine"] == ""


def test_single_values_have_no_spec() -> None:
    checked = validated([base_row(tp=4, weight_dtype="fp8")])
    assert checked.specs is not None
    assert set(checked.specs.iloc[0]) == {""}
    row = checked.scenarios.iloc[0]
    assert (row["gpu"], row["tp"], row["weight_dtype"]) == ("H100-SXM", 4.0, "fp8")


def test_auto_gpu_is_kept_as_auto() -> None:
    checked = validated([base_row(gpu="AUTO")])
    assert checked.specs is not None and checked.specs.iloc[0]["gpu"] == "auto"


@pytest.mark.parametrize(
    ("changes", "column", "message"),
    [
        ({"gpu": "H100|H999"}, "gpu", 'unknown GPU "H999"'),
        ({"tp": "2|3"}, "tp", 'got "3" in the list "2|3"'),
        ({"weight_dtype": "bf16|"}, "weight_dtype", "an empty item in the list"),
        ({"engine": "vllm|triton"}, "engine", 'got "triton" in the list'),
        ({"gpu": "H100|H200", "gpu_memory_gib": 96}, "gpu", "describe one"),
        ({"tp": "4|8", "model": "Qwen2.5-7B"}, "tp", "tp 8 does not divide"),
        ({"method": "tutorial", "role": "plan"}, "role", 'got "plan" on a row with method'),
    ],
)
def test_bad_specs_are_reported_where_they_are(
    changes: dict[str, object], column: str, message: str
) -> None:
    with pytest.raises(ScenarioValidationError) as caught:
        validated([base_row(**changes)])
    issues = [i for i in caught.value.issues if i.column == column]
    assert len(issues) == 1, caught.value.issues
    assert message in issues[0].describe()
    assert issues[0].row == 2


def test_rows_of_one_workload_with_different_traffic_are_warned_about() -> None:
    checked = validated([
        base_row(scenario="a", workload="chat"),
        base_row(scenario="b", workload="Chat", peak_qps=150),
        base_row(scenario="c", workload="other"),
    ])
    assert len(checked.warnings) == 1
    assert 'workload "chat" differ in peak_qps' in checked.warnings[0]
