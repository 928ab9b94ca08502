"""Bad actuals get one clear message per problem, exit 2 and nothing written: missing periods,
counter resets handled (not refused), workloads absent from the plan (named with the closest),
unit mix-ups, conflicting files, plan files that are not reportgen outputs."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.pipeline import BuildOptions, build

PLAN = (
    "scenario,model,gpu,peak_qps,avg_qps,avg_prompt_tokens,avg_output_tokens,tpot_slo_ms\n"
    "chat,Llama-3.1-8B,L40S,10,4,600,250,40\n"
    "coder,Llama-3.1-70B,H100,6,2,1500,800,50\n"
)
HEADER = ("workload,period_start,period_end,requests,prompt_tokens,output_tokens,gpu_hours,"
          "billed_cost,tpot_mean_ms,ttft_mean_ms,kv_cache_usage_mean\n")
# a month of each: 4 req/s ≈ 10.7 M requests; 2 req/s ≈ 5.4 M
GOOD = {
    "chat": "chat,2026-01-01,2026-01-31,11000000,6600000000,2750000000,7440,13800,30,120,0.2\n",
    "coder": "coder,2026-01-01,2026-01-31,5000000,7500000000,4000000000,8928,28900,45,300,0.3\n",
}


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("plan")
    (folder / "plan.csv").write_text(PLAN, encoding="utf-8")
    build(BuildOptions(folder / "plan.csv", folder, "Plan", ("xlsx",), dt.date(2025, 12, 15)))
    return folder / "plan.xlsx"


def _run(plan: Path, tmp_path: Path, body: str, capsys: pytest.CaptureFixture[str],
         *extra: Path) -> tuple[int, str]:
    actuals = tmp_path / "actuals.csv"
    actuals.write_text(HEADER + body, encoding="utf-8")
    out = tmp_path / "out"
    code = main(["review", str(plan), str(actuals), *map(str, extra), "--out", str(out)])
    error = capsys.readouterr().err
    if code != 0:
        assert not out.exists() or not any(out.iterdir()), "nothing may be written"
    return code, error


def test_good_actuals_write_the_three_outputs(plan: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, error = _run(plan, tmp_path, GOOD["chat"] + GOOD["coder"], capsys)
    assert code == 0, error
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "plan-reforecast.csv", "plan-review.pdf", "plan-review.xlsx"]


@pytest.mark.parametrize(("body", "expected"), [
    # a workload the plan does not have: named, with the closest plan workload
    (GOOD["chat"] + GOOD["coder"].replace("coder", "codr"),
     ["workload 'codr' is not in the plan; the closest plan workload is 'coder'",
      "plan workload 'coder' has no actuals"]),
    # February missing between January and March
    (GOOD["chat"] + GOOD["coder"] + GOOD["chat"].replace("2026-01-01,2026-01-31",
                                                         "2026-03-01,2026-03-31"),
     ["workload 'chat' has no row for 2026-02-01–2026-02-28 (a missing period)"]),
    # overlapping rows count a day twice
    (GOOD["chat"] + GOOD["coder"] + GOOD["chat"].replace("2026-01-01", "2026-01-31")
     .replace("2026-01-31,11000000", "2026-02-27,11000000"),
     ["overlapping periods"]),
    # one workload's file stops early: the window is the other's
    (GOOD["chat"].replace("2026-01-31", "2026-01-20") + GOOD["coder"],
     ["workload 'chat' has no data for 2026-01-21–2026-01-31"]),
    # TPOT in seconds in a milliseconds column
    (GOOD["chat"].replace(",30,120,", ",0.03,120,") + GOOD["coder"],
     ["tpot_mean_ms gives 0.03", "seconds in a milliseconds column"]),
    # tokens in thousands
    (GOOD["chat"].replace("6600000000", "6600000") + GOOD["coder"],
     ["prompt_tokens gives 0.6", "are the tokens counted in thousands"]),
    # KV usage as a percentage
    (GOOD["chat"].replace(",0.2\n", ",20\n") + GOOD["coder"],
     ["kv_cache_usage_mean: got '20'", "It looks like a percentage"]),
    # cost in thousands of dollars
    (GOOD["chat"].replace(",13800,", ",13.8,") + GOOD["coder"],
     ["billed_cost gives 13.8", "thousands of dollars"]),
    # not a number, and a blank workload
    (GOOD["chat"].replace("11000000", "eleven million") + ",2026-01-01,2026-01-31\n"
     + GOOD["coder"],
     ["column requests: got 'eleven million'", "the workload is blank"]),
    # the cost nowhere
    (GOOD["chat"].replace(",7440,13800,", ",7440,,") + GOOD["coder"],
     ["workload 'chat': no file gives billed_cost"]),
])
def test_each_problem_is_named_and_nothing_is_written(plan: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      body: str, expected: list[str]) -> None:
    code, error = _run(plan, tmp_path, body, capsys)
    assert code == 2, error
    assert "nothing was written" in error
    for text in expected:
        assert text in error, error
    assert "Traceback" not in error


def test_two_files_giving_the_same_measure_conflict(plan: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    second = tmp_path / "second.csv"
    second.write_text("workload,period_start,period_end,billed_cost\n"
                      "chat,2026-01-01,2026-01-31,14000\n", encoding="utf-8")
    code, error = _run(plan, tmp_path, GOOD["chat"] + GOOD["coder"], capsys, second)
    assert code == 2
    assert "billed_cost is given by both actuals.csv and second.csv" in error


def test_a_file_that_is_no_actuals_format_is_refused(plan: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "scenarios.csv"
    other.write_text(PLAN, encoding="utf-8")
    code, error = _run(plan, tmp_path, GOOD["chat"] + GOOD["coder"], capsys, other)
    assert code == 2
    assert "not an actuals file reportgen knows" in error


def test_a_plan_that_is_not_a_reportgen_output_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenarios = tmp_path / "plan.csv"
    scenarios.write_text(PLAN, encoding="utf-8")
    code, error = _run(scenarios, tmp_path, GOOD["chat"] + GOOD["coder"], capsys)
    assert code == 2
    assert "not a results CSV written by `reportgen build`" in error


def test_an_output_never_replaces_an_input(plan: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Actuals saved under the name the re-forecast would take, in the output folder."""
    out = tmp_path / "out"
    out.mkdir()
    actuals = out / "plan-reforecast.csv"
    actuals.write_text(HEADER + GOOD["chat"] + GOOD["coder"], encoding="utf-8")
    before = actuals.read_bytes()
    code = main(["review", str(plan), str(actuals), "--out", str(out)])
    assert code == 2
    assert "an input of this review; nothing was written" in capsys.readouterr().err
    assert actuals.read_bytes() == before and sorted(p.name for p in out.iterdir()) == [
        "plan-reforecast.csv"]
