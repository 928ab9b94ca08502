"""Your efficiency rows in a plan: `build --efficiency FILE` (CSV or XLSX) or an Efficiency
sheet in the scenario workbook. A scenario on the calibrated stack uses your row and says so;
scenarios on other stacks keep the shipped defaults; the PDF's calibration page and the
workbook's calibration block appear only when a scenario uses one of your rows."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from pypdf import PdfReader

from reportgen.cli import main
from reportgen.pipeline import CalibrateOptions, calibrate, load_with_efficiency, make_plan

FIXTURES = Path(__file__).parent / "fixtures"
STACK = {"gpu": "H100", "tp": "1", "weight_dtype": "fp8", "kv_dtype": "fp8", "engine": "vllm",
         "engine_version": "0.11.0"}
SCENARIOS = (
    "scenario,model,gpu,peak_qps,avg_prompt_tokens,avg_output_tokens,weight_dtype,kv_dtype,"
    "engine,tpot_slo_ms\n"
    "Chat on vLLM,Llama-3.1-8B,H100,40,1000,200,fp8,fp8,vllm,30\n"
    "Chat on SGLang,Llama-3.1-8B,H100,40,1000,200,fp8,fp8,sglang,30\n"
)
KEY = "h100-sxm-fp8-vllm"


@pytest.fixture(scope="module")
def efficiency(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("calibrated") / "efficiency.csv"
    calibrate(CalibrateOptions((FIXTURES / "vllm_serve_append.jsonl",), out, stack=STACK))
    return out


@pytest.fixture()
def scenarios(tmp_path: Path) -> Path:
    path = tmp_path / "plan.csv"
    path.write_text(SCENARIOS)
    return path


def test_the_calibrated_stack_uses_your_row(efficiency: Path, scenarios: Path) -> None:
    checked, calibration = load_with_efficiency(scenarios, efficiency)
    plan = make_plan(checked, scenarios.name, calibration=calibration)
    vllm, sglang = plan.results.iloc[0], plan.results.iloc[1]
    rows = pd.read_csv(efficiency).set_index("key")
    assert vllm["efficiency_key"] == KEY and vllm["mbu"] == rows.loc[KEY, "mbu"]
    assert vllm["notes"].endswith(rows.loc[KEY, "calibration_note"])
    assert vllm["notes"].startswith("Efficiencies calibrated on your load test of 2025-06-03 "
                                    "(vllm 0.11.0), 3 runs, median error")
    assert sglang["efficiency_key"] == "hopper-fp8" and "your load test" not in sglang["notes"]
    assert plan.calibration is not None and plan.calibration.used == (KEY,)
    assert plan.calibration.warnings() == ()


def test_a_file_planned_in_blocks_uses_the_same_rows(efficiency: Path, scenarios: Path) -> None:
    """`reportgen estimate` plans in blocks (reportgen.blocks): the rows of yours it reports
    used are the whole plan's, and its text is the whole plan's."""
    from reportgen.blocks import write_results
    from reportgen.pipeline import write_results_csv
    from reportgen.stamp import stamped_results

    checked, calibration = load_with_efficiency(scenarios, efficiency)
    day = dt.date(2026, 1, 15)
    plan = make_plan(checked, scenarios.name, calibration=calibration, generated=day,
                     results_only=True)
    whole = io.StringIO()
    write_results_csv(stamped_results(plan), whole)
    out = io.BytesIO()
    used = write_results(checked, scenarios.name, out, calibration, generated=day, rows=1,
                         workers=0)
    assert used is not None and plan.calibration is not None
    assert used.used == plan.calibration.used == (KEY,)
    assert out.getvalue() == whole.getvalue().encode()


def test_unused_rows_are_reported_not_applied(efficiency: Path, tmp_path: Path) -> None:
    path = tmp_path / "other.csv"
    path.write_text(SCENARIOS.splitlines()[0] + "\n"
                    "Big,Llama-3.1-70B,H200,5,1000,200,bf16,bf16,vllm,50\n")
    checked, calibration = load_with_efficiency(path, efficiency)
    plan = make_plan(checked, path.name, calibration=calibration)
    assert plan.calibration is not None and plan.calibration.used == ()
    (warning,) = plan.calibration.warnings()
    assert f"row {KEY} applies to no scenario" in warning


def test_a_row_with_a_shipped_key_replaces_it(scenarios: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "mine.csv"
    mine.write_text("key,mfu_prefill,mfu_decode,mbu,step_overhead_ms,throughput_ratio_p10,"
                    "throughput_ratio_p90\nhopper-fp8,0.5,0.4,0.6,1.0,0.9,1.1\n")
    code = main(["estimate", str(scenarios), "--efficiency", str(mine)])
    captured = capsys.readouterr()
    assert code == 0
    assert "your row hopper-fp8 replaces the shipped row of the same key" in captured.err
    results = pd.read_csv(io.StringIO(captured.out))
    assert (results["mbu"] == 0.6).all()  # both scenarios use hopper-fp8 (no vllm-specific row)


@pytest.mark.parametrize(("content", "expected"), [
    ("key,mfu_prefill,mfu_decode,mbu,step_overhead_ms,throughput_ratio_p10,throughput_ratio_p90\n"
     "h100-fp8-vllm,0.5,0.4,0.6,1,0.9,1.1\n", "key 'h100-fp8-vllm' names no catalog GPU"),
    ("key,mfu_prefill,mfu_decode,mbu,step_overhead_ms,throughput_ratio_p10,throughput_ratio_p90\n"
     "h100-sxm-fp8-vllm,1.5,0.4,0.6,1,0.9,1.1\n", "column mfu_prefill: got '1.5'; expected a "
     "number from 0.05 to 0.8"),
    ("key,mfu_prefill,mfu_decode,mbu\nhopper-fp8,0.5,0.4,0.6\n",
     "missing columns step_overhead_ms, throughput_ratio_p10, throughput_ratio_p90"),
    ("key,mfu_prefill,mfu_decode,mbu,step_overhead_ms,throughput_ratio_p10,throughput_ratio_p90\n"
     "h100-sxm-fp8,0.5,0.4,0.6,1,0.9,1.1\n", "names a GPU but no engine"),
    ("key,mfu_prefill,mfu_decode,mbu,step_overhead_ms,throughput_ratio_p10,throughput_ratio_p90\n"
     "hopper-fp8,0.5,0.4,0.6,1,1.2,0.9\n", "throughput_ratio_p10 1.2 is above"),
])
def test_bad_efficiency_files(content: str, expected: str, scenarios: Path, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "bad.csv"
    mine.write_text(content)
    out = tmp_path / "out"
    code = main(["build", str(scenarios), "--efficiency", str(mine), "--out", str(out),
                 "--format", "csv"])
    err = capsys.readouterr().err
    assert code == 2 and expected in err and "nothing was written" in err
    assert not out.exists() or not any(out.iterdir())


def test_efficiency_sheet_of_the_scenario_workbook(efficiency: Path, tmp_path: Path) -> None:
    """The calibrate --out .xlsx sheets copied into the scenario workbook apply by themselves."""
    calibrated = tmp_path / "efficiency.xlsx"
    calibrate(CalibrateOptions((FIXTURES / "vllm_serve_append.jsonl",), calibrated,
                               stack=STACK))
    source = openpyxl.load_workbook(calibrated)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Scenarios"
    for line in SCENARIOS.splitlines():
        ws.append([float(c) if c.replace(".", "").isdigit() else c for c in line.split(",")])
    for name in ("Efficiency", "Calibration runs"):
        copy = wb.create_sheet(name)
        for row in source[name].iter_rows(values_only=True):
            copy.append(list(row))
    path = tmp_path / "plan.xlsx"
    wb.save(path)
    checked, calibration = load_with_efficiency(path)
    plan = make_plan(checked, path.name, calibration=calibration)
    assert plan.results.iloc[0]["efficiency_key"] == KEY
    assert plan.calibration is not None and plan.calibration.user.runs is not None
    # --efficiency wins over the sheet, and the build says the sheet was not used
    _, chosen = load_with_efficiency(path, efficiency)
    assert chosen is not None and chosen.user.source == str(efficiency)
    assert "its Efficiency sheet was not used" in chosen.warnings()[0]


@pytest.mark.slow
def test_outputs_show_the_calibration_only_when_used(efficiency: Path, scenarios: Path,
                                                     tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["build", str(scenarios), "--efficiency", str(efficiency), "--out",
                 str(out)]) == 0
    text = "\n".join(p.extract_text() for p in PdfReader(out / "plan.pdf").pages)
    assert "Appendix: calibration on your load test" in text
    assert "calibrated on your load test" in text
    assert "instead of the shipped hopper-fp8" in text
    sheet = openpyxl.load_workbook(out / "plan.xlsx")["Efficiency"]
    column_a = [c.value for c in sheet["A"]]
    assert KEY in column_a and "Calibration on your load test" in column_a
    # the generated workbook read back: the shipped rows on its sheet change nothing
    checked, calibration = load_with_efficiency(out / "plan.xlsx")
    again = make_plan(checked, "plan.xlsx", calibration=calibration)
    assert again.calibration is not None and again.calibration.applied == (KEY,)
    assert again.calibration.warnings() == ()

    other = tmp_path / "other.csv"
    other.write_text(SCENARIOS.splitlines()[0] + "\n"
                     "Big,Llama-3.1-70B,H200,5,1000,200,bf16,bf16,vllm,50\n")
    out2 = tmp_path / "out2"
    assert main(["build", str(other), "--efficiency", str(efficiency), "--out", str(out2)]) == 0
    text = "\n".join(p.extract_text() for p in PdfReader(out2 / "other.pdf").pages)
    assert "Calibration on your load test" not in text
    sheet = openpyxl.load_workbook(out2 / "other.xlsx")["Efficiency"]
    assert "Calibration on your load test" not in [c.value for c in sheet["A"]]
