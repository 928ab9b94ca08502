"""`reportgen review`: read, compute, and write the outputs together (nothing is written unless
everything succeeds): <plan>-review.xlsx, <plan>-review.pdf and <plan>-reforecast.csv."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reportgen.errors import OutputOverInputError
from reportgen.inputfiles import InputFile, find_overwritten_input
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


def _refuse_overwriting_inputs(outputs: list[Path], inputs: tuple[Path, ...]) -> None:
    read = []
    for path in inputs:
        try:
            st = path.stat()
        except (OSError, ValueError):
            continue
        read.append(InputFile(str(path), path.resolve(), st.st_dev, st.st_ino))
    for output in outputs:
        source = find_overwritten_input(output, read)
        if source is not None:
            raise OutputOverInputError(
                f"{output} would replace {source.shown}, an input of this review; nothing was "
                "written. Write into another folder (--out)."
            )


def run_review(options: ReviewOptions, progress: Callable[[str], None] | None = None
               ) -> ReviewResult:
    """Build the review and write every requested output (none may replace an input)."""
    step = progress or (lambda _: None)
    stem = output_stem(options.plan_path)
    names = {"xlsx": f"{stem}-review.xlsx", "pdf": f"{stem}-review.pdf",
             "csv": f"{stem}-reforecast.csv"}
    paths = {fmt: options.out_dir / names[fmt] for fmt in FORMATS if fmt in options.formats}
    _refuse_overwriting_inputs(list(paths.values()),
                               (options.plan_path, *options.actual_paths))
    step("reading the plan and the actuals")
    review = build_review(options.plan_path, options.actual_paths, options.title,
                          options.generated)
    with staged_outputs(options.out_dir) as stage:
        if "xlsx" in paths:
            step("writing the review workbook")
            from reportgen.review.render.workbook import write_review_workbook

            stage(paths["xlsx"], lambda p: write_review_workbook(review, p))
        if "pdf" in paths:
            step("writing the review PDF")
            from reportgen.review.render.pdf import write_review_pdf

            stage(paths["pdf"], lambda p: write_review_pdf(review, p))
        if "csv" in paths:
            from reportgen.review.reforecast import write_scenarios

            stage(paths["csv"], lambda p: write_scenarios(review.reforecast.rows, p))
    outputs = list(paths.values())
    warnings = review.record.check.findings if review.record.check.edited else ()
    return ReviewResult(review, tuple(outputs), tuple(warnings))
