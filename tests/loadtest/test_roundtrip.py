"""The round trip: the engine at known efficiencies → what each tool would report for a sweep of
runs, written in that tool's own format → `reportgen calibrate` → the efficiencies it fits.
Every format must give back the known efficiencies within 2 % (the CSV formats round times to
0.01 ms, which is their whole error)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd
import pytest

from reportgen.calibration.loadtest_fit import PARAMETERS
from reportgen.cli import main
from reportgen.pipeline import CalibrateOptions, calibrate
from tests.loadtest import writers as w
from tests.loadtest.synthetic import KNOWN, SHAPES, Figures, stack, truth

STACK_FLAGS = {"gpu": "H100", "tp": "1", "weight_dtype": "fp8", "kv_dtype": "fp8",
               "engine": "vllm", "engine_version": "0.11.0"}
TOLERANCE = 0.02


def _one_file(name: str, write: Callable[[Sequence[Figures]], str]
              ) -> Callable[[Path, Sequence[Figures]], list[Path]]:
    def files(folder: Path, figures: Sequence[Figures]) -> list[Path]:
        path = folder / name
        path.write_text(write(figures), encoding="utf-8")
        return [path]
    return files


def _per_run(name: str, write: Callable[[Figures], str]
             ) -> Callable[[Path, Sequence[Figures]], list[Path]]:
    def files(folder: Path, figures: Sequence[Figures]) -> list[Path]:
        paths = []
        for i, f in enumerate(figures):
            path = folder / f"run{i}" / name
            path.parent.mkdir()
            path.write_text(write(f), encoding="utf-8")
            paths.append(path)
        return paths
    return files


FORMATS: dict[str, tuple[Callable[[Path, Sequence[Figures]], list[Path]], dict[str, str]]] = {
    "vllm-jsonl": (_one_file("vllm.jsonl", w.vllm_jsonl), {}),
    "vllm-legacy": (_one_file("legacy.jsonl", lambda f: w.vllm_jsonl(f, legacy=True)), {}),
    "sglang": (_one_file("sglang.jsonl", w.sglang_jsonl), {"model": "Llama-3.1-8B"}),
    "guidellm-json": (_one_file("benchmarks.json", w.guidellm_json), {}),
    "guidellm-yaml": (_one_file("benchmarks.yaml", w.guidellm_yaml), {}),
    "guidellm-csv": (_one_file("benchmarks.csv", w.guidellm_csv), {}),
    "guidellm-0.3": (_one_file("old.json", lambda f: json.dumps(w.guidellm_v03_report(f))), {}),
    "genai-perf-json": (_per_run("profile_export_genai_perf.json",
                                 lambda f: json.dumps(w.genai_perf_summary(f))), {}),
    "genai-perf-csv": (_per_run("profile_export_genai_perf.csv", w.genai_perf_csv),
                       {"model": "Llama-3.1-8B"}),
    "aiperf-json": (_per_run("profile_export_aiperf.json",
                             lambda f: json.dumps(w.aiperf_summary(f))), {}),
    "aiperf-csv": (_per_run("profile_export_aiperf.csv", w.aiperf_csv),
                   {"model": "Llama-3.1-8B"}),
    "llmperf": (_per_run("summary.json", w.llmperf_json), {}),
}


@pytest.fixture(scope="module")
def figures() -> list[Figures]:
    return truth(stack(), SHAPES, KNOWN)


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_calibrate_recovers_known_efficiencies(fmt: str, figures: list[Figures],
                                               tmp_path: Path) -> None:
    write, extra = FORMATS[fmt]
    results = write(tmp_path, figures)
    out = tmp_path / "out" / "efficiency.csv"
    calibrate(CalibrateOptions(tuple(results), out, stack={**STACK_FLAGS, **extra}))
    row = pd.read_csv(out).iloc[0]
    assert row["key"] == "h100-sxm-fp8-vllm" and row["calibrated"] == "load test"
    assert row["n_runs"] == len(SHAPES)
    errors = {n: float(row[n]) / KNOWN[n] - 1 for n in PARAMETERS}
    assert all(abs(e) <= TOLERANCE for e in errors.values()), errors
    assert row["determined"] == "fitted: " + ", ".join(PARAMETERS)
    runs = pd.read_csv(tmp_path / "out" / "efficiency-runs.csv")
    assert len(runs) == len(SHAPES) and (runs["queued"].isna()).all()


def test_roundtrip_through_the_command_line(figures: list[Figures], tmp_path: Path) -> None:
    """`reportgen calibrate` on a vLLM sweep, the stack given as flags, written as XLSX."""
    results = tmp_path / "sweep.jsonl"
    results.write_text(w.vllm_jsonl(figures))
    out = tmp_path / "efficiency.xlsx"
    code = main(["calibrate", str(results), "--gpu", "H100", "--tp", "1", "--weight-dtype",
                 "fp8", "--kv-dtype", "fp8", "--engine", "vllm", "--engine-version", "0.11.0",
                 "--out", str(out)])
    assert code == 0
    rows = pd.read_excel(out, sheet_name="Efficiency")
    runs = pd.read_excel(out, sheet_name="Calibration runs")
    assert len(rows) == 1 and len(runs) == len(SHAPES)
    for name in PARAMETERS:
        assert abs(float(rows.iloc[0][name]) / KNOWN[name] - 1) <= TOLERANCE


def test_noise_moves_the_fit_not_the_key(figures: list[Figures], tmp_path: Path) -> None:
    """Measurements 10 % slower than the model everywhere: every prediction lands within a few
    percent of them and the shipped row does worse."""
    import dataclasses

    slower = [dataclasses.replace(f, ttft_ms=f.ttft_ms * 1.1, tpot_ms=f.tpot_ms * 1.1)
              for f in figures]
    path = tmp_path / "slow.jsonl"
    path.write_text(w.vllm_jsonl(slower))
    result = calibrate(CalibrateOptions((path,), tmp_path / "e.csv", stack=STACK_FLAGS))
    (fit,) = result.fits
    assert fit.mdape_pct < 3 < fit.shipped_mdape_pct
