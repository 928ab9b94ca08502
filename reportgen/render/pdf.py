"""The PDF report: Jinja2 templates → HTML → WeasyPrint.

Everything the templates show comes from :func:`reportgen.render.context.build`; numbers are
formatted by the ``num``/``qty`` filters, which wrap :func:`reportgen.formats.format_value`.
The renderer fetches nothing from the network and nothing on disk outside the templates folder
(:class:`SafeURLFetcher`); a template that asks for anything else stops the render. The same plan
gives the same bytes: no dates in the PDF, no random identifier, charts as PNG without metadata.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

import jinja2
from markupsafe import Markup, escape
from weasyprint import HTML
from weasyprint.urls import FatalURLFetchingError, URLFetcher

from reportgen import forked, i18n
from reportgen.errors import OutputError
from reportgen.formats import format_value
from reportgen.plan import Plan
from reportgen.render import charts, context, pdf_parts

TEMPLATES_DIR = Path(__file__).resolve().parents[2] / "templates"
ENTRY_TEMPLATE = "report.html.j2"

_log = logging.getLogger(__name__)


def _templates(templates_dir: Path | None) -> Path:
    return (templates_dir if templates_dir is not None else TEMPLATES_DIR).resolve()


def _num(value: Any) -> str:
    """Jinja filter: a :class:`context.Num` as the report shows it, without its unit suffix."""
    if isinstance(value, context.Num):
        return format_value(value.value, value.unit)
    raise TypeError(f"the num filter formats Num values, not {type(value).__name__}")


def _qty(value: Any) -> str:
    """Jinja filter: a :class:`context.Num` with its unit suffix (e.g. "2.00 req/s")."""
    if isinstance(value, context.Num):
        return format_value(value.value, value.unit, with_unit=True)
    raise TypeError(f"the qty filter formats Num values, not {type(value).__name__}")


_URL = re.compile(r"https?://[^\s<>\"'()]+[^\s<>\"'().,;:]")


def _links(text: Any) -> Markup:
    """Jinja filter: ``text`` escaped, with every http(s) address a clickable link (a source a
    reader can open from the PDF)."""
    escaped = str(escape(str(text)))
    return Markup(_URL.sub(lambda m: f'<a class="url" href="{m.group(0)}">{m.group(0)}</a>',
                           escaped))


def page_numbers() -> Markup:
    """The CSS ``content`` of the page footer, "Page 2 of 55" in the active language."""
    pieces = re.split(r"(\{page\}|\{pages\})", i18n._("Page {page} of {pages}"))
    counters = {"{page}": "counter(page)", "{pages}": "counter(pages)"}
    return Markup(" ".join(counters.get(p) or '"' + p.replace('"', "").replace("\\", "") + '"'
                           for p in pieces if p))


def environment(templates_dir: Path | None = None) -> jinja2.Environment:
    """The Jinja2 environment: autoescaped, strict about undefined names, templates folder only."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_templates(templates_dir))),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = _num
    env.filters["qty"] = _qty
    env.filters["links"] = _links
    env.globals["_"] = i18n._
    env.globals["ngettext"] = i18n.ngettext
    env.globals["page_numbers"] = page_numbers
    env.globals["css_string"] = pdf_parts.css_string
    env.globals["PART_BREAK"] = pdf_parts.PART_BREAK
    return env


def render_html(plan: Plan, templates_dir: Path | None = None,
                progress: Callable[[str], None] | None = None) -> str:
    """The report as HTML (what WeasyPrint lays out)."""
    with charts.drawn_in_parallel() as batch:  # the charts are drawn while the page is built
        report = context.build(plan, progress)
        html = environment(templates_dir).get_template(ENTRY_TEMPLATE).render(report=report)
        return batch.fill(html) if batch is not None else html


class SafeURLFetcher(URLFetcher):  # type: ignore[misc]
    """``data:`` URLs and files under ``root``: no network, nothing else on disk.

    Any other URL raises, and ``fail_on_errors`` turns that into a render that stops.
    """

    def __init__(self, root: Path, **kwargs: Any) -> None:
        super().__init__(allowed_protocols={"file", "data"}, fail_on_errors=True, **kwargs)
        self.root = root.resolve()

    def fetch(self, url: str, headers: Any = None) -> Any:
        scheme = url.split(":", 1)[0].lower()
        if scheme == "data":
            return super().fetch(url, headers)
        if scheme == "file":
            path = Path(url2pathname(urlsplit(url).path)).resolve()
            if path.is_relative_to(self.root) and path.is_file():
                return super().fetch(url, headers)
        raise ValueError(f"blocked URL: {url}")


def blocked_resource(root: Path, exc: BaseException) -> str:
    """What to tell a person whose template asks for a resource it may not have."""
    return (f"the report template asks for a resource outside {root.name}/ or on the network "
            f"({exc}); only data: URLs and files in the templates folder are allowed")


def html_to_pdf(html: str, templates_dir: Path | None = None,
                progress: Callable[[str], None] | None = None) -> bytes:
    """Lay out HTML whose relative links resolve in the templates folder; return the PDF bytes.
    ``progress`` is told when the layout starts and how many pages are being written. HTML
    marked with part breaks is laid out in parts by a worker per core (:mod:`pdf_parts`).

    Raises :class:`OutputError` when the HTML asks for anything outside the templates folder.
    """
    step = progress or (lambda _: None)
    root = _templates(templates_dir)
    workers = forked.worker_count()
    if workers and pdf_parts.PART_BREAK in html:
        return pdf_parts.join_parts(html, root, workers, progress)
    source = HTML(string=html, base_url=root.as_uri() + "/", url_fetcher=SafeURLFetcher(root))
    try:
        step("laying out the pages")
        document = source.render()
        step(f"writing {len(document.pages):,} pages")
        pdf: bytes = document.write_pdf()
    except FatalURLFetchingError as exc:  # a BaseException: `except Exception` misses it
        raise OutputError(blocked_resource(root, exc)) from exc
    return pdf


def write_pdf(plan: Plan, path: Path, templates_dir: Path | None = None,
              progress: Callable[[str], None] | None = None) -> None:
    """Render the plan's PDF report to ``path``; ``progress`` hears each step with its counts
    (scenario i of n, pages)."""
    pdf = html_to_pdf(render_html(plan, templates_dir, progress), templates_dir, progress)
    try:
        path.write_bytes(pdf)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    _log.debug("wrote %s (%d bytes)", path, len(pdf))
