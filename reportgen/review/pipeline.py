"""`reportgen review`: read, compute, and write the outputs together (nothing is written unless
everything succeeds): <plan>-review.xlsx, <plan>-review.pdf and <plan>-reforecast.csv."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reportgen.outputs import staged_outputs
from reportgen.review.build import Review, build_review

FORMATS = ("xlsx", "pdf", "csv")


@dataclass(frozen=True)
class ReviewOptions:
    """What `reportgen review` was asked to do."""

    plan_path: Path
    actual_paths: tuple[Path, ...]
    out_dir: Path
    title: str = ""
    formats: tuple[str, ...] = FORMATS
    generated: dt.date | None = None  # default: today


@dataclass(frozen=True)
class ReviewResult:
    """What a review produced."""

    review: Review
    outputs: tuple[Path, ...]
    warnings: tuple[str, ...]


def output_stem(plan_path: Path) -> str:
    """The plan file's name without its suffix (and without "-results" for a results CSV)."""
    return plan_path.stem.removesuffix("-results")


def run_review(options: ReviewOptions, progress: Callable[[str], None] | None = None
               ) -> ReviewResult:
    """Build the review and write every requested output."""
    step = progress or (lambda _: None)
    step("reading the plan and the actuals")
    review = build_review(options.plan_path, options.actual_paths, options.title,
                          options.generated)
    stem = output_stem(options.plan_path)
    outputs: list[Path] = []
    with staged_outputs(options.out_dir) as stage:
        if "xlsx" in options.formats:
            step("writing the review workbook")
            from reportgen.review.render.workbook import write_review_workbook

            path = options.out_dir / f"{stem}-review.xlsx"
            stage(path, lambda p: write_review_workbook(review, p))
            outputs.append(path)
        if "pdf" in options.formats:
            step("writing the review PDF")
            from reportgen.review.render.pdf import write_review_pdf

            path = options.out_dir / f"{stem}-review.pdf"
            stage(path, lambda p: write_review_pdf(review, p))
            outputs.append(path)
        if "csv" in options.formats:
            from reportgen.review.reforecast import write_scenarios

            path = options.out_dir / f"{stem}-reforecast.csv"
            stage(path, lambda p: write_scenarios(review.reforecast.rows, p))
            outputs.append(path)
    warnings = review.record.check.findings if review.record.check.edited else ()
    return ReviewResult(review, tuple(outputs), tuple(warnings))
