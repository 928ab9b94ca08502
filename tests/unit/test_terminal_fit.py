"""What the terminal shows: a summary that fits the terminal without cutting scenario names, and
a `validate` verdict that never says "no problems" next to a warning."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from reportgen import terminal
from reportgen.cli import main
from reportgen.pipeline import BuildOptions, build
from reportgen.terminal import fit_columns

ROOT = Path(__file__).resolve().parents[2]


def test_fit_columns_drops_the_least_important_first() -> None:
    widths, priorities = [20, 10, 10, 10], [0, 3, 5, 4]
    assert fit_columns(widths, priorities, 200) == [0, 1, 2, 3]
    assert fit_columns(widths, priorities, 50) == [0, 1, 3]  # 1 + 23 + 13 + 13 = 50
    assert fit_columns(widths, priorities, 10) == [0, 1]  # never below the essential ones


@pytest.mark.parametrize("width", [80, 60])
def test_summary_fits_the_terminal_and_keeps_every_scenario_name(
    width: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = build(BuildOptions(ROOT / "inputs" / "scenarios.csv", tmp_path, formats=("csv",)))
    monkeypatch.setattr(terminal, "_console", lambda: Console(width=width, soft_wrap=False))
    terminal.summary_table(result)
    shown = capsys.readouterr().out
    lines = shown.splitlines()
    assert max(len(line) for line in lines) <= width
    names = result.plan.results["scenario"].tolist()
    cells = "".join(line.split("│")[1].strip() for line in lines if line.startswith("│"))
    for name in names:
        assert name in cells, name  # whole, possibly wrapped over lines, never "chat-70…"
    assert "…" not in "".join(line for line in lines if line.startswith("│"))
    assert "left out to fit" in shown


def test_validate_with_a_warning_does_not_say_no_problems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "plan.csv").write_text(
        "scenario,model,gpu,peak_qps,avg_prompt_tokens,avg_output_tokens,owner\n"
        "chat,Llama-3.1-8B,H100,10,1000,200,ana\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "plan.csv"]) == 0
    captured = capsys.readouterr()
    assert "no problems" not in captured.out
    assert captured.out == "plan.csv: 1 scenario, no errors, 1 warning (above): read before " \
                           "you build.\n"
    assert 'column "owner" is not a reportgen column and is ignored' in captured.err
