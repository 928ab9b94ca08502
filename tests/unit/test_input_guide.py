"""docs/inputs.md holds the table of every input column as the schema generates it
(`reportgen columns --markdown`), so the guide cannot drift from what validation accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.cli import main

GUIDE = Path(__file__).parents[2] / "docs" / "inputs.md"


def test_the_input_guide_lists_every_column_as_the_schema_does(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["columns", "--markdown"]) == 0
    generated = capsys.readouterr().out.strip()
    text = GUIDE.read_text(encoding="utf-8")
    start, end = "<!-- columns:start -->", "<!-- columns:end -->"
    table = text[text.index(start) + len(start):text.index(end)].strip()
    assert table == generated, "docs/inputs.md is out of date: paste `reportgen columns --markdown`"
