"""The PDF report: content, escaping, isolation from the network and the disk, determinism."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from reportgen import i18n
from reportgen.errors import OutputError
from reportgen.finance.support import support
from reportgen.formats import format_value
from reportgen.plan import Plan
from reportgen.quantities import REGISTRY
from reportgen.render import charts, pdf
from tests.report.conftest import CJK_NAME, HOSTILE_NAMES, SAMPLE, make_plan

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Rendered:
    data: bytes
    pages: tuple[str, ...]  # text of each page, whitespace squeezed
    records: tuple[logging.LogRecord, ...]
    fetched: tuple[str, ...]
    steps: tuple[str, ...]  # what the build's progress line said, in order

    @property
    def text(self) -> str:
        return " ".join(self.pages)


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not record.name.startswith("weasyprint.progress"):
            self.records.append(record)


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def _render(plan: Plan, path: Path, monkeypatch: pytest.MonkeyPatch | None = None) -> Rendered:
    fetched: list[str] = []
    original = pdf.SafeURLFetcher.fetch

    def recording(self: Any, url: str, headers: Any = None) -> Any:
        fetched.append(url)
        return original(self, url, headers)

    patch = monkeypatch or pytest.MonkeyPatch()
    patch.setattr(pdf.SafeURLFetcher, "fetch", recording)
    handler = _Collect()
    logger = logging.getLogger("weasyprint")
    logger.addHandler(handler)
    steps: list[str] = []
    try:
        pdf.write_pdf(plan, path, progress=steps.append)
    finally:
        logger.removeHandler(handler)
        if monkeypatch is None:
            patch.undo()
    data = path.read_bytes()
    reader = PdfReader(io.BytesIO(data))
    pages = tuple(_squeeze(page.extract_text()) for page in reader.pages)
    return Rendered(data, pages, tuple(handler.records), tuple(fetched), tuple(steps))


@pytest.fixture(scope="module")
def sample(sample_plan: Plan, tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    return _render(sample_plan, tmp_path_factory.mktemp("pdf") / "report.pdf")


def test_progress_counts_the_scenarios_and_the_pages(sample: Rendered, sample_plan: Plan) -> None:
    n = len(sample_plan.scenarios)
    steps = list(sample.steps)
    assert steps[:n + 1] == [
        *(f"scenario {i:,} of {n:,}: its section and charts" for i in range(1, n + 1)),
        "laying out the pages",
    ]
    assert steps[-1] == f"writing {len(sample.pages):,} pages"
    laid_out = steps[n + 1:-1]  # as the parts are done, in the order they are done
    if laid_out:  # laid out in parts (two or more cores)
        counts = [re.fullmatch(r"laid out ([\d,]+) pages? \(([\d,]+) of ([\d,]+) parts\)", s)
                  for s in laid_out]
        assert all(counts), laid_out
        pages, parts, of = zip(*((int(m[1].replace(",", "")), int(m[2]), int(m[3]))
                                 for m in counts if m), strict=True)
        assert list(parts) == list(range(1, len(laid_out) + 1)) and set(of) == {len(laid_out)}
        assert list(pages) == sorted(pages) and pages[-1] <= len(sample.pages)


@pytest.fixture(scope="module")
def hostile(hostile_plan: Plan, tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    return _render(hostile_plan, tmp_path_factory.mktemp("pdf") / "hostile.pdf")


def _shown(plan: Plan, position: int, name: str) -> str:
    value = plan.results.iloc[position][name]
    return format_value(value, REGISTRY[name].unit)


def _section_pages(rendered: Rendered, number: int, name: str) -> Iterator[str]:
    """The pages of a scenario's section (its heading "N. name" and the page after)."""
    heading = _squeeze(f"{number}. {name}")
    for i, page in enumerate(rendered.pages):
        if heading in page and "What sets the size" in page:
            yield page
            if i + 1 < len(rendered.pages):
                yield rendered.pages[i + 1]
            return
    raise AssertionError(f"no section for scenario {name!r}")


def test_every_scenario_shows_its_numbers(sample: Rendered, sample_plan: Plan) -> None:
    for position, name in enumerate(sample_plan.results["scenario"]):
        gpus = _shown(sample_plan, position, "gpus")
        cost = _shown(sample_plan, position, "monthly_cost")
        bottleneck = _shown(sample_plan, position, "bottleneck")
        section = " ".join(_section_pages(sample, position + 1, str(name)))
        assert gpus in section.split(), (name, gpus)
        assert cost in section, (name, cost)
        assert bottleneck in section, (name, bottleneck)


def test_summary_totals_and_band(sample: Rendered, sample_plan: Plan) -> None:
    counted = sample_plan.results[sample_plan.results["in_plan_total"] == 1]
    summary = sample.pages[1]
    assert "Executive summary" in summary
    for column in ("gpus", "gpus_low", "gpus_high", "monthly_cost"):
        total = format_value(float(counted[column].sum()), REGISTRY[column].unit)
        assert total in summary, (column, total)
    assert "10th to 90th percentile" in summary
    assert summary.index("Approve") < summary.index("What the number includes")  # the ask first
    extra = support(sample_plan.results).monthly_cost
    with_support = format_value(float(counted["monthly_cost"].sum()) + extra, "USD/month")
    assert with_support in summary, with_support


def test_the_executive_page_fits_one_page(sample: Rendered) -> None:
    """The decision is read on one page: the page after it carries another running title."""
    assert "Executive summary" in sample.pages[1]
    assert "Executive summary" not in sample.pages[2]


def test_no_placeholders_or_missing_values(sample: Rendered) -> None:
    text = sample.text
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)
    assert not re.search(r"\bNone\b", text)
    for token in ("{{", "}}", "{%", "%}", "Undefined"):
        assert token not in text, token


def test_sections_present(sample: Rendered) -> None:
    text = sample.text
    for title in ("Executive summary", "Appendix: the source tutorial compared",
                  "Procurement hand-off", "Appendix: assumptions register", "Appendix: method",
                  "Annex: every formula", "Pitfalls this plan avoids", "Glossary",
                  "Prepared by", "Reviewed by", "Approved by"):
        assert title in text, title
    # the workloads in the number before the appendices (comparison rows, the tutorial)
    assert text.index("Procurement hand-off", text.index("Contents") + 400) < text.index(
        "Appendix: rows not in the number", text.index("Contents") + 400)
    assert re.search(r"Page 2 of \d+", sample.pages[1])


def test_no_weasyprint_warnings(sample: Rendered, hostile: Rendered) -> None:
    assert [r.getMessage() for r in sample.records] == []
    assert [r.getMessage() for r in hostile.records] == []


def test_only_local_resources_are_fetched(sample: Rendered) -> None:
    assert sample.fetched, "the stylesheet should have been fetched"
    templates = pdf.TEMPLATES_DIR.resolve().as_uri() + "/"
    for url in sample.fetched:
        assert url.startswith("data:") or url.startswith(templates), url


def test_hostile_names_are_literal_text(hostile: Rendered, hostile_plan: Plan) -> None:
    for name in (*HOSTILE_NAMES, CJK_NAME):
        assert name in hostile.text, name
    assert "<b>Plan</b> {{ 7*7 }}" in hostile.pages[0]
    html = pdf.render_html(hostile_plan)
    assert "<script>" not in html
    assert "<img src=http" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    for url in hostile.fetched:
        assert url.startswith("data:") or url.endswith("report.css"), url


def test_same_plan_same_bytes(sample: Rendered, sample_plan: Plan, tmp_path: Path) -> None:
    again = tmp_path / "again.pdf"
    pdf.write_pdf(sample_plan, again)
    assert again.read_bytes() == sample.data
    assert b"/CreationDate" not in sample.data
    assert b"/ModDate" not in sample.data


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_charts_drawn_by_workers_equal_charts_drawn_in_place(
    sample_plan: Plan, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report's HTML is the same whether its charts are drawn by worker processes while
    the page is built, or one by one in place (a machine with one core)."""
    with i18n.language(lang):
        monkeypatch.setattr(charts, "worker_count", lambda min_workers=2: 2)  # even on one core
        with charts.drawn_in_parallel() as batch:
            assert batch is not None
            assert charts.memory_bar(charts.MemorySpec(80.0, ())).startswith("chart-pending-")
        parallel = pdf.render_html(sample_plan)
        monkeypatch.setattr(charts, "worker_count", lambda min_workers=2: 0)
        in_place = pdf.render_html(sample_plan)
    assert "chart-pending-" not in parallel
    assert parallel.count("data:image/png;base64,") >= 8
    assert parallel == in_place


def test_a_name_like_a_chart_placeholder_stays_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """The placeholders charts stand as while workers draw them carry a random part: a
    scenario named like one is shown as typed, not replaced by an image."""
    monkeypatch.setattr(charts, "worker_count", lambda min_workers=2: 2)
    plan = make_plan([dict(SAMPLE[1], scenario="chart-pending-0")])
    html = pdf.render_html(plan)
    assert "chart-pending-0" in html
    assert html.count("data:image/png;base64,") >= 2


def _template(tmp_path: Path, body: str) -> Path:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "report.html.j2").write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>{body}</head>"
        "<body><p>{{ report.title }}</p></body></html>",
        encoding="utf-8",
    )
    return folder


@pytest.mark.parametrize(
    "link",
    [
        '<link rel="stylesheet" href="file:///etc/hostname">',
        '<link rel="stylesheet" href="../x.css">',
        '<link rel="stylesheet" href="http://example.invalid/x.css">',
    ],
)
def test_resources_outside_the_templates_are_refused(
    link: str, tmp_path: Path, sample_plan: Plan
) -> None:
    (tmp_path / "x.css").write_text("p { color: red }", encoding="utf-8")  # exists, still refused
    folder = _template(tmp_path, link)
    target = tmp_path / "out.pdf"
    with pytest.raises(OutputError, match="outside"):
        pdf.write_pdf(sample_plan, target, templates_dir=folder)
    assert not target.exists()


def test_a_stylesheet_inside_the_templates_loads(tmp_path: Path, sample_plan: Plan) -> None:
    folder = _template(tmp_path, '<link rel="stylesheet" href="style.css">')
    (folder / "style.css").write_text("p { color: #123456 }", encoding="utf-8")
    target = tmp_path / "out.pdf"
    pdf.write_pdf(sample_plan, target, templates_dir=folder)
    assert target.read_bytes().startswith(b"%PDF")
