"""The calibration page's view model and HTML: your efficiencies against the shipped row they
replace, every run measured against predicted, the agreement chart; nothing without a used row."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.pipeline import CalibrateOptions, calibrate, load_with_efficiency, make_plan
from reportgen.plan import Plan
from reportgen.render.context.calibration import calibration
from reportgen.render.pdf import render_html

FIXTURES = Path(__file__).parents[1] / "loadtest" / "fixtures"
STACK = {"gpu": "H100", "tp": "1", "weight_dtype": "fp8", "kv_dtype": "fp8", "engine": "vllm",
         "engine_version": "0.11.0"}
HEADER = "scenario,model,gpu,peak_qps,avg_prompt_tokens,avg_output_tokens,weight_dtype,engine\n"


def _plan(tmp: Path, rows: str, efficiency: Path) -> Plan:
    path = tmp / "plan.csv"
    path.write_text(HEADER + rows)
    checked, cal = load_with_efficiency(path, efficiency)
    return make_plan(checked, path.name, calibration=cal)


@pytest.fixture(scope="module")
def efficiency(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("page") / "efficiency.csv"
    calibrate(CalibrateOptions((FIXTURES / "vllm_serve_append.jsonl",), out, stack=STACK))
    return out


def test_page_for_a_used_row(efficiency: Path, tmp_path: Path) -> None:
    plan = _plan(tmp_path, "Chat,Llama-3.1-8B,H100,40,1000,200,fp8,vllm\n", efficiency)
    page = calibration(plan)
    assert page is not None
    (stack,) = page.stacks
    assert stack.key == "h100-sxm-fp8-vllm" and stack.replaces == "hopper-fp8"
    assert stack.headline.startswith("Efficiencies calibrated on your load test of 2025-06-03")
    assert "instead of the shipped hopper-fp8" in stack.headline
    labels = [row[0].value for row in stack.values.rows]
    assert labels[:4] == ["MFU in prefill", "MFU in decode", "Memory-bandwidth utilisation",
                          "Step overhead (ms)"]
    assert stack.runs is not None and len(stack.runs.rows) == 3
    assert stack.chart is not None and stack.chart.startswith("data:image/png;base64,")
    assert any("p99 TTFT was" in n for n in stack.notes)
    html = render_html(plan)
    assert 'id="calibration"' in html and "vllm_serve_append.jsonl line 2" in html


def test_no_page_without_a_used_row(efficiency: Path, tmp_path: Path) -> None:
    plan = _plan(tmp_path, "Chat,Llama-3.1-8B,H100,40,1000,200,fp8,sglang\n", efficiency)
    assert calibration(plan) is None
    assert 'id="calibration"' not in render_html(plan)


def test_page_says_when_the_runs_file_is_missing(efficiency: Path, tmp_path: Path) -> None:
    alone = tmp_path / "alone.csv"
    alone.write_bytes(efficiency.read_bytes())  # without alone-runs.csv beside it
    plan = _plan(tmp_path, "Chat,Llama-3.1-8B,H100,40,1000,200,fp8,vllm\n", alone)
    page = calibration(plan)
    assert page is not None and page.stacks[0].runs is None and page.stacks[0].chart is None
    assert "per-run comparison was not found" in page.stacks[0].notes[0]
