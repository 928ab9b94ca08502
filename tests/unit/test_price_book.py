"""The price book prices every plan, node-hour prices bill whole instances, a GPU without a price
is never budgeted, and availability replicas are their own line apart from the safety factor."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from reportgen.catalog import load_catalogs, resolve_gpu
from reportgen.choose import NO_PRICE
from reportgen.errors import InputError
from reportgen.finance.prices import (
    BASES,
    PriceBookError,
    read_price_book,
    shipped_price_book,
    status,
)
from reportgen.pipeline import BuildOptions, build, load_with_efficiency, make_plan
from tests.helpers import GENERATED, build_plan
from tests.scenarios import base_row

CATALOGS = load_catalogs()


def _resolve(name: str) -> str:
    return resolve_gpu(CATALOGS, name)


def test_shipped_book_rows_are_sourced_and_one_per_gpu_and_basis() -> None:
    """Every shipped price names its basis, unit, currency, a URL and (but one) a date."""
    book = shipped_price_book(_resolve).rows
    assert set(book["basis"]) <= set(BASES)
    assert not book.duplicated(["gpu", "basis"]).any()
    assert book["source"].str.startswith("http").all()
    assert (book["currency"] == "USD").all()
    assert (book["date"] == "").sum() == 1  # the L4 quote, flagged undated


def test_h100_is_billed_per_p5_instance() -> None:
    """reportgen/data/prices.csv: p5.48xlarge on demand, us-east-1, 98.32 USD per 8-GPU
    instance-hour (wring.co, 2026-03-08)."""
    row = CATALOGS.gpus.loc["H100-SXM"]
    assert (row["price_basis"], row["price_unit"], row["price_sku"]) == (
        "on_demand", "node_hour", "p5.48xlarge")
    assert (row["price_usd"], row["price_unit_gpus"]) == (98.32, 8)


def test_whole_instances_are_billed_and_the_empty_slots_shown() -> None:
    """Three tp-2 H100 replicas use 6 GPUs of one 8-GPU instance: one instance is billed,
    2 GPUs of it serve no replica, and the month costs 98.32 × 730."""
    plan = build_plan([base_row(peak_qps=0.1, tp=2, min_replicas=3, tpot_slo_ms="",
                                ttft_slo_ms="")])
    r = plan.results.iloc[0]
    assert (r["instances"], r["gpus"], r["nodes"]) == (3, 6, 1)
    assert (r["billed_units"], r["billed_gpus"], r["unused_billed_gpus"]) == (1, 8, 2)
    assert r["monthly_cost"] == pytest.approx(98.32 * 730)
    assert r["cost_per_million_output_tokens"] == pytest.approx(
        98.32 / (0.1 * 800 * 3600) * 1e6)


def test_a_typed_price_is_billed_per_gpu_and_labelled_as_typed() -> None:
    plan = build_plan([base_row(peak_qps=0.1, tp=2, min_replicas=3, gpu_hour_price=2.5)])
    r = plan.results.iloc[0]
    assert (r["price_basis"], r["price_unit"], r["price_status"]) == (
        "as typed", "gpu_hour", "as typed")
    assert r["monthly_cost"] == pytest.approx(r["gpus"] * 2.5 * 730)


def test_a_gpu_without_a_price_is_never_budgeted() -> None:
    """H100 NVL has no sourced price: alone it is 'no price'; beside H100 the H100 is chosen."""
    alone = build_plan([base_row(gpu="H100-NVL", peak_qps=20)]).results.iloc[0]
    assert alone["price_status"] == "no_price" and alone["priced"] == 0
    assert alone["status"] == NO_PRICE and alone["counted"] == 0
    assert alone["why"] == "not budgeted: no price for this GPU at basis on_demand"
    both = build_plan([base_row(gpu="H100-NVL|H100", peak_qps=20)]).results.iloc[0]
    assert (both["gpu"], both["status"]) == ("H100-SXM", "chosen")


def test_min_replicas_and_spares_are_their_own_line() -> None:
    """A workload whose traffic needs one replica runs two (min_replicas 2 for plan rows); one
    spare (N+1) adds a third; the safety factor is untouched and the extra cost is shown."""
    light = dict(gpu="H200", peak_qps=0.5, tp=8, tpot_slo_ms="", ttft_slo_ms="")
    r = build_plan([base_row(**light)]).results.iloc[0]
    assert (r["traffic_instances"], r["min_replicas"], r["instances"]) == (1, 2, 2)
    assert r["redundancy_instances"] == 1
    assert r["redundancy_monthly_cost"] == pytest.approx(r["monthly_cost"] / 2)
    spare = build_plan([base_row(**light, spare_replicas=1)]).results.iloc[0]
    assert (spare["instances"], spare["redundancy_instances"]) == (2, 1)
    three = build_plan([base_row(**light, spare_replicas=2)]).results.iloc[0]
    assert (three["instances"], three["redundancy_instances"]) == (3, 2)
    assert three["safety_factor"] == r["safety_factor"] == 1.4


def test_staleness_is_judged_at_the_plan_date() -> None:
    assert status("2025-08-12", dt.date(2026, 12, 3)) == "stale"
    assert status("2026-03", dt.date(2026, 12, 3)) == "current"
    assert status("", dt.date(2026, 12, 3)) == "undated"


def test_a_price_book_file_and_basis_price_the_plan(tmp_path: Path) -> None:
    """--prices FILE --price-basis reserved_1y: the H100 row is billed at its reserved rate."""
    book = tmp_path / "prices.csv"
    book.write_text("gpu,basis,unit,price,currency,region,sku,gpus_per_unit,source,date\n"
                    "H100,reserved_1y,node_hour,40,USD,eu-west-1,p5.48xlarge,8,"
                    "https://example.test/quote,2026-11-01\n", encoding="utf-8")
    scenarios = tmp_path / "s.csv"
    scenarios.write_text("scenario,model,gpu,peak_qps,avg_prompt_tokens,avg_output_tokens,tp\n"
                         "s,Llama-3.1-70B,H100,6,1500,800,8\n", encoding="utf-8")
    checked, _ = load_with_efficiency(scenarios, prices=book, price_basis="reserved_1y",
                                      as_of=GENERATED)
    r = make_plan(checked, "s.csv", generated=GENERATED).results.iloc[0]
    assert (r["price_basis"], r["price_region"], r["price_status"]) == (
        "reserved_1y", "eu-west-1", "current")
    assert r["monthly_cost"] == pytest.approx(r["billed_units"] * 40 * 730)


def test_a_bad_price_book_lists_every_problem_and_writes_nothing(tmp_path: Path) -> None:
    book = tmp_path / "prices.csv"
    book.write_text("gpu,basis,unit,price,currency,source,date,gpus_per_unit\n"
                    "H100,weekly,gpu_hour,-1,USD,https://x.test,2026-13,1\n"
                    "Z9000,on_demand,node_hour,3,USD,https://x.test,2026-01,0\n"
                    "H100,on_demand,gpu_hour,2,EUR,,2026-01,1\n", encoding="utf-8")
    with pytest.raises(PriceBookError) as caught:
        read_price_book(book, _resolve)
    text = str(caught.value)
    for expected in ("row 2, column basis: 'weekly'", "row 2, column price: '-1'",
                     "row 2, column date: '2026-13'", "row 3, column gpu: 'Z9000'",
                     "row 3, column gpus_per_unit: '0'", "row 4, column source: blank",
                     "several currencies (EUR, USD)"):
        assert expected in text
    out = tmp_path / "out"
    scenarios = Path(__file__).resolve().parents[2] / "inputs" / "scenarios.csv"
    with pytest.raises(InputError):
        build(BuildOptions(scenarios, out, formats=("csv",), prices=book))
    assert not out.exists() or not any(out.iterdir())


def test_a_row_without_a_price_reads_no_price_on_every_page() -> None:
    """The summary, the decisions page, the row's own page and the terminal say 'no price',
    never $0."""
    from reportgen.render.context import build as report_context
    from reportgen.terminal import status_line

    plan = build_plan([base_row(scenario="nvl", gpu="H100-NVL", peak_qps=5),
                       base_row(scenario="h100", peak_qps=5)])
    report = report_context(plan)
    assert [r.name for r in report.summary.rows] == ["h100"]  # the summary lists the budgeted
    assert report.ask is not None and "has no price" in report.ask.left_out  # and says this
    section = next(s for s in report.scenarios if s.name == "nvl")
    assert section.status == "No price for this GPU in the price book: not in the totals"
    assert "1 without a price" in status_line(plan.results)
    assert any(n.scenario == "nvl" and n.status == "without a price"
               for n in report.decisions.excluded)


def test_the_scenario_page_shows_the_availability_step_and_the_bill() -> None:
    from reportgen.render.context import build as report_context

    plan = build_plan([base_row(gpu="H100", peak_qps=0.5, tp=8, tpot_slo_ms="",
                                ttft_slo_ms="")])
    section = report_context(plan).scenarios[0]
    labels = [step.label for step in section.chain]
    assert "for availability (min_replicas, spare_replicas)" in labels
    assert section.chain_caption.startswith(
        "Billed as 2 p5.48xlarge instances (16 GPUs) at $98.32 per instance-hour")


def test_a_prices_sheet_in_the_scenario_workbook_is_used(tmp_path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Scenarios"
    ws.append(["scenario", "model", "gpu", "peak_qps", "avg_prompt_tokens", "avg_output_tokens",
               "tp"])
    ws.append(["s", "Llama-3.1-70B", "H200", 6, 1500, 800, 4])
    prices = wb.create_sheet("Prices")
    prices.append(["gpu", "basis", "unit", "price", "currency", "source", "date"])
    prices.append(["H200", "on_demand", "gpu_hour", 3.0, "USD", "https://example.test/q",
                   "2026-10-01"])
    path = tmp_path / "plan.xlsx"
    wb.save(path)
    checked, _ = load_with_efficiency(path, as_of=GENERATED)
    r = make_plan(checked, path.name, generated=GENERATED).results.iloc[0]
    assert r["price_per_unit"] == 3.0 and r["price_status"] == "current"
    assert r["monthly_cost"] == pytest.approx(r["gpus"] * 3.0 * 730)


def _decisions(tmp_path: Path, book_text: str | None) -> tuple[str, str]:
    scenarios = tmp_path / "s.csv"
    scenarios.write_text("scenario,model,gpu,peak_qps,avg_prompt_tokens,avg_output_tokens\n"
                         "s,Llama-3.1-70B,H100|H200,20,1500,800\n", encoding="utf-8")
    book = None
    if book_text is not None:
        book = tmp_path / "prices.csv"
        book.write_text(book_text, encoding="utf-8")
    checked, _ = load_with_efficiency(scenarios, prices=book, as_of=GENERATED)
    from reportgen.render.context import build as report_context

    page = report_context(make_plan(checked, "s.csv", generated=GENERATED)).decisions
    return page.saving_sentence, page.workloads[0].mixed_prices


def test_a_choice_between_providers_says_part_of_the_saving_is_the_provider(
        tmp_path: Path) -> None:
    """Shipped book: H100-SXM is AWS's p5 list rate, H200-SXM a specialty cloud's: the
    decision must not pass a provider's discount off as the hardware's."""
    saving, mixed = _decisions(tmp_path, None)
    assert "H100-SXM: aws" in mixed and "H200-SXM: spheron" in mixed
    assert "priced by different providers" in saving


def test_one_provider_prices_compare_the_hardware_alone(tmp_path: Path) -> None:
    header = "gpu,basis,unit,price,currency,region,provider,sku,gpus_per_unit,source,date\n"
    rows = ("H100,on_demand,gpu_hour,3,USD,,acme,H100,1,https://example.test/q,2026-11-01\n"
            "H200,on_demand,gpu_hour,4,USD,,acme,H200,1,https://example.test/q,2026-11-01\n")
    saving, mixed = _decisions(tmp_path, header + rows)
    assert mixed == ""
    assert "different providers" not in saving
