"""The report laid out in parts by worker processes reads exactly as the report laid out by one
process: the same pages, page numbers, contents numbers, links, destinations and outline."""

from __future__ import annotations

import io
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image
from pypdf import PdfReader

from reportgen.plan import Plan
from reportgen.render import pdf, pdf_parts

pytestmark = pytest.mark.slow


def _pages(data: bytes) -> list[str]:
    return [" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(data)).pages]


def _links(reader: PdfReader) -> list[tuple[int, str, tuple[float, ...]]]:
    out = []
    for number, page in enumerate(reader.pages):
        for ref in page.get("/Annots") or []:
            annotation: Any = ref.get_object()
            target = annotation.get("/Dest") or annotation["/A"]["/URI"]
            out.append((number, str(target),
                        tuple(round(float(v), 1) for v in annotation["/Rect"])))
    return sorted(out)


def _destinations(reader: PdfReader) -> dict[str, tuple[int, float]]:
    return {name: (reader.get_destination_page_number(dest), round(float(dest.top or 0), 1))
            for name, dest in reader.named_destinations.items()}


def _outline(reader: PdfReader, items: list[Any], depth: int = 0) -> list[tuple[int, str, int]]:
    out: list[tuple[int, str, int]] = []
    for item in items:
        if isinstance(item, list):
            out += _outline(reader, item, depth + 1)
        else:
            out.append((depth, item.title, reader.get_destination_page_number(item)))
    return out


def _pixels(data: bytes, stem: Path) -> list[bytes]:
    """Every page drawn by poppler at 40 dpi, as RGB pixels."""
    stem.with_suffix(".pdf").write_bytes(data)
    subprocess.run(["pdftoppm", "-png", "-r", "40", str(stem.with_suffix(".pdf")), str(stem)],
                   check=True)
    return [Image.open(png).convert("RGB").tobytes()
            for png in sorted(stem.parent.glob(f"{stem.name}-*.png"))]


def _one_process(html: str) -> bytes:
    root = pdf.TEMPLATES_DIR
    return pdf.html_to_pdf(html.replace(str(pdf_parts.PART_BREAK), ""), root)


@pytest.fixture(scope="module")
def hostile_html(hostile_plan: Plan) -> str:
    return pdf.render_html(hostile_plan)


@pytest.mark.parametrize("part_chars, sheet_pages", [(1, 3), (pdf_parts.PART_CHARS, 100)],
                         ids=["every section a part", "as shipped"])
def test_parts_read_as_one_document(hostile_html: str, part_chars: int, sheet_pages: int,
                                    tmp_path: Path) -> None:
    """Hostile and Chinese names in the title and the running headers, every section its own
    part and page numbers three pages at a time: the text of every page (running headers,
    "Page i of n", the contents' page numbers), its pixels (the page numbers stamped where one
    process draws them), every link, destination and outline entry equal those of one
    process."""
    assert hostile_html.count(str(pdf_parts.PART_BREAK)) >= 10
    one = _one_process(hostile_html)
    joined = pdf_parts.join_parts(hostile_html, pdf.TEMPLATES_DIR, 2, part_chars=part_chars,
                                  sheet_pages=sheet_pages)
    pages = _pages(joined)
    assert pages == _pages(one)
    for number, text in enumerate(pages, start=1):
        assert f"Page {number} of {len(pages)}" in text
        if number > 1:  # the running title, a hostile one, as literal text on every page
            assert "<b>Plan</b> {{ 7*7 }}" in text
    assert _pixels(joined, tmp_path / "joined") == _pixels(one, tmp_path / "one")
    a, b = PdfReader(io.BytesIO(one)), PdfReader(io.BytesIO(joined))
    assert _links(b) == _links(a)
    assert any(target.startswith("scenario-") for _, target, _ in _links(b))
    assert _destinations(b) == _destinations(a)
    assert _outline(b, b.outline) == _outline(a, a.outline)
    assert b.metadata is not None and a.metadata is not None
    assert b.metadata.title == a.metadata.title
    assert b.trailer["/Root"]["/Lang"] == a.trailer["/Root"]["/Lang"]


def test_contents_numbers_are_the_pages_of_the_sections(hostile_html: str) -> None:
    """The cover is laid out last, with each entry's page written out: the numbers it shows
    are the pages the entries' links lead to."""
    reader = PdfReader(io.BytesIO(pdf_parts.join_parts(hostile_html, pdf.TEMPLATES_DIR, 2,
                                                       part_chars=1)))
    cover = " ".join(reader.pages[0].extract_text().split())
    shown = re.match(r"((?:\d+ )+)", cover)  # the page numbers float right: extracted first
    assert shown is not None, cover
    where = _destinations(reader)
    entries = pdf_parts._contents_targets(pdf_parts.split(hostile_html)[1][0])
    assert len(entries) > 10
    assert [int(n) for n in shown.group(1).split()] == [where[e][0] + 1 for e in entries]


def test_a_part_that_asks_for_a_blocked_resource_stops_the_render(hostile_html: str) -> None:
    bad = hostile_html.replace(str(pdf_parts.PART_BREAK),
                               str(pdf_parts.PART_BREAK) + '<img src="file:///etc/hostname">', 1)
    with pytest.raises(pdf.OutputError, match="resource outside"):
        pdf_parts.join_parts(bad, pdf.TEMPLATES_DIR, 2)


def _unescaped(css: str) -> str:
    assert css.startswith('"') and css.endswith('"')
    return re.sub(r"\\([0-9a-f]+) ", lambda m: chr(int(m.group(1), 16)), css[1:-1])


@given(st.text())
def test_css_string_round_trips_and_cannot_leave_its_quotes(text: str) -> None:
    css = str(pdf_parts.css_string(text))
    assert _unescaped(css) == text
    inner = css[1:-1]
    assert '"' not in inner and "<" not in inner and "\n" not in inner
    assert re.fullmatch(r"([A-Za-z0-9 .,:;!?()+=_@#%*/-]|\\[0-9a-f]+ )*", inner)
