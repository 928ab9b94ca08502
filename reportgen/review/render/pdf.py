"""The PDF "Quarter in review": its own templates (templates/review/, sharing report.css),
rendered by the budget report's Jinja environment and WeasyPrint settings."""

from __future__ import annotations

from pathlib import Path

from reportgen.errors import OutputError
from reportgen.render.pdf import environment, html_to_pdf
from reportgen.review.build import Review
from reportgen.review.render.context import build_report

ENTRY_TEMPLATE = "review/review.html.j2"


def render_html(review: Review, templates_dir: Path | None = None) -> str:
    """The review as HTML."""
    report = build_report(review)
    return environment(templates_dir).get_template(ENTRY_TEMPLATE).render(report=report)


def write_review_pdf(review: Review, path: Path, templates_dir: Path | None = None) -> None:
    """Render the review to ``path``."""
    pdf = html_to_pdf(render_html(review, templates_dir), templates_dir)
    try:
        path.write_bytes(pdf)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from exc
