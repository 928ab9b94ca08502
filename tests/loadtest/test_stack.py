"""What the result files do not say comes from flags, a stack file or the file's own labels, in
that order of precedence; a model named by a local path or an -Instruct id still resolves."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from reportgen.calibration.stack import read_stack_file, resolve
from reportgen.catalog import load_catalogs
from reportgen.loadtest import read_file
from reportgen.loadtest.files import ResultFileError

FIXTURES = Path(__file__).parent / "fixtures"


def test_file_labels_are_enough() -> None:
    """vLLM --metadata gpu=H100 tp=1 … (the legacy fixture) needs no flag at all."""
    runs = read_file(FIXTURES / "vllm_benchmark_serving_legacy.jsonl")
    stacks, _ = resolve(runs, {}, {}, load_catalogs())
    s = stacks[0]
    assert (s.model, s.gpu, s.tp, s.weight_dtype, s.kv_dtype, s.engine, s.engine_version) == (
        "Llama-3.1-8B", "H100-SXM", 1, "fp8", "fp8", "vllm", "0.9.1")
    assert s.instances == 1 and math.isnan(s.max_batch) and s.date == "2025-06-03"


def test_flags_beat_the_stack_file_which_beats_labels(tmp_path: Path) -> None:
    stack_file = tmp_path / "stack.csv"
    stack_file.write_text(
        "file,gpu,tp,engine_version,instances\n"
        ",H200,2,0.10.0,\n"
        "vllm_benchmark_serving_legacy.jsonl,,,0.10.2,2\n")
    runs = read_file(FIXTURES / "vllm_benchmark_serving_legacy.jsonl")
    rows = read_stack_file(stack_file)
    stacks, _ = resolve(runs, {"tp": "4"}, rows, load_catalogs())
    s = stacks[0]
    assert s.gpu == "H200-SXM"  # the stack file's every-file row over the label
    assert s.engine_version == "0.10.2" and s.instances == 2  # the file's own row
    assert s.tp == 4  # the flag over everything


def test_stack_file_rejects_unknown_columns(tmp_path: Path) -> None:
    stack_file = tmp_path / "stack.csv"
    stack_file.write_text("file,gpu,tensor_parallel\nx.json,H100,4\n")
    with pytest.raises(ResultFileError, match="unknown column tensor_parallel"):
        read_stack_file(stack_file)


def test_model_from_a_local_path_resolves() -> None:
    (run,) = read_file(FIXTURES / "vllm_serve.json")
    run = dataclasses.replace(run, model="/models/meta-llama/Llama-3.1-8B-Instruct")
    flags = {"gpu": "H100", "tp": "1", "weight_dtype": "fp8", "engine": "vllm",
             "engine_version": "0.11.0"}
    stacks, _ = resolve([run], flags, {}, load_catalogs())
    assert stacks[0].model == "Llama-3.1-8B" and stacks[0].kv_dtype == "bf16"


def test_date_falls_back_to_the_files_modification_day(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_bytes((FIXTURES / "profile_export_genai_perf.json").read_bytes())
    (run,) = read_file(path)
    assert run.date == ""
    flags = {"gpu": "H100", "tp": "1", "weight_dtype": "fp8", "engine": "vllm",
             "engine_version": "0.11.0"}
    (s,), _ = resolve([run], flags, {}, load_catalogs())
    assert s.date_source == "the result file's modification date" and len(s.date) == 10
