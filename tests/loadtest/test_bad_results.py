"""Result files and efficiency files that cannot be used: one clear message (which file, what
was found, what was expected, what to do), exit code 2, nothing written."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from reportgen.cli import main
from tests.loadtest import writers as w
from tests.loadtest.synthetic import KNOWN, stack, truth

FIXTURES = Path(__file__).parent / "fixtures"
STACK = ["--gpu", "H100", "--tp", "1", "--weight-dtype", "fp8", "--engine", "vllm",
         "--engine-version", "0.11.0"]


def _calibrate(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> str:
    out = tmp_path / "out"
    code = main(["calibrate", *args, "--out", str(out / "efficiency.csv")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "nothing was written" in err
    assert not out.exists() or not any(out.iterdir())
    return err


def _vllm(**changes: Any) -> dict[str, Any]:
    record = json.loads((FIXTURES / "vllm_serve.json").read_text())
    record.update(changes)
    return record


def _write(tmp_path: Path, name: str, content: Any) -> str:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


def test_truncated_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = (FIXTURES / "vllm_serve.json").read_text()
    err = _calibrate(capsys, tmp_path, _write(tmp_path, "cut.json", text[:2000]), *STACK)
    assert "cut.json: ends before the JSON is complete" in err and "truncated" in err
    assert "rerun" in err


def test_truncated_json_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = (FIXTURES / "vllm_serve_append.jsonl").read_text().rstrip()
    err = _calibrate(capsys, tmp_path, _write(tmp_path, "cut.jsonl", text[:-400]), *STACK)
    assert "line 3 is not valid JSON" in err and "the last line is cut short" in err


def test_unknown_tool(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = _calibrate(capsys, tmp_path, _write(tmp_path, "x.json", {"tokens": 5, "ok": True}),
                     *STACK)
    assert "is not a load-test result reportgen recognises" in err
    assert "keys tokens, ok" in err and "vllm bench serve" in err and "llmperf" in err


def test_a_tools_other_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = {"metadata": {"x_request_id": "a"}, "metrics": {"request_latency": {"value": 1}}}
    err = _calibrate(capsys, tmp_path, _write(tmp_path, "profile_export.jsonl",
                                              json.dumps(record) + "\n"), *STACK)
    assert "AIPerf's per-request log" in err and "profile_export_aiperf.json" in err


@pytest.mark.parametrize("name", ["empty.json", "folder"])
def test_empty_file_and_folder(name: str, capsys: pytest.CaptureFixture[str],
                               tmp_path: Path) -> None:
    path = tmp_path / name
    if name == "folder":
        path.mkdir()
    else:
        path.write_text("  \n")
    err = _calibrate(capsys, tmp_path, str(path), *STACK)
    assert ("is empty" in err) if name != "folder" else ("is a folder" in err)


def test_zero_successful_requests(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    zeros = {k: 0.0 for k in _vllm() if k.startswith(("mean_", "median_", "std_", "p99_"))}
    record = _vllm(completed=0, failed=300, total_output_tokens=0, request_throughput=0.0,
                   output_throughput=0.0, **zeros)
    err = _calibrate(capsys, tmp_path, _write(tmp_path, "dead.json", record), *STACK)
    assert "dead.json (the run): zero successful requests (300 failed)" in err


def test_sglang_all_failed_writes_nan(capsys: pytest.CaptureFixture[str],
                                      tmp_path: Path) -> None:
    """bench_serving writes NaN statistics and completed 0 when every request failed."""
    record = w.sglang_record(truth(stack(), [(512, 128, 4)], KNOWN)[0])
    record.update(completed=0, total_output_tokens=0, request_throughput=0.0,
                  output_throughput=0.0, mean_ttft_ms=math.nan, p99_ttft_ms=math.nan)
    err = _calibrate(capsys, tmp_path, _write(tmp_path, "s.jsonl", json.dumps(record) + "\n"),
                     *STACK, "--model", "Llama-3.1-8B")
    assert "s.jsonl (the run): zero successful requests" in err


def test_too_many_failures(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    err = _calibrate(capsys, tmp_path, _write(tmp_path, "f.json", _vllm(failed=150)), *STACK)
    assert "150 of" in err and "requests failed" in err and "at most 10%" in err


def test_mixed_models_in_one_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lines = [json.loads(x) for x in (FIXTURES / "vllm_serve_append.jsonl").read_text()
             .splitlines() if x]
    lines[2]["model_id"] = "Qwen/Qwen3-8B"
    err = _calibrate(capsys, tmp_path, _write(tmp_path, "m.jsonl", "\n".join(map(json.dumps,
                                                                               lines))), *STACK)
    assert "m.jsonl: mixes models" in err and "'Qwen/Qwen3-8B' (line 3)" in err
    assert "one model per result file" in err


def test_percentiles_absent(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = {k: v for k, v in _vllm().items() if not k.startswith("p99_")}
    err = _calibrate(capsys, tmp_path, _write(tmp_path, "p.json", record), *STACK)
    assert "no 99th percentile of TTFT" in err and "--metric-percentiles" in err


def test_aiperf_run_not_complete(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    summary = json.loads((FIXTURES / "profile_export_aiperf.json").read_text())
    summary.update(is_complete=False, incomplete_reason="benchmark duration reached early")
    err = _calibrate(capsys, tmp_path, _write(tmp_path, "a.json", summary), *STACK)
    assert "AIPerf marks this run as not complete (benchmark duration reached early)" in err


def test_run_not_streamed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """genai-perf without --streaming: TTFT is the whole latency and there is no ITL."""
    summary = json.loads((FIXTURES / "profile_export_genai_perf.json").read_text())
    del summary["inter_token_latency"]
    summary["input_config"]["streaming"] = False
    err = _calibrate(capsys, tmp_path, _write(tmp_path, "g.json", summary), *STACK)
    assert "mean TPOT missing" in err and "streaming" in err


def test_missing_stack_facts_are_named(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    err = _calibrate(capsys, tmp_path, str(FIXTURES / "vllm_serve.json"), "--gpu", "H100")
    assert "the file does not say tp, weight_dtype, engine, engine_version" in err
    assert "--tp … --weight-dtype … --engine … --engine-version …" in err
    assert "--stack stack.csv" in err


@pytest.mark.parametrize(("flag", "value", "expected"), [
    ("--gpu", "H1000", "GPU 'H1000' is not in the catalog"),
    ("--tp", "3", "tp '3' is not one of 1, 2, 4, 8"),
    ("--engine", "tgi", "engine 'tgi' is not one of vllm, tensorrt-llm, sglang"),
    ("--model", "ensemble", "model 'ensemble' is not in the catalog"),
    ("--date", "June 3rd", "date 'June 3rd' is not a date (YYYY-MM-DD)"),
])
def test_wrong_stack_facts(flag: str, value: str, expected: str,
                           capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = [*STACK]
    if flag in args:
        args[args.index(flag) + 1] = value
    else:
        args += [flag, value]
    err = _calibrate(capsys, tmp_path, str(FIXTURES / "vllm_serve.json"), *args)
    assert expected in err


def test_problems_of_every_file_at_once(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    err = _calibrate(capsys, tmp_path, _write(tmp_path, "a.json", "{"),
                     _write(tmp_path, "b.json", {"x": 1}), *STACK)
    assert "2 problems" in err and "a.json" in err and "b.json" in err


def test_out_must_not_replace_an_input(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    results = tmp_path / "efficiency.csv"
    results.write_text((FIXTURES / "vllm_serve.json").read_text())
    before = results.read_text()
    code = main(["calibrate", str(results), *STACK, "--out", str(results)])
    assert code == 2 and "would overwrite" in capsys.readouterr().err
    assert results.read_text() == before


def test_out_must_be_csv_or_xlsx(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["calibrate", str(FIXTURES / "vllm_serve.json"), *STACK, "--out",
                 str(tmp_path / "e.json")])
    assert code == 2 and "expected a .csv or .xlsx" in capsys.readouterr().err
