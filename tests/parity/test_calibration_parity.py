"""The workbook of a plan that uses your efficiency rows recalculates to the engine's numbers:
the lookup of the most specific row (yours, on the calibrated stack), the efficiencies it holds,
and the notes sentence built from its calibration_note, in `formulas` and in LibreOffice."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from reportgen.calibration.efficiency_file import UserEfficiency
from reportgen.calibration.user_rows import apply
from reportgen.catalog import load_catalogs
from reportgen.engine import RESULT_COLUMNS
from reportgen.pipeline import make_plan
from reportgen.plan import Plan
from reportgen.render.layout import FIRST_ROW, NAME_ROW
from reportgen.render.workbook import write_workbook
from tests.helpers import (
    GENERATED,
    Values,
    recalc_with_formulas,
    recalc_with_libreoffice,
    same_value,
    soffice,
    strip_cached_values,
)
from tests.scenarios import validated

pytestmark = pytest.mark.slow

KEY = "h100-sxm-fp8-vllm"
NOTE = ("Efficiencies calibrated on your load test of 2025-06-03 (vllm 0.11.0), 5 runs, median "
        "error 3.1 %.")
ROWS = (
    dict(scenario="calibrated", model="Llama-3.1-8B", gpu="H100", peak_qps=40,
         avg_prompt_tokens=1000, avg_output_tokens=200, weight_dtype="fp8", kv_dtype="fp8",
         tpot_slo_ms=30),
    dict(scenario="other engine", model="Llama-3.1-8B", gpu="H100", peak_qps=40,
         avg_prompt_tokens=1000, avg_output_tokens=200, weight_dtype="fp8", kv_dtype="fp8",
         engine="sglang"),
)


@pytest.fixture(scope="module")
def plan() -> Plan:
    row = {"family": "hopper", "compute_dtype": "fp8", "mfu_prefill": 0.55, "mfu_decode": 0.33,
           "mbu": 0.62, "step_overhead_ms": 1.8, "throughput_ratio_p10": 0.93,
           "throughput_ratio_p90": 1.06, "calibrated": "load test", "calibration_note": NOTE}
    user = UserEfficiency("mine.csv", pd.DataFrame([row], index=pd.Index([KEY], name="key"),
                                                   dtype=object), None, "")
    checked, calibration = apply(validated(ROWS), user, load_catalogs())
    plan = make_plan(checked, "scenarios.csv", "Calibrated plan", GENERATED, calibration)
    assert plan.results["efficiency_key"].tolist() == [KEY, "hopper-fp8"]
    assert plan.results.iloc[0]["notes"].endswith(NOTE)
    return plan


@pytest.fixture(scope="module")
def bare(plan: Plan, tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("calibration-parity")
    path = tmp / "plan.xlsx"
    write_workbook(plan, path)
    stripped = tmp / "bare.xlsx"
    strip_cached_values(path, stripped)
    return stripped


def _compare(values: Values, plan: Plan) -> None:
    names = f"{NAME_ROW}"  # the machine names, under the readers' labels
    header = {v: k.rstrip("0123456789") for k, v in values["Plan"].items()
              if k.endswith(names) and k[: -len(names)].isalpha()}
    mismatches = []
    for i, (_, row) in enumerate(plan.results.iterrows(), start=FIRST_ROW):
        for name in RESULT_COLUMNS:
            got = values["Plan"].get(f"{header[name]}{i}", "")
            if not same_value(got, row[name]):
                mismatches.append(f"{name}[{i}]: {got!r} != {row[name]!r}")
    assert not mismatches, mismatches[:20]


def test_formulas_recalculate_to_the_engine(bare: Path, plan: Plan) -> None:
    _compare(recalc_with_formulas(bare), plan)


@pytest.mark.skipif(soffice() is None, reason="LibreOffice not installed")
def test_libreoffice_recalculates_to_the_engine(bare: Path, plan: Plan, tmp_path: Path) -> None:
    _compare(recalc_with_libreoffice(bare, tmp_path), plan)
