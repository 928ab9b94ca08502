"""The command line: every command, exit codes and the error format."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from reportgen import schema
from reportgen.cli import main
from reportgen.pipeline import OUTPUT_COLUMNS
from reportgen.stamp import STAMP_COLUMNS

GOOD = (
    "scenario,model,gpu,peak_qps,avg_prompt_tokens,avg_output_tokens,tpot_slo_ms\n"
    "chat,llama-3.1-8b,L40S,10,600,250,40\n"
    "coder,meta-llama/Llama-3.1-70B-Instruct,h100-sxm,20,1500,800,\n"
)


@pytest.fixture
def good_csv(tmp_path: Path) -> Path:
    path = tmp_path / "plan.csv"
    path.write_text(GOOD, encoding="utf-8")
    return path


def test_estimate_prints_the_results_csv(
    good_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`estimate` prints one CSV row per scenario with every results column, then the two
    provenance columns."""
    assert main(["estimate", str(good_csv)]) == 0
    out = capsys.readouterr().out
    header, *rows = out.strip().splitlines()
    assert header.split(",") == [*OUTPUT_COLUMNS, *STAMP_COLUMNS]
    assert len(rows) == 2


def test_estimate_json(good_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`estimate --json` prints a JSON array of result objects."""
    assert main(["estimate", str(good_csv), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["scenario"] for r in records] == ["chat", "coder"]
    assert records[1]["model"] == "Llama-3.1-70B"
    assert records[1]["input_row"]["scenario"] == "coder"
    assert re.fullmatch(r"rgd3:[0-9a-f]{64}", records[0]["provenance"]["inputs_digest"])


def test_build_csv_writes_the_results_and_prints_a_summary(
    good_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`build --format csv` writes <stem>-results.csv and a summary table with totals."""
    out_dir = tmp_path / "out"
    assert main(["build", str(good_csv), "--out", str(out_dir), "--format", "csv"]) == 0
    results = pd.read_csv(out_dir / "plan-results.csv")
    assert list(results.columns) == [*OUTPUT_COLUMNS, *STAMP_COLUMNS]
    shown = capsys.readouterr().out
    assert "total (plan)" in shown and "chat" in shown


def test_validate_reports_no_problems(good_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`validate` checks a good file and says so."""
    assert main(["validate", str(good_csv)]) == 0
    assert "2 scenarios, no problems" in capsys.readouterr().out


def test_columns_lists_every_input_column(capsys: pytest.CaptureFixture[str]) -> None:
    """`columns --markdown` prints a row for every schema column."""
    assert main(["columns", "--markdown"]) == 0
    out = capsys.readouterr().out
    for column in schema.COLUMNS:
        assert f"`{column.name}`" in out


@pytest.mark.parametrize("kind", ["gpus", "models"])
def test_catalog_lists_entries(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`catalog gpus|models` lists the shipped catalog."""
    assert main(["catalog", kind]) == 0
    assert ("H100-SXM" if kind == "gpus" else "Llama-3.1-70B") in capsys.readouterr().out


def test_user_errors_exit_2_with_every_problem_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad cells exit 2, list every problem with row, column, value and expectation, and
    write nothing."""
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "scenario,model,gpu,peak_qps,avg_prompt_tokens,avg_output_tokens,tp\n"
        "a,llama-3.1-70b,A100-40,10,1000,200,\n"
        "b,llama-3.1-70b,H100,ten,1000,200,3\n",
        encoding="utf-8",
    )
    out_dir = tmp_path / "out"
    assert main(["build", str(bad), "--out", str(out_dir)]) == 2
    err = capsys.readouterr().err
    assert f"reportgen: {bad} has 3 problems; nothing was written." in err
    assert 'row 2 (scenario "a"), column gpu: unknown GPU "A100-40"' in err
    assert 'did you mean "A100-SXM-40GB"' in err
    assert 'row 3 (scenario "b"), column peak_qps: got "ten"; expected a number > 0' in err
    assert 'row 3 (scenario "b"), column tp: got "3" (not allowed); expected one of 1, 2, 4, 8' in (
        err
    )
    assert "Run `reportgen columns`" in err
    assert not out_dir.exists() or not any(out_dir.iterdir())


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing input file is a user error with a clear message, not a traceback."""
    assert main(["estimate", str(tmp_path / "nope.csv")]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "Traceback" not in err


def test_unknown_option_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """Command-line usage errors exit 2 with click's message."""
    assert main(["build", "--nope"]) == 2
    assert "No such option" in capsys.readouterr().err


def test_a_bug_exits_1_without_traceback_unless_debug(
    good_csv: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unexpected exception is reported as a bug (exit 1); --debug shows the traceback."""
    import reportgen.pipeline

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(reportgen.pipeline, "search", broken)
    assert main(["estimate", str(good_csv)]) == 1
    err = capsys.readouterr().err
    assert "internal error (this is a bug): RuntimeError: boom" in err
    assert "Traceback" not in err
    assert main(["estimate", str(good_csv), "--debug"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    """--version prints the package version."""
    assert main(["--version"]) == 0
    assert "reportgen" in capsys.readouterr().out
