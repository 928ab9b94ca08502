"""The only place that sequences the stages and writes files: read → validate → estimate →
render (results CSV/JSON, workbook, PDF)."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import numpy as np
import pandas as pd

from reportgen import __version__
from reportgen.choose import as_typed, decide
from reportgen.columns import OUTPUT_COLUMNS
from reportgen.digest import inputs_digest, reference_digest
from reportgen.engine import estimate
from reportgen.errors import InputError, OutputOverInputError
from reportgen.inputfiles import InputFile, find_overwritten_input
from reportgen.levers import with_levers
from reportgen.outputs import staged_outputs
from reportgen.plan import Plan, Provenance
from reportgen.readers import read_table
from reportgen.search import concrete, search
from reportgen.stamp import STAMP_COLUMNS, stamped_results
from reportgen.units import CONSTANTS
from reportgen.validate import ValidatedInput, validate

FORMATS = ("csv", "xlsx", "pdf")
__all__ = ["OUTPUT_COLUMNS", "BuildOptions", "BuildResult", "build", "load", "make_plan"]
MAX_WORKBOOK_SCENARIOS = 2_000  # ~90 live formulas per scenario; ~40 s to write at this size
MAX_PDF_SCENARIOS = 200  # one section (about a page) per scenario


@dataclass(frozen=True)
class BuildOptions:
    """What `reportgen build` was asked to do."""

    input_path: Path
    out_dir: Path
    title: str = ""
    formats: tuple[str, ...] = FORMATS
    generated: dt.date | None = None  # default: today


@dataclass(frozen=True)
class BuildResult:
    """What a build produced."""

    plan: Plan
    outputs: tuple[Path, ...]
    warnings: tuple[str, ...]


def load(path: Path) -> ValidatedInput:
    """Read and validate a scenario file (raises InputError with every problem)."""
    return validate(read_table(path), base_dir=path.parent)


def make_plan(checked: ValidatedInput, input_name: str, title: str = "",
              generated: dt.date | None = None) -> Plan:
    """Search each row's configurations, choose what is budgeted, and stamp the provenance."""
    specs = pd.DataFrame(index=checked.scenarios.index) if checked.specs is None else checked.specs
    found = search(checked.scenarios, specs, checked.tables)
    best = found.best()
    scenarios = concrete(checked.scenarios, best)
    results = estimate(scenarios, checked.tables)
    baseline = estimate(as_typed(checked.scenarios, specs, best), checked.tables)
    results = pd.concat([results, decide(results, found, baseline)], axis=1)
    provenance = Provenance(
        title=title or "GPU capacity and budget plan",
        input_name=input_name,
        input_sha256=checked.sha256,
        generated=generated or dt.date.today(),
        version=__version__,
        inputs_digest=inputs_digest(checked.scenarios, specs),
        reference_digest=reference_digest(
            checked.tables, {name: c.value for name, c in CONSTANTS.items()}
        ),
    )
    return Plan(scenarios, checked.tables, results, provenance, typed=checked.scenarios,
                specs=specs, search=found)


def write_results_csv(results: pd.DataFrame, path: Path | TextIO) -> None:
    """The results table as UTF-8 CSV, full precision (10 significant digits)."""
    results.to_csv(path, index=False, float_format="%.10g", lineterminator="\n")


def results_json(results: pd.DataFrame) -> str:
    """The results table as a JSON array of objects, one per scenario."""
    records = results.replace({np.nan: None}).to_dict(orient="records")
    for record in records:  # provenance columns hold JSON text: embed it as JSON
        for column in STAMP_COLUMNS:
            if isinstance(record.get(column), str):
                record[column] = json.loads(record[column])
    return json.dumps(records, indent=2, ensure_ascii=False, allow_nan=False)


def _check_size(checked: ValidatedInput, input_name: str, formats: tuple[str, ...]) -> None:
    n = len(checked.scenarios)
    limits = (("xlsx", MAX_WORKBOOK_SCENARIOS, "workbook"), ("pdf", MAX_PDF_SCENARIOS, "PDF"))
    for fmt, limit, label in limits:
        if fmt in formats and n > limit:
            raise InputError(
                f"{input_name} has {n:,} scenarios; the {label} is limited to "
                f"{limit:,}. Nothing was written. Use `reportgen estimate` for a results CSV of "
                "any size, build with --format csv, or split the file."
            )


_OUTPUT_KINDS = {"csv": "the results CSV", "xlsx": "the workbook", "pdf": "the PDF report"}


def refuse_overwriting_inputs(outputs: dict[str, Path], inputs: tuple[InputFile, ...]) -> None:
    """OutputOverInputError if any output path ({format: path}) is a file the build read: the
    same path, a link to it, or a spelling the file system takes for it (case)."""
    for fmt, path in outputs.items():
        source = find_overwritten_input(path, inputs)
        if source is not None:
            same = " (the same file under another name)" if path != Path(source.shown) else ""
            raise OutputOverInputError(
                f"{_OUTPUT_KINDS.get(fmt, 'an output')} would be written to {path}, which is "
                f"{source.shown}, an input of this build{same}; writing it would destroy the "
                "input, so nothing was written. Build into another folder (--out), or copy the "
                "input elsewhere first."
            )


def refuse_stdout_over_input(stream: TextIO, path: Path,
                             inputs: tuple[InputFile, ...] = ()) -> None:
    """OutputOverInputError if ``stream`` (standard output) is redirected into the scenario file
    ``path`` or any of ``inputs``: `reportgen estimate plan.csv > plan.csv`."""
    try:
        written = os.fstat(stream.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return  # not a file (a terminal, a pipe, a test's capture)
    if not stat.S_ISREG(written.st_mode):
        return
    identity = (written.st_dev, written.st_ino)
    named = [source for source in inputs if (source.device, source.inode) == identity]
    try:
        scenario = path.stat()
    except (OSError, ValueError):
        scenario = None
    if scenario is not None and (scenario.st_dev, scenario.st_ino) == identity:
        emptied = " (the shell emptied it before reportgen started)" if not scenario.st_size else ""
        raise OutputOverInputError(
            f"standard output is redirected into the scenario file {path}{emptied}; nothing "
            "was written. Send the results to another file."
        )
    if named:
        raise OutputOverInputError(
            f"standard output is redirected into {named[0].shown}, an input of this build; "
            "nothing was written. Send the results to another file."
        )


def build(options: BuildOptions, progress: Callable[[str], None] | None = None) -> BuildResult:
    """Build every requested output; nothing is written unless everything succeeds, and no
    output may replace a file the build reads."""
    step = progress or (lambda _: None)
    step("reading and validating")
    checked = load(options.input_path)
    stem = options.input_path.stem
    names = {"csv": f"{stem}-results.csv", "xlsx": f"{stem}.xlsx", "pdf": f"{stem}.pdf"}
    refuse_overwriting_inputs({fmt: options.out_dir / names[fmt] for fmt in options.formats},
                              checked.inputs)
    _check_size(checked, options.input_path.name, options.formats)
    plan = make_plan(checked, options.input_path.name, options.title, options.generated)
    if {"xlsx", "pdf"} & set(options.formats):
        step("weighing the levers of each plan row")
        plan = with_levers(plan)
    outputs: list[Path] = []
    with staged_outputs(options.out_dir) as stage:
        if "csv" in options.formats:
            step("writing results CSV")
            path = options.out_dir / names["csv"]
            stage(path, lambda p: write_results_csv(stamped_results(plan), p))
            outputs.append(path)
        if "xlsx" in options.formats:
            step("writing workbook")
            from reportgen.render.workbook import write_workbook

            path = options.out_dir / names["xlsx"]
            stage(path, lambda p: write_workbook(plan, p))
            outputs.append(path)
        if "pdf" in options.formats:
            step("writing PDF report")
            from reportgen.render.pdf import write_pdf

            path = options.out_dir / names["pdf"]
            stage(path, lambda p: write_pdf(plan, p))
            outputs.append(path)
    return BuildResult(plan, tuple(outputs), checked.warnings)
