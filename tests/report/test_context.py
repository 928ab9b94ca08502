"""The report's view model and template environment, without WeasyPrint."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import jinja2
import pytest

from reportgen.finance.support import support
from reportgen.formats import format_value
from reportgen.plan import Plan
from reportgen.render import context, pdf
from tests.report.conftest import SAMPLE


@pytest.fixture(scope="module")
def report(sample_plan: Plan) -> context.Report:
    return context.build(sample_plan)


def test_totals_are_over_rows_in_the_plan(report: context.Report, sample_plan: Plan) -> None:
    counted = sample_plan.results[sample_plan.results["in_plan_total"] == 1]
    gpus, nodes, monthly, annual = (h.value.value for h in report.summary.headlines)
    assert gpus == counted["gpus"].sum()
    assert nodes == counted["nodes"].sum()
    extra = support(sample_plan.results).monthly_cost
    assert monthly == pytest.approx(counted["monthly_cost"].sum() + extra)
    assert annual == pytest.approx(counted["annual_cost"].sum() + 12 * extra)
    assert report.procurement.total.gpus.value == gpus
    assert report.procurement.total.monthly_cost.value == pytest.approx(
        counted["monthly_cost"].sum())
    grand = report.procurement.grand_monthly_cost
    assert grand is not None and grand.value == pytest.approx(monthly)
    low, high = report.summary.headlines[0].low, report.summary.headlines[0].high
    assert low is not None and high is not None
    assert low.value == counted["gpus_low"].sum()
    assert high.value == counted["gpus_high"].sum()


def test_the_executive_page_asks_first_and_says_only_what_applies(
        report: context.Report, sample_plan: Plan) -> None:
    ask = report.ask
    assert ask is not None
    counted = sample_plan.results[sample_plan.results["counted"] == 1]
    gpus = format_value(float(counted["gpus"].sum()), "GPUs")
    assert ask.sentence.startswith("Approve ") and f"for {gpus} GPUs" in ask.sentence
    assert len(ask.movers) == 3  # the largest swings, in plain words
    assert all("_" not in bar.factor for bar in ask.movers)
    assert any("set no latency target" in r for r in ask.risks)  # the sample has such a row
    assert "not fit" in ask.left_out  # and one that does not fit
    old = counted["price_status"].isin(["stale", "undated"])
    assert any("re-quote" in r for r in ask.risks) == bool(old.any())  # said when it applies


def test_the_risks_name_the_engine_gap_and_the_widest_range(
        report: context.Report, sample_plan: Plan) -> None:
    """A budgeted row served on an engine its efficiencies were not measured on is named with
    that engine; the row carrying most of the cost range is named with its own range."""
    ask = report.ask
    assert ask is not None
    counted = sample_plan.results[sample_plan.results["counted"] == 1]
    measured_on = sample_plan.tables.efficiency["engine"]
    off = counted[(counted["efficiency_key"].map(measured_on) == "tensorrt-llm")
                  & (counted["engine"] == "vllm")
                  & counted["efficiency_key"].map(sample_plan.tables.efficiency["calibrated"])
                  .isin(["yes", "load test"])]
    assert len(off) > 2  # the sample serves calibrated rows on vLLM: counted, not named
    engine_risk = next(r for r in ask.risks if "vLLM, but" in r)
    assert engine_risk.startswith(f"{len(off)} workloads run on vLLM, but their speed was "
                                  "measured on TensorRT-LLM")
    span = counted["monthly_cost_high"] - counted["monthly_cost_low"]
    widest = counted.loc[span.idxmax()]
    share = span.max() / span.sum()
    named = [r for r in ask.risks if "of the plan's range" in r]
    assert named == ([f"“{widest['scenario']}” alone spans "
                      f"{format_value(float(widest['monthly_cost_low']), 'USD/month')} to "
                      f"{format_value(float(widest['monthly_cost_high']), 'USD/month')} a month, "
                      f"{format_value(float(share), 'fraction')} of the plan's range: measure it "
                      "first."] if share >= 0.5 else [])


def test_one_section_per_scenario_and_one_comparison(
    report: context.Report, sample_plan: Plan
) -> None:
    assert [s.name for s in report.scenarios] == list(sample_plan.results["scenario"])
    assert len(report.tutorials) == 1
    comparison = report.tutorials[0]
    assert comparison.match_name == "Tutorial demo, planned"
    assert comparison.gain_chart is not None
    assert any(reason.startswith("KV heads") for reason in comparison.reasons)


def test_rows_that_do_not_fit_have_no_curve_and_no_chain(report: context.Report) -> None:
    section = next(s for s in report.scenarios if s.name == "405B on L4")
    assert not section.counted
    assert section.batch_chart is None
    assert section.chain == ()
    assert section.bottleneck == "weights_do_not_fit"


def test_charts_are_png_data_uris(report: context.Report) -> None:
    for section in report.scenarios:
        assert section.memory_chart.startswith("data:image/png;base64,")


def test_charts_are_deterministic(sample_plan: Plan) -> None:
    first = context.build(sample_plan)
    second = context.build(sample_plan)
    assert first.scenarios[0].batch_chart == second.scenarios[0].batch_chart
    assert first.scenarios[0].memory_chart == second.scenarios[0].memory_chart


def test_summary_stays_on_one_page_for_many_scenarios(
    plan_factory: Callable[..., Plan],
) -> None:
    rows = [dict(SAMPLE[i % len(SAMPLE)], scenario=f"s{i}") for i in range(25)]
    plan = plan_factory(rows)
    summary = context.build(plan).summary
    budgeted = int((plan.results["counted"] == 1).sum())
    assert budgeted > context.SUMMARY_ROWS
    assert len(summary.rows) == context.SUMMARY_ROWS  # budgeted rows only
    assert summary.rows[-1].name == f"{budgeted - context.SUMMARY_ROWS + 1} more workloads"
    assert all(r.counted for r in summary.rows)


def test_filters_format_through_formats_table() -> None:
    env = pdf.environment()
    template = env.from_string("{{ a|num }} {{ b|qty }} {{ c|qty }}")
    text = template.render(
        a=context.Num(1234.5, "USD/month"),
        b=context.Num(2.0, "req/s"),
        c=context.Num(None, "GiB"),
    )
    assert text == (
        f"{format_value(1234.5, 'USD/month')} {format_value(2.0, 'req/s', with_unit=True)} —"
    )


def test_environment_is_strict_and_escapes() -> None:
    env = pdf.environment()
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ missing }}").render()
    assert env.from_string("{{ x }}").render(x="<b>") == "&lt;b&gt;"


def test_default_templates_folder_is_the_top_level_one() -> None:
    assert Path(__file__).resolve().parents[2] / "templates" == pdf.TEMPLATES_DIR
    assert (pdf.TEMPLATES_DIR / pdf.ENTRY_TEMPLATE).is_file()


def test_html_has_no_placeholders(sample_plan: Plan) -> None:
    html = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", pdf.render_html(sample_plan))
    assert "{{" not in html and "{%" not in html
    assert ">nan<" not in html and "None" not in html
