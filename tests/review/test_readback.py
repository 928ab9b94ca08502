"""Reading a plan of record back: a workbook or results CSV written by `reportgen build` is
recognised, re-validated and re-estimated; every kind of edit made after it was written is
detected and said, and files that are not reportgen outputs are refused (exit 2)."""

from __future__ import annotations

import datetime as dt
import json
import re
import zipfile
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from reportgen.errors import PlanFileError
from reportgen.pipeline import BuildOptions, build
from reportgen.render.layout import FIRST_ROW, NAME_ROW
from reportgen.review.readback import read_plan
from reportgen.review.workloads import uncounted
from tests.helpers import patch_number_cell, recalc_with_libreoffice, soffice

SCENARIOS = (
    "scenario,workload,model,gpu,tp,peak_qps,avg_qps,avg_prompt_tokens,avg_output_tokens,"
    "tpot_slo_ms\n"
    "chat,,Llama-3.1-8B,L40S,1,10,4,600,250,40\n"
    "+1+1,big,Llama-3.1-70B,H100|H200,,20,8,1500,800,50\n"  # a formula-like name; a search
    "+1+1 on L40S,big,Llama-3.1-70B,L40S,8,20,8,1500,800,50\n"  # the same workload's option
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("plan")
    source = folder / "plan.csv"
    source.write_text(SCENARIOS, encoding="utf-8")
    build(BuildOptions(source, folder, "Test plan", ("csv", "xlsx"), dt.date(2026, 1, 2)))
    return folder


def _rows(path: Path, sheet: str) -> list[tuple[object, ...]]:
    wb = openpyxl.load_workbook(path, read_only=True)
    try:
        return [tuple(r) for r in wb[sheet].iter_rows(values_only=True)]
    finally:
        wb.close()


def _column_of(path: Path, sheet: str, header: str) -> str:
    return openpyxl.utils.get_column_letter(_rows(path, sheet)[NAME_ROW - 1].index(header) + 1)


def _edit_xml(src: Path, dst: Path, sheet_part: str, edit: object) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == sheet_part:
                data = edit(data.decode("utf-8")).encode("utf-8")  # type: ignore[operator]
            zout.writestr(info, data)


def _part(path: Path, title: str) -> str:
    from reportgen.render.xlsx_cache import sheet_parts

    with zipfile.ZipFile(path) as archive:
        return sheet_parts(archive)[title]


def test_an_untouched_workbook_and_results_csv_read_back_as_written(built: Path) -> None:
    for name, kind in (("plan.xlsx", "workbook"), ("plan-results.csv", "results CSV")):
        record = read_plan(built / name)
        assert record.kind == kind
        assert not record.check.edited, record.check.findings
        assert record.check.findings == ()
        assert list(record.plan.results["scenario"]) == ["chat", "+1+1", "+1+1 on L40S"]
        assert list(record.plan.results["counted"]) == [1, 1, 0]
        assert uncounted(record.plan) == {
            "+1+1 on L40S": "an option of workload 'big' that another row beat"}
        assert record.plan.provenance.title == "Test plan"
        assert record.plan.provenance.generated == dt.date(2026, 1, 2)


def test_an_input_edited_in_the_workbook_is_detected(built: Path, tmp_path: Path) -> None:
    """peak_qps of "chat" changed in the XML: the cached results are now stale."""
    edited = tmp_path / "edited.xlsx"
    column = _column_of(built / "plan.xlsx", "Scenarios", "peak_qps")
    patch_number_cell(built / "plan.xlsx", edited, f"Scenarios!{column}{FIRST_ROW}", 15.0)
    record = read_plan(edited)
    assert record.check.edited
    text = " ".join(record.check.findings)
    assert "inputs differ from those the workbook was written from" in text
    assert 'of "chat") holds' in text  # results that no longer follow the inputs
    assert float(record.plan.scenarios.loc[0, "peak_qps"]) == 15.0


@pytest.mark.slow
@pytest.mark.skipif(soffice() is None, reason="LibreOffice not installed")
def test_an_edit_saved_by_a_spreadsheet_program_is_detected(built: Path,
                                                            tmp_path: Path) -> None:
    """The same edit, then the workbook opened, recalculated and saved by LibreOffice: the
    results follow the new input, so only the inputs digest tells."""
    edited = tmp_path / "edited.xlsx"
    column = _column_of(built / "plan.xlsx", "Scenarios", "peak_qps")
    patch_number_cell(built / "plan.xlsx", edited, f"Scenarios!{column}{FIRST_ROW}", 15.0)
    recalc_with_libreoffice(edited, tmp_path, always_recalc=True)
    saved = next(tmp_path.glob("lo-run-*/out/edited.xlsx"))
    record = read_plan(saved)
    assert record.check.edited
    assert len(record.check.findings) == 1
    assert "inputs differ" in record.check.findings[0]


def test_a_result_typed_over_its_formula_is_detected(built: Path, tmp_path: Path) -> None:
    column = _column_of(built / "plan.xlsx", "Plan", "gpus")
    edited = tmp_path / "typed.xlsx"

    def type_over(xml: str) -> str:
        pattern = re.compile(rf'<c r="{column}{FIRST_ROW + 1}"([^>]*)><f>[^<]*</f><v>[^<]*</v></c>')
        new, n = pattern.subn(rf'<c r="{column}{FIRST_ROW + 1}"\1><v>4</v></c>', xml)
        assert n == 1
        return new

    _edit_xml(built / "plan.xlsx", edited, _part(built / "plan.xlsx", "Plan"), type_over)
    record = read_plan(edited)
    text = " ".join(record.check.findings)
    assert record.check.edited
    assert f"Plan!{column}{FIRST_ROW + 1} (gpus)" in text
    assert "typed values where reportgen wrote formulas" in text
    assert f'Plan!{column}{FIRST_ROW + 1} (gpus of "+1+1") holds 4' in text
    assert float(record.plan.results.loc[1, "gpus"]) == 4.0  # the plan as the reader saw it


def test_a_digest_of_another_scheme_is_not_taken_for_an_edit(built: Path,
                                                             tmp_path: Path) -> None:
    """A workbook stamped by a reportgen whose digests were computed differently: the digests
    cannot be checked (said so), re-estimation still can, and nothing is called edited."""
    older = tmp_path / "older.xlsx"
    _edit_xml(built / "plan.xlsx", older, _part(built / "plan.xlsx", "Summary"),
              lambda xml: xml.replace("rgd3:", ""))
    record = read_plan(older)
    assert not record.check.edited
    assert "no inputs digest this reportgen can recompute" in record.check.findings[0]


def test_a_price_edited_on_the_gpus_sheet_is_detected(built: Path, tmp_path: Path) -> None:
    rows = _rows(built / "plan.xlsx", "GPUs")
    names = [r[0] for r in rows[FIRST_ROW - 1:]]
    column = _column_of(built / "plan.xlsx", "GPUs", "price_usd")
    edited = tmp_path / "price.xlsx"
    patch_number_cell(built / "plan.xlsx", edited,
                      f"GPUs!{column}{names.index('L40S') + FIRST_ROW}", 9.99)
    text = " ".join(read_plan(edited).check.findings)
    assert "reference data differs" in text and "GPUs" in text


def test_an_edited_results_csv_is_detected(built: Path, tmp_path: Path) -> None:
    frame = pd.read_csv(built / "plan-results.csv", dtype=str, keep_default_na=False)
    gpus = frame.copy()
    gpus.loc[0, "gpus"] = "999"
    gpus.to_csv(tmp_path / "gpus.csv", index=False)
    text = " ".join(read_plan(tmp_path / "gpus.csv").check.findings)
    assert 'row 2 (gpus of "chat") holds 999' in text

    inputs = frame.copy()
    row = json.loads(inputs.loc[1, "input_row"])
    row["avg_output_tokens"] = 900
    inputs.loc[1, "input_row"] = json.dumps(row)
    inputs.to_csv(tmp_path / "inputs.csv", index=False)
    record = read_plan(tmp_path / "inputs.csv")
    assert record.check.edited
    assert "inputs differ" in " ".join(record.check.findings)


def test_files_that_are_not_reportgen_outputs_are_refused(built: Path, tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    wb.active.title = "Scenarios"
    wb.active.append(["scenario", "model", "gpu", "peak_qps", "avg_prompt_tokens",
                      "avg_output_tokens"])
    wb.active.append(["chat", "Llama-3.1-8B", "L40S", 10, 600, 250])
    wb.save(tmp_path / "scenarios.xlsx")
    (tmp_path / "results.csv").write_text(
        pd.read_csv(built / "plan-results.csv").drop(columns=["input_row", "provenance"])
        .to_csv(index=False))
    (tmp_path / "plan.json").write_text("{}")
    for name, message in (("scenarios.xlsx", "not a workbook written by `reportgen build`"),
                          ("results.csv", "not a results CSV written by `reportgen build`"),
                          ("plan.json", "a plan must be the workbook"),
                          ("missing.xlsx", "no such file")):
        with pytest.raises(PlanFileError, match=message):
            read_plan(tmp_path / name)
