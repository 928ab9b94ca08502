"""The canonical digests stamped in every output: they change with the meaning of the inputs,
not with how the file was written."""

from __future__ import annotations

from reportgen.digest import inputs_digest, reference_digest
from reportgen.units import CONSTANTS
from tests.scenarios import base_row, validated

CONSTANT_VALUES = {name: c.value for name, c in CONSTANTS.items()}


def _digest(rows: list[dict[str, object]]) -> str:
    checked = validated(rows)
    return inputs_digest(checked.scenarios, checked.specs)


def test_order_spelling_and_written_defaults_do_not_change_the_inputs_digest() -> None:
    a = base_row(scenario="a", peak_qps=20)
    b = base_row(scenario="b", gpu="L40S", model="Llama-3.1-8B", peak_qps=5)
    same = [
        {**b, "peak_qps": 5.0, "gpu": "l40s", "engine": "vllm"},  # default written out
        {**a, "model": "meta-llama/Llama-3.1-70B-Instruct", "weight_dtype": ""},
    ]
    assert _digest([a, b]) == _digest(same)


def test_any_value_that_changes_the_plan_changes_the_inputs_digest() -> None:
    a = base_row(scenario="a", peak_qps=20)
    reference = _digest([a])
    for change in ({"peak_qps": 21}, {"engine": "sglang"}, {"scenario": "A"},
                   {"tpot_slo_ms": 50}, {"gpu": "H200"}, {"gpu": "H100|H200"},
                   {"gpu": "auto"}, {"tp": 4}):
        assert _digest([{**a, **change}]) != reference, change


def test_the_reference_digest_follows_constants_and_tables() -> None:
    tables = validated([base_row()]).tables
    reference = reference_digest(tables, CONSTANT_VALUES)
    assert reference_digest(tables, dict(CONSTANT_VALUES)) == reference
    assert reference_digest(tables, {**CONSTANT_VALUES, "SAFETY_FACTOR": 1.5}) != reference
    gpus = tables.gpus.copy()
    gpus.loc["H100-SXM", "price_per_gpu_hour"] = 2.0
    edited = type(tables)(gpus, tables.models, tables.efficiency)
    assert reference_digest(edited, CONSTANT_VALUES) != reference
