"""The canonical digests stamped in every output: they change with the meaning of the inputs,
not with how the file was written."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen import digest
from reportgen.digest import _cell, encode_unique, inputs_digest, reference_digest
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


def test_short_and_long_columns_are_encoded_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """Short columns are encoded cell by cell, long ones by their distinct values: the same
    text either way (blanks, -0.0 beside 0.0, 1 beside 1.0 and True, text, pandas' str)."""
    cells = [1.0, np.nan, -0.0, 0.0, 2.5, None, "a", "a", 1, True, pd.NA, "b\tc"]
    columns = [pd.Series(cells, dtype=object), pd.Series([0.1, np.nan, -0.0, 0.0, 0.1]),
               pd.Series(["x", None, "y", "x"], dtype="str"), pd.Series([3, 1, 3])]
    for column in columns:
        short = encode_unique(column, _cell).tolist()
        monkeypatch.setattr(digest, "SMALL", -1)
        assert encode_unique(column, _cell).tolist() == short
        monkeypatch.setattr(digest, "SMALL", 64)
    checked = validated([base_row(scenario="a"), base_row(scenario="b", peak_qps=3)])
    reference = reference_digest(checked.tables, CONSTANT_VALUES)
    inputs = inputs_digest(checked.scenarios, checked.specs)
    monkeypatch.setattr(digest, "SMALL", -1)
    assert reference_digest(checked.tables, CONSTANT_VALUES) == reference
    assert inputs_digest(checked.scenarios, checked.specs) == inputs
