"""The efficiency row a scenario uses: the most specific key that exists in the table."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from reportgen.engine import estimate
from tests.scenarios import base_row, validated


def _with_rows(efficiency: pd.DataFrame, keys: dict[str, float]) -> pd.DataFrame:
    """The table plus copies of hopper-bf16 under new keys, each with its own mbu."""
    extra = []
    for key, mbu in keys.items():
        row = efficiency.loc["hopper-bf16"].copy()
        row["mbu"] = mbu
        row.name = key
        extra.append(row)
    return pd.concat([efficiency, pd.DataFrame(extra)])


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ({}, "hopper-bf16"),
        ({"hopper-bf16-sglang": 0.5}, "hopper-bf16"),  # another engine's row is not used
        ({"hopper-bf16-vllm": 0.5}, "hopper-bf16-vllm"),
        ({"hopper-bf16-vllm": 0.5, "h100-sxm-bf16-vllm": 0.6}, "h100-sxm-bf16-vllm"),
        ({"h200-sxm-bf16-vllm": 0.6}, "hopper-bf16"),  # another GPU's row is not used
    ],
)
def test_most_specific_key_wins(keys: dict[str, float], expected: str) -> None:
    checked = validated([base_row(engine="vllm")])
    tables = dataclasses.replace(
        checked.tables, efficiency=_with_rows(checked.tables.efficiency, keys)
    )
    result = estimate(checked.scenarios, tables).iloc[0]
    assert result["efficiency_key"] == expected
    assert result["mbu"] == tables.efficiency.loc[expected, "mbu"]
