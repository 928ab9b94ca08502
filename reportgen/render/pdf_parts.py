"""The report laid out in parts by worker processes, one per core, and joined into one PDF.

WeasyPrint lays out and draws a report page by page in one process (about 0.15 s a page here);
a report of 200 scenarios has hundreds of pages. Its HTML marks where another process may take
over (:data:`PART_BREAK`, between top-level sections, each of which starts a page); the parts
are laid out and written by forked workers and joined with pypdf. What crosses the parts is put
back when they are joined:

- "Page 3 of 56": the parts are laid out without it; a document of blank pages carrying only
  the page numbers, in the report's own style, is laid out once the pages are counted and
  stamped onto the joined pages;
- the contents' page numbers on the cover: the cover is laid out first with placeholders (to
  count its pages) and again at the end with each entry's page written out;
- links to another part (the contents, the summary's rows): taken out of the part before it is
  written (WeasyPrint would drop them) and added to the joined file, to the same named
  destinations; each part's named destinations and outline are copied by pypdf.

The same HTML gives the same bytes whatever the number of workers (two or more); laid out by
one process it gives the same pages (text, pixels, links, outline), not the same bytes.
"""

from __future__ import annotations

import base64
import html
import io
import multiprocessing
import re
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from reportgen.errors import OutputError

PART_BREAK = Markup("<!-- reportgen:part -->")

PX_TO_PT = 0.75  # WeasyPrint lays out in CSS pixels; PDF space is in points (1 px = 0.75 pt)
# a part is at least this many characters of HTML (charts taken out): one section of the
# default report, 5-11 pages
PART_CHARS = 25_000
SHEET_PAGES = 100  # pages of page numbers a worker lays out at a time
_COVER_TRIES = 3  # layouts of the cover until its length and its contents' numbers agree
# The charts, PNG data URLs in the report's HTML, are taken out before it is cut (16 of the
# 200-scenario report's 18 MB; parsing the HTML takes 3.0 s without them, 4.5 s with them);
# the workers inherit them and fetch them by number.
_PNG_DATA_URL = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")
IMAGE_SCHEME = "reportgen-image"
_NO_PAGE_NUMBER = "<style>@page { @bottom-right { content: none; } }</style>"
_PAGE_NUMBER_ONLY = ("<style>@page { @top-left { content: none; } @top-right { content: none; } "
                     "@bottom-left { content: none; } } "
                     ".page-number-sheet + .page-number-sheet { break-before: page; }</style>")


@dataclass(frozen=True)
class Link:
    """A link to a named destination in another part: its page in the part and its rectangle
    in PDF points."""

    page: int
    rect: tuple[float, float, float, float]
    target: str


@dataclass(frozen=True)
class Part:
    """A part laid out and written: its PDF, pages, named destinations (name → page in the part)
    and the links that leave it."""

    pdf: bytes
    pages: int
    anchors: dict[str, int]
    links: tuple[Link, ...]


def css_string(text: str) -> Markup:
    """``text`` as a quoted CSS string that is safe inside a ``<style>`` element: every
    character other than letters, digits, spaces and plain punctuation as a CSS escape."""
    safe = re.compile(r"[A-Za-z0-9 .,:;!?()+=_@#%*/-]")
    return Markup('"' + "".join(c if safe.fullmatch(c) else f"\\{ord(c):x} " for c in text)
                  + '"')


def split(html: str) -> tuple[str, list[str]]:
    """The HTML's head (everything up to ``<body>``) and its body cut at each part break."""
    head, body = html.split("<body>", 1)
    body = body.rsplit("</body>", 1)[0]
    return head, body.split(str(PART_BREAK))


def group(pieces: list[str], chars: int = PART_CHARS) -> list[str]:
    """Consecutive pieces joined into parts of about ``chars`` characters each; the first piece
    (the cover) stays alone."""
    parts = [pieces[0]]
    current: list[str] = []
    weight = 0
    for piece in pieces[1:]:
        current.append(piece)
        weight += len(piece)
        if weight >= chars:
            parts.append("".join(current))
            current, weight = [], 0
    if current:
        parts.append("".join(current))
    return parts


def document(head: str, body: str, style: str = "") -> str:
    return f"{head.replace('</head>', style + '</head>', 1)}<body>{body}</body>\n</html>\n"


def contents_numbers(pages: Mapping[str, int | str]) -> str:
    """A style that writes each contents entry's page (placeholder text before the pages are
    counted) where the stylesheet asks for the target's page counter."""
    rules = (f'.toc a[href={css_string("#" + name)}]::after {{ content: "{page}"; }}'
             for name, page in pages.items())
    return "<style>" + "\n".join(rules) + "</style>"


_IMAGES: list[str] = []  # the charts taken out of the HTML (base64), inherited by the workers


def images_apart(source: str) -> tuple[str, list[str]]:
    """``source`` with each PNG data URL replaced by a numbered ``reportgen-image:`` URL, and
    the images' base64 text in that order."""
    images: list[str] = []

    def number(match: re.Match[str]) -> str:
        images.append(match.group(1))
        return f"{IMAGE_SCHEME}:{len(images) - 1}"

    return _PNG_DATA_URL.sub(number, source), images


def _fetcher(root: Path) -> Any:
    from weasyprint.urls import URLFetcherResponse

    from reportgen.render.pdf import SafeURLFetcher

    class WithImages(SafeURLFetcher):
        """The templates folder (:class:`SafeURLFetcher`) and the charts taken out of the HTML."""

        def fetch(self, url: str, headers: Any = None) -> Any:
            scheme, _, number = url.partition(":")
            if scheme == IMAGE_SCHEME and number.isdigit() and int(number) < len(_IMAGES):
                return URLFetcherResponse(url, base64.b64decode(_IMAGES[int(number)]),
                                          {"Content-Type": "image/png"})
            return super().fetch(url, headers)

    return WithImages(root)


def lay_out(source: str, root: Path) -> Part:
    """Lay out and write one part; links to anchors it does not hold are taken out and listed."""
    from weasyprint import HTML
    from weasyprint.urls import FatalURLFetchingError

    from reportgen.render.pdf import blocked_resource

    try:
        rendered = HTML(string=source, base_url=root.as_uri() + "/",
                        url_fetcher=_fetcher(root)).render()
        anchors: dict[str, int] = {}
        for number, page in enumerate(rendered.pages):
            for name in page.anchors:
                anchors.setdefault(name, number)
        leaving: list[Link] = []
        for number, page in enumerate(rendered.pages):
            height = page.height
            kept = []
            for link in page.links:
                kind, target, (x1, y1, x2, y2), _box = link
                if kind == "internal" and target not in anchors:
                    leaving.append(Link(number, (x1 * PX_TO_PT, (height - y1) * PX_TO_PT,
                                                 x2 * PX_TO_PT, (height - y2) * PX_TO_PT), target))
                else:
                    kept.append(link)
            page.links[:] = kept
        data = rendered.write_pdf()
    except FatalURLFetchingError as exc:  # a BaseException, which a pool cannot send back
        raise OutputError(blocked_resource(root, exc)) from None
    return Part(data, len(rendered.pages), anchors, tuple(leaving))


_SOURCES: list[str] = []  # the parts' HTML, inherited by the forked workers


def _lay_out_inherited(index: int, root: Path) -> Part:
    return lay_out(_SOURCES[index], root)


def _contents_targets(cover: str) -> list[str]:
    """The anchors the cover's contents link to, in order."""
    return [html.unescape(name) for name in re.findall(r'<a href="#([^"]+)"', cover)]


def _page_number_sheets(head: str, total: int, per_sheet: int = SHEET_PAGES) -> list[str]:
    """Documents of blank pages carrying only "Page 3 of 56" in the report's style, in pieces of
    ``per_sheet`` pages that workers lay out side by side (each starts its page counter where
    the one before stopped; the total is written out)."""
    known_total = head.replace("counter(pages)", f'"{total}"')
    sheets = []
    for first in range(0, total, per_sheet):
        pages = min(per_sheet, total - first)
        start = f"<style>@page :first {{ counter-set: page {first + 1}; }}</style>"
        sheets.append(document(known_total, '<div class="page-number-sheet"></div>' * pages,
                               _PAGE_NUMBER_ONLY + start))
    return sheets


def _first_pages(parts: list[Part]) -> list[int]:
    """Each part's first page in the joined file (0-based)."""
    first, out = 0, []
    for part in parts:
        out.append(first)
        first += part.pages
    return out


def join_parts(source: str, root: Path, workers: int,
               progress: Callable[[str], None] | None = None, part_chars: int = PART_CHARS,
               sheet_pages: int = SHEET_PAGES) -> bytes:
    """The PDF of ``source`` (HTML marked with :data:`PART_BREAK`), laid out in parts of about
    ``part_chars`` characters by ``workers`` forked processes and joined: the same pages as one
    process lays out."""
    step = progress or (lambda _: None)
    source, _IMAGES[:] = images_apart(source)
    head, pieces = split(source)
    bodies = group(pieces, part_chars)
    entries = _contents_targets(bodies[0])

    def cover(pages: Mapping[str, int | str]) -> str:
        return document(head, bodies[0], _NO_PAGE_NUMBER + contents_numbers(
            {name: pages.get(name, "") for name in entries}))

    _SOURCES[:] = [cover({name: "0000" for name in entries}),  # to count the cover's pages
                   *(document(head, body, _NO_PAGE_NUMBER) for body in bodies[1:])]
    step("laying out the pages")
    try:
        with ProcessPoolExecutor(workers,
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            # the cover first (its length is needed last), then the heaviest parts, so that no
            # worker is left with a long one at the end
            order = [0, *sorted(range(1, len(_SOURCES)), key=lambda i: -len(_SOURCES[i]))]
            futures = {pool.submit(_lay_out_inherited, i, root): i for i in order}
            done: dict[int, Part] = {}
            for future in as_completed(futures):
                done[futures[future]] = future.result()
                count = sum(p.pages for p in done.values())
                step(f"laid out {count:,} page{'' if count == 1 else 's'} "
                     f"({len(done):,} of {len(futures):,} parts)")
            parts = [done[i] for i in range(len(_SOURCES))]
            total = sum(p.pages for p in parts)
            numbers = [pool.submit(lay_out, sheet, root)
                       for sheet in _page_number_sheets(head, total, sheet_pages)]
            for _ in range(_COVER_TRIES):  # the cover's own length moves every page after it
                first = _first_pages(parts)
                pages = _anchor_pages(parts, first)
                final = lay_out(cover(pages), root)
                settled, parts[0] = final.pages == parts[0].pages, final
                if settled:
                    break
            else:
                raise OutputError(f"the report's cover did not settle at one length in "
                                  f"{_COVER_TRIES} layouts (its contents' page numbers move "
                                  f"it); the report was not written")
            if sum(p.pages for p in parts) != total:  # the cover grew: numbers again
                total = sum(p.pages for p in parts)
                numbers = [pool.submit(lay_out, sheet, root)
                           for sheet in _page_number_sheets(head, total, sheet_pages)]
            stamps = [sheet.result() for sheet in numbers]
    except BrokenProcessPool as exc:  # a worker killed (out of memory) or crashed
        raise OutputError(f"a process laying out the PDF report ended before its part was "
                          f"done ({exc}); the report was not written") from None
    finally:
        _SOURCES.clear()
        _IMAGES.clear()
    step(f"writing {total:,} pages")
    return _joined(parts, stamps)


def _anchor_pages(parts: list[Part], first: list[int]) -> dict[str, int]:
    """Each named destination's page in the joined file (1-based; the first of a repeated name,
    as WeasyPrint does)."""
    pages: dict[str, int] = {}
    for start, part in zip(first, parts, strict=True):
        for name, page in part.anchors.items():
            pages.setdefault(name, start + page + 1)
    return pages


def _joined(parts: list[Part], stamps: list[Part]) -> bytes:
    """The parts as one PDF: pages in order, page numbers stamped on, the links between parts
    added, the first part's title, producer and language."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import (
        ArrayObject,
        DictionaryObject,
        FloatObject,
        NameObject,
        NumberObject,
        TextStringObject,
    )

    writer = PdfWriter()
    readers = [PdfReader(io.BytesIO(part.pdf)) for part in parts]
    for reader in readers:
        writer.append(reader)
    sheets = [sheet for stamp in stamps for sheet in PdfReader(io.BytesIO(stamp.pdf)).pages]
    resources: dict[int, Any] = {}  # the sheets' fonts, copied once per document of sheets
    for number, (page, sheet) in enumerate(zip(writer.pages, sheets, strict=True)):
        _stamp(writer, page, sheet, number, resources)
    first = _first_pages(parts)
    known = _anchor_pages(parts, first)
    for start, part in zip(first, parts, strict=True):
        for link in part.links:
            if link.target not in known:  # WeasyPrint drops a link to no anchor; so do we
                continue
            writer.add_annotation(start + link.page, DictionaryObject({
                NameObject("/Type"): NameObject("/Annot"),
                NameObject("/Subtype"): NameObject("/Link"),
                NameObject("/Rect"): ArrayObject(FloatObject(v) for v in link.rect),
                NameObject("/BS"): DictionaryObject({NameObject("/W"): NumberObject(0)}),
                NameObject("/Dest"): TextStringObject(link.target),
            }))
    if readers[0].metadata is not None:
        writer.add_metadata(dict(readers[0].metadata))
    lang = readers[0].root_object.get("/Lang")
    if lang is not None:
        writer.root_object[NameObject("/Lang")] = TextStringObject(str(lang))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _stamp(writer: Any, page: Any, sheet: Any, number: int, resources: dict[int, Any]) -> None:
    """Draw ``sheet`` (a page of page numbers) over ``page`` as a form XObject, the page's own
    drawing kept in its graphics state (pypdf's ``merge_page`` parses both pages' drawing:
    2.5 s for 615 pages). ``resources`` holds the sheets' resources already copied."""
    from pypdf.generic import ArrayObject, DecodedStreamObject, DictionaryObject, NameObject

    own = sheet.get_object()["/Resources"]
    key = id(own.get_object())
    if key not in resources:
        resources[key] = own.get_object().clone(writer)
    form = DecodedStreamObject()
    form.set_data(sheet.get_contents().get_data())
    form.update({
        NameObject("/Type"): NameObject("/XObject"),
        NameObject("/Subtype"): NameObject("/Form"),
        NameObject("/BBox"): ArrayObject(sheet.mediabox),
        NameObject("/Resources"): resources[key],
    })
    name = NameObject(f"/PageNumber{number}")
    page_resources = page["/Resources"].get_object()
    if "/XObject" not in page_resources:
        page_resources[NameObject("/XObject")] = DictionaryObject()
    page_resources["/XObject"].get_object()[name] = writer._add_object(form.flate_encode())
    before, after = DecodedStreamObject(), DecodedStreamObject()
    before.set_data(b"q\n")
    after.set_data(b"\nQ q " + name.encode() + b" Do Q\n")
    contents = page.raw_get("/Contents")  # a reference, not the stream (which would be copied)
    drawing = (list(contents.get_object()) if isinstance(contents.get_object(), ArrayObject)
               else [contents])
    page[NameObject("/Contents")] = ArrayObject([
        writer._add_object(before), *drawing, writer._add_object(after)])
