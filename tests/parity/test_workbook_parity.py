"""The workbook computes what the engine computes.

The parity workbook (conftest.PARITY_ROWS, 14 scenarios, about 34,000 formula cells: each row
of the Options and Levers sheets repeats the registry's formulas) is recalculated by the
pure-Python `formulas` package and by LibreOffice headless, and every Plan, Options and Levers
cell, every Summary total and every Batch curve cell is compared with the engine (numbers to a
relative 1e-9, absolute for zeros; text exactly). Then inputs are changed in the workbook (a
peak_qps, a gpu_hour_price, the SAFETY_FACTOR constant, the Batch curve's scenario) and the
recalculated workbook is compared with the engine run on the changed input.

Run time here: about 5.5 min on one core (`formulas` reads and compiles the workbook once, about
150-170 s, and calculates the whole of it in about 60-90 s, or only the sheets a test compares in
about 35 s; each LibreOffice run 5-7 s). LibreOffice tests are skipped when soffice is not
installed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openpyxl
import pandas as pd
import pytest

from reportgen.choose import EMPTY_CHOICE, choice, guards
from reportgen.engine import RESULT_COLUMNS, Tables, estimate
from reportgen.levers import planned_inputs as lever_inputs
from reportgen.plan import Plan
from reportgen.render.levers_sheet import lever_rows
from reportgen.render.options_sheet import option_rows
from reportgen.render.plan_sheet import CHOICE
from reportgen.render.workbook import SPARE_ROWS, curve_row, write_workbook
from reportgen.search import _RANK_COLUMNS, CONFIG, concrete, engine_inputs, rank_fields
from reportgen.units import CONSTANTS
from tests.helpers import (
    Values,
    build_plan,
    patch_number_cell,
    recalc_with_formulas,
    recalc_with_libreoffice,
    rel_diff,
    same_value,
    soffice,
    strip_cached_values,
)

pytestmark = pytest.mark.slow

needs_libreoffice = pytest.mark.skipif(soffice() is None, reason="LibreOffice not installed")

TOTALS = (
    "gpus", "nodes", "monthly_cost", "annual_cost",
    "gpus_low", "gpus_high", "monthly_cost_low", "monthly_cost_high",
)


# --- where things are (read from the workbook, not from the writer's internals) -----------------


@dataclass(frozen=True)
class Where:
    """Cell addresses the comparisons need."""

    scenario_cols: dict[str, str]
    plan_cols: dict[str, str]
    constants: dict[str, str]  # constant name → "Assumptions!B7"
    totals: dict[str, str]  # total name → "B9" on Summary
    summary_rows: list[int]  # per-scenario rows on Summary
    summary_cols: dict[str, str]
    curve_header: int
    curve_cols: dict[str, str]
    option_cols: dict[str, str]
    lever_cols: dict[str, str]
    first_row: int  # the first scenario's row on Scenarios, Plan, Options and Levers
    formula_cells: dict[str, list[str]] = field(default_factory=dict)


def _header(ws: Any, row: int) -> dict[str, str]:
    return {str(c.value): c.column_letter for c in ws[row] if c.value is not None}


def _row_named(ws: Any, name: str) -> int:
    """The Summary row whose label's comment is the machine name ``name``."""
    for cell in ws["A"]:
        if cell.comment is not None and cell.comment.text == name:
            return int(cell.row)
    raise LookupError(f"no row of {ws.title} is named {name!r}")


def _row_of(ws: Any, column: str, text: str) -> int:
    for cell in ws[column]:
        if cell.value == text:
            return int(cell.row)
    raise LookupError(f"{text!r} not in column {column} of {ws.title}")


@pytest.fixture(scope="module")
def where(parity_workbook: Path) -> Where:
    wb = openpyxl.load_workbook(parity_workbook)
    summary, curve = wb["Summary"], wb["Batch curve"]
    table = _row_of(summary, "A", "scenario")
    names = _row_of(wb["Plan"], "A", "scenario")  # the machine names, under the labels
    n = wb["Plan"].max_row - names
    return Where(
        scenario_cols=_header(wb["Scenarios"], _row_of(wb["Scenarios"], "A", "scenario")),
        plan_cols=_header(wb["Plan"], names),
        constants={str(c.value): f"Assumptions!B{c.row}" for c in wb["Assumptions"]["A"][1:]},
        totals={name: f"B{_row_named(summary, name)}" for name in TOTALS},
        summary_rows=list(range(table + 1, table + 1 + n)),
        summary_cols=_header(summary, table),
        curve_header=_row_of(curve, "A", "batch"),
        curve_cols=_header(curve, _row_of(curve, "A", "batch")),
        option_cols=_header(wb["Options"], _row_of(wb["Options"], "A", "scenario")),
        lever_cols=_header(wb["Levers"], _row_of(wb["Levers"], "A", "scenario")),
        first_row=names + 1,
        formula_cells={ws.title: [c.coordinate for row in ws.iter_rows() for c in row
                                  if c.data_type == "f"] for ws in wb.worksheets},
    )


# --- comparisons ----------------------------------------------------------------------------------


@dataclass
class Tally:
    """Cells compared, the largest relative difference, and what disagreed."""

    compared: int = 0
    max_rel: float = 0.0
    mismatches: list[str] = field(default_factory=list)

    def check(self, label: str, got: Any, expected: Any) -> None:
        self.compared += 1
        if not isinstance(expected, str) and isinstance(got, int | float):
            self.max_rel = max(self.max_rel, rel_diff(float(got), float(expected)))
        if not same_value(got, expected):
            self.mismatches.append(f"{label}: got {got!r}, expected {expected!r}")

    def assert_ok(self) -> None:
        shown = "\n".join(self.mismatches[:25])
        assert not self.mismatches, f"{len(self.mismatches)} of {self.compared} differ:\n{shown}"


CHOICE_COLUMNS = tuple(name for name, _, _ in CHOICE)


def with_choice(results: pd.DataFrame) -> pd.DataFrame:
    """Registry results plus what the choice makes of them (counted, status) and the guarded
    figures it compares."""
    chosen = choice(results)
    return pd.concat([results.drop(columns=list(CHOICE_COLUMNS), errors="ignore"), chosen,
                      guards(results, chosen["counted"])], axis=1)


def check_plan(tally: Tally, values: Values, results: pd.DataFrame, where: Where) -> None:
    plan = values["Plan"]
    guarded = guards(results, results["counted"])
    for i in range(len(results)):
        row = results.iloc[i]
        for name in (*RESULT_COLUMNS, *CHOICE_COLUMNS):
            ref = f"{where.plan_cols[name]}{i + where.first_row}"
            expected = guarded[name].iloc[i] if name in guarded else row[name]
            tally.check(f"Plan!{ref} ({row['scenario']}, {name})", plan.get(ref), expected)
    first_spare = len(results) + where.first_row
    for r in range(first_spare, first_spare + SPARE_ROWS):  # blank: no scenario
        for name in RESULT_COLUMNS:
            ref = f"{where.plan_cols[name]}{r}"
            tally.check(f"Plan!{ref} (spare row, {name})", plan.get(ref) or "", "")
        for name in CHOICE_COLUMNS:
            ref = f"{where.plan_cols[name]}{r}"
            want = EMPTY_CHOICE[name]
            got = plan.get(ref)
            tally.check(f"Plan!{ref} (spare row, {name})", got or "" if want == "" else got, want)


def check_summary(tally: Tally, values: Values, results: pd.DataFrame, where: Where) -> None:
    summary = values["Summary"]
    counted = results["counted"].astype(float)
    for name, ref in where.totals.items():
        expected = float((results[name].astype(float) * counted).sum())
        tally.check(f"Summary!{ref} (total {name})", summary.get(ref), expected)
    slots = counted.cumsum().where(counted == 1)  # place among the budgeted rows
    for i, r in enumerate(where.summary_rows):
        for name, col in where.summary_cols.items():
            got = summary.get(f"{col}{r}")
            if i >= len(results):  # a spare row
                tally.check(f"Summary!{col}{r} (spare row)", got or "", "")
            elif name == "chart_slot":
                slot = slots.iloc[i]
                tally.check(f"Summary!{col}{r}", got, "" if pd.isna(slot) else float(slot))
            else:
                tally.check(f"Summary!{col}{r}", got, results.iloc[i][name])


def check_curve(tally: Tally, values: Values, plan: Plan, where: Where, selected: str) -> None:
    curve = values["Batch curve"]
    assert curve["B2"] == selected
    position = list(plan.scenarios["scenario"]).index(selected)
    one = plan.scenarios.iloc[[position]]
    batch_col = where.curve_cols["batch"]
    first = where.curve_header + 1
    rows = [r for r in range(first, first + 100) if f"{batch_col}{r}" in curve]
    base = estimate(one, plan.tables, overrides={"batch": 1.0})
    slo = one["tpot_slo_ms"].iloc[0]
    for r in rows:
        batch = float(curve[f"{batch_col}{r}"])
        at = estimate(one, plan.tables, overrides={"batch": batch}).iloc[0]
        for name, col in where.curve_cols.items():
            ref = f"{col}{r}"
            if name in at.index and name != "batch":
                tally.check(f"Batch curve!{ref} ({name} at {batch:g})", curve.get(ref), at[name])
        throughput = "output_tokens_per_s_per_gpu"
        gain = at[throughput] / base[throughput].iloc[0]
        tally.check("roofline_gain", curve.get(f"{where.curve_cols['roofline_gain']}{r}"), gain)
        tally.check("tutorial_batching_gain",
                    curve.get(f"{where.curve_cols['tutorial_batching_gain']}{r}"),
                    2 * batch / (batch + 1))
        got_slo = curve.get(f"{where.curve_cols['tpot_slo_ms']}{r}")
        if pd.isna(slo):
            tally.check("tpot_slo_ms (none)", got_slo, "#N/A")
        else:
            tally.check("tpot_slo_ms", got_slo, float(slo))
    assert len(rows) >= 10


def options_expected(
    plan: Plan, tables: Tables, typed: pd.DataFrame | None = None,
    constants: dict[str, float] | None = None, scenarios: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Options sheet's rows as the engine plans them with ``tables`` (and edited inputs),
    with their live rank, and the Plan's scenarios with each searching row at its rank-1
    option."""
    options = option_rows(plan)
    typed = plan.typed if typed is None else typed
    results = estimate(concrete(typed, options), tables, constants).copy()  # one block
    fields = rank_fields(results, options["preference"].to_numpy(), options.index.to_numpy())
    fields["row"] = options["row"].to_numpy()
    ordered = fields.sort_values(["row", *_RANK_COLUMNS], kind="stable")
    results["rank"] = ordered.groupby("row").cumcount().reindex(fields.index) + 1
    scenarios = (plan.scenarios if scenarios is None else scenarios).copy()
    firsts = results[results["rank"] == 1]
    inputs = engine_inputs(options.loc[firsts.index])
    for k, name in enumerate(firsts.index):
        i = int(options.loc[name, "row"])
        for c in CONFIG:
            scenarios.loc[scenarios.index[i], c] = inputs[c][k]
    return results, scenarios


def check_options(tally: Tally, values: Values, expected: pd.DataFrame, where: Where) -> None:
    sheet = values["Options"]
    rank = where.option_cols["rank"]
    for k in range(len(expected)):
        row = expected.iloc[k]
        for name in RESULT_COLUMNS:
            ref = f"{where.plan_cols[name]}{k + where.first_row}"
            tally.check(f"Options!{ref} ({row['scenario']}, {name})", sheet.get(ref), row[name])
        at = k + where.first_row
        tally.check(f"Options!{rank}{at} (rank)", sheet.get(f"{rank}{at}"),
                    float(row["rank"]))


def check_levers(tally: Tally, values: Values, plan: Plan, where: Where) -> None:
    """Every lever row recomputes what the engine plans for the scenario with that change."""
    sheet = values["Levers"]
    levers = lever_rows(plan)
    expected = estimate(lever_inputs(plan, levers), plan.tables)
    assert len(levers) >= 10
    for k in range(len(levers)):
        row, lever = expected.iloc[k], levers.iloc[k]
        for name in RESULT_COLUMNS:
            ref = f"{where.plan_cols[name]}{k + where.first_row}"
            tally.check(f"Levers!{ref} ({lever['lever']}, {name})", sheet.get(ref), row[name])
        for name in ("delta_gpus", "delta_monthly_cost"):
            ref = f"{where.lever_cols[name]}{k + where.first_row}"
            want = lever[name]
            tally.check(f"Levers!{ref} ({lever['lever']}, {name})", sheet.get(ref),
                        "" if pd.isna(want) else float(want))


def check_all(values: Values, plan: Plan, where: Where, results: pd.DataFrame | None = None,
              selected: str | None = None) -> Tally:
    tally = Tally()
    results = plan.results if results is None else results
    check_plan(tally, values, results, where)
    check_summary(tally, values, results, where)
    check_options(tally, values, options_expected(plan, plan.tables)[0], where)
    check_levers(tally, values, plan, where)
    opened = str(plan.scenarios["scenario"].iloc[curve_row(plan.results)])
    check_curve(tally, values, plan, where, selected or opened)
    return tally


# --- recalculated by each engine ------------------------------------------------------------------


@pytest.fixture(scope="module")
def formulas_values(parity_workbook: Path) -> Values:
    return recalc_with_formulas(parity_workbook)


@pytest.fixture(scope="module")
def libreoffice_values(parity_workbook: Path, tmp_path_factory: pytest.TempPathFactory) -> Values:
    if soffice() is None:
        pytest.skip("LibreOffice not installed")
    tmp = tmp_path_factory.mktemp("lo")
    bare = tmp / "parity.xlsx"
    assert strip_cached_values(parity_workbook, bare) > 1000
    return recalc_with_libreoffice(bare, tmp)


@pytest.mark.parametrize("oracle", ["formulas_values", "libreoffice_values"])
def test_recalculated_workbook_equals_engine(
    oracle: str, request: pytest.FixtureRequest, parity_plan: Plan, where: Where
) -> None:
    values: Values = request.getfixturevalue(oracle)
    tally = check_all(values, parity_plan, where)
    tally.assert_ok()
    assert tally.compared > 5000
    assert tally.max_rel < 1e-9


def test_parity_set_reaches_every_case(parity_plan: Plan) -> None:
    results, scenarios = parity_plan.results, parity_plan.scenarios
    assert set(results["bottleneck"]) >= {
        "kv_memory", "tpot_slo", "ttft_slo", "batch_cap", "weights_do_not_fit",
        "slo_unreachable", "compute",
    }
    assert set(scenarios["engine"]) == {"vllm", "tensorrt-llm", "sglang"}
    assert "queueing" in set(results["fleet_bottleneck"])  # a knee of P99 targets sized a row
    assert {1.0, 2.0, 4.0, 8.0} <= set(results["tp"])
    typed = parity_plan.typed
    assert typed["tp"].isna().any() and typed["tp"].notna().any()
    assert set(results["status"]) == {"chosen", "option", "compare", "no fit"}
    assert {"gpu", "weight_dtype", "tp"} <= {c for s in parity_plan.search.searched for c in s}
    assert {"fp8", "fp4"} <= set(results["compute_dtype"])
    weight_only = results[(results["weight_dtype"] != results["compute_dtype"])]
    assert {"fp4", "fp8"} <= set(weight_only["weight_dtype"])
    models = parity_plan.tables.models.loc[scenarios["model"]]
    assert (models["experts"] > 0).sum() >= 3 and (models["mla_kv_dim"] > 0).any()


# --- cached values -------------------------------------------------------------------------------


def test_pandas_sees_the_engine_numbers(parity_workbook: Path, parity_plan: Plan) -> None:
    shown = pd.read_excel(parity_workbook, sheet_name="Plan", header=1)  # row 1: labels
    assert list(shown.columns)[: len(RESULT_COLUMNS)] == list(RESULT_COLUMNS)
    tally = Tally()
    for i in range(len(parity_plan.results)):
        for name in RESULT_COLUMNS:
            got, expected = shown.iloc[i][name], parity_plan.results.iloc[i][name]
            if isinstance(expected, str) and expected == "":
                got = "" if pd.isna(got) else got
            tally.check(f"{name}[{i}]", got.item() if hasattr(got, "item") else got, expected)
    tally.assert_ok()


@needs_libreoffice
def test_cached_values_equal_libreoffice_everywhere(
    parity_workbook: Path, libreoffice_values: Values, where: Where
) -> None:
    cached = openpyxl.load_workbook(parity_workbook, data_only=True)
    tally = Tally()
    for sheet, cells in where.formula_cells.items():
        for ref in cells:
            got = cached[sheet][ref].value
            expected = libreoffice_values[sheet].get(ref, "")
            tally.check(f"{sheet}!{ref}", got if got is not None else "", expected)
    tally.assert_ok()
    assert tally.compared == sum(len(c) for c in where.formula_cells.values())


# --- liveness: change inputs, recalculate, compare with the engine on the changed input ----------


@dataclass(frozen=True)
class Change:
    cells: dict[str, Any]
    scenarios: pd.DataFrame
    typed: pd.DataFrame
    constants: dict[str, float]
    tables: Tables

    def expected(self, plan: Plan) -> pd.DataFrame:
        _, scenarios = options_expected(plan, self.tables, self.typed, self.constants,
                                        self.scenarios)
        return with_choice(estimate(scenarios, self.tables, self.constants))


@pytest.fixture(scope="module")
def change(parity_plan: Plan, parity_workbook: Path, where: Where) -> Change:
    """Edits a reviewer makes: a QPS and a price on Scenarios, the safety factor on
    Assumptions, and gpt-oss-120b's local-attention window on Models (128 → 512 tokens)."""
    models_sheet = openpyxl.load_workbook(parity_workbook)["Models"]
    window = next(c for row in models_sheet.iter_rows(max_row=5) for c in row
                  if c.value == "local_attention_window")
    model_row = next(c.row for c in models_sheet["A"] if c.value == "gpt-oss-120b")
    models = parity_plan.tables.models.copy()
    models.loc["gpt-oss-120b", "local_attention_window"] = 512.0
    tables = dataclasses.replace(parity_plan.tables, models=models)
    scenarios, typed = parity_plan.scenarios.copy(), parity_plan.typed.copy()
    names = list(scenarios["scenario"])
    qps_row, price_row = names.index("chat-70b"), names.index("mixtral-trt")
    for frame in (scenarios, typed):
        frame.loc[frame.index[qps_row], "peak_qps"] = 55.0
        frame.loc[frame.index[price_row], "gpu_hour_price"] = 9.75
    safety = 1.65
    assert CONSTANTS["SAFETY_FACTOR"].value != safety
    cells = {
        f"Scenarios!{where.scenario_cols['peak_qps']}{qps_row + where.first_row}": 55.0,
        f"Scenarios!{where.scenario_cols['gpu_hour_price']}{price_row + where.first_row}": 9.75,
        where.constants["SAFETY_FACTOR"]: safety,
        f"Models!{window.column_letter}{model_row}": 512.0,
    }
    return Change(cells, scenarios, typed, {"SAFETY_FACTOR": safety}, tables)


def test_formulas_follow_changed_inputs(
    parity_workbook: Path, parity_plan: Plan, where: Where, change: Change
) -> None:
    # only the sheets compared are calculated (with what they depend on): 59 -> 34 s here
    values = recalc_with_formulas(parity_workbook, change.cells, sheets=("Plan", "Summary"))
    expected = change.expected(parity_plan)
    assert not expected["gpus"].equals(parity_plan.results["gpus"])
    tally = Tally()
    check_plan(tally, values, expected, where)
    check_summary(tally, values, expected, where)
    tally.assert_ok()


def test_formulas_batch_curve_follows_the_selection(
    parity_workbook: Path, parity_plan: Plan, where: Where
) -> None:
    selected = "tpot-8b-tp1"  # has a TPOT target, so the SLO line has values
    values = recalc_with_formulas(parity_workbook, {"Batch curve!B2": selected},
                                  sheets=("Batch curve",))
    tally = Tally()
    check_curve(tally, values, parity_plan, where, selected)
    tally.assert_ok()


@needs_libreoffice
def test_libreoffice_follows_changed_inputs(
    parity_workbook: Path, parity_plan: Plan, where: Where, change: Change, tmp_path: Path
) -> None:
    wb = openpyxl.load_workbook(parity_workbook)  # saving with openpyxl drops cached values
    for ref, value in change.cells.items():
        sheet, cell = ref.split("!")
        wb[sheet][cell] = value
    edited = tmp_path / "edited.xlsx"
    wb.save(edited)
    values = recalc_with_libreoffice(edited, tmp_path)
    tally = Tally()
    expected = change.expected(parity_plan)
    check_plan(tally, values, expected, where)
    check_summary(tally, values, expected, where)
    tally.assert_ok()


@needs_libreoffice
def test_stale_cache_is_recomputed_only_when_libreoffice_is_told_to(
    parity_workbook: Path, parity_plan: Plan, where: Where, tmp_path: Path
) -> None:
    """An input edited behind LibreOffice's back (cached values now stale): with the
    "always recalculate" setting the Plan follows the input; with the default it shows the
    stale cache, which is why the cached values must be right and the Method sheet says how."""
    ref = f"Scenarios!{where.scenario_cols['peak_qps']}{where.first_row}"
    stale = tmp_path / "stale.xlsx"
    patch_number_cell(parity_workbook, stale, ref, 55.0)
    scenarios = parity_plan.scenarios.copy()
    scenarios.loc[scenarios.index[0], "peak_qps"] = 55.0
    expected = with_choice(estimate(scenarios, parity_plan.tables))
    gpus = f"{where.plan_cols['gpus']}{where.first_row}"
    assert expected["gpus"].iloc[0] != parity_plan.results["gpus"].iloc[0]

    fresh = recalc_with_libreoffice(stale, tmp_path, always_recalc=True)
    tally = Tally()
    check_plan(tally, fresh, expected, where)
    tally.assert_ok()

    kept = recalc_with_libreoffice(stale, tmp_path)
    assert kept["Plan"][gpus] == parity_plan.results["gpus"].iloc[0]


@needs_libreoffice
def test_names_with_wildcard_characters_find_their_own_row(tmp_path: Path, where: Where) -> None:
    """A scenario named "chat*" selects its own row, not "chat-long" (MATCH would treat * as a
    wildcard, as Excel and LibreOffice do in .xlsx files; the workbook's lookups compare names
    exactly)."""
    plan = build_plan([
        {"scenario": "chat-long", "model": "llama-3.1-8b", "gpu": "L40S", "peak_qps": 3,
         "avg_prompt_tokens": 4000, "avg_output_tokens": 500},
        {"scenario": "chat*", "model": "llama-3.1-8b", "gpu": "H100", "peak_qps": 5,
         "avg_prompt_tokens": 300, "avg_output_tokens": 100, "tpot_slo_ms": 20},
    ])
    path = tmp_path / "wild.xlsx"
    write_workbook(plan, path)
    wb = openpyxl.load_workbook(path)  # saving with openpyxl drops the cached values
    wb["Batch curve"]["B2"] = "chat*"
    wb.save(path)
    values = recalc_with_libreoffice(path, tmp_path)
    tally = Tally()
    check_curve(tally, values, plan, where, "chat*")
    tally.assert_ok()


@needs_libreoffice
def test_an_edited_price_changes_the_pick_and_the_totals_follow(
    parity_workbook: Path, parity_plan: Plan, where: Where, tmp_path: Path
) -> None:
    """Make the chosen GPU of a searching row expensive on the GPUs sheet: its Options re-rank,
    its Plan row plans the new rank-1 option, and the choice and totals follow — what the engine
    computes for the same options at the new price."""
    row = list(parity_plan.results["scenario"]).index("chat-70b-h200")
    chosen = str(parity_plan.results.iloc[row]["gpu"])
    wb = openpyxl.load_workbook(parity_workbook)
    gpus = wb["GPUs"]
    # what the registry bills (per priced unit)
    price_col = _header(gpus, _row_of(gpus, "A", "name"))["price_usd"]
    ref = f"{price_col}{_row_of(gpus, 'A', chosen)}"
    gpus[ref] = 80.0
    edited = tmp_path / "pricey.xlsx"
    wb.save(edited)
    values = recalc_with_libreoffice(edited, tmp_path)

    tables = parity_plan.tables
    priced = tables.gpus.copy()
    priced.loc[chosen, "price_usd"] = 80.0  # and the GPUs sheet's price_per_gpu_hour follows
    priced.loc[chosen, "price_per_gpu_hour"] = 80.0 / priced.loc[chosen, "price_unit_gpus"]
    tables = Tables(priced, tables.models, tables.efficiency)
    options, scenarios = options_expected(parity_plan, tables)
    expected = with_choice(estimate(scenarios, tables))
    assert expected.iloc[row]["gpu"] != chosen  # the pick moved
    tally = Tally()
    check_plan(tally, values, expected, where)
    check_summary(tally, values, expected, where)
    check_options(tally, values, options, where)
    tally.assert_ok()
