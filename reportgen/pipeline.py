"""The only place that sequences the stages and writes files: read → validate → estimate →
render (results CSV/JSON, workbook, PDF)."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import numpy as np
import pandas as pd

from reportgen import __version__, forked, i18n
from reportgen.choose import as_typed, decide, gpus_per_node
from reportgen.columns import OUTPUT_COLUMNS
from reportgen.csv_text import write_csv
from reportgen.digest import inputs_digest, reference_digest
from reportgen.engine import Tables, estimate
from reportgen.errors import InputError, OutputOverInputError
from reportgen.inputfiles import InputFile, find_overwritten_input
from reportgen.levers import with_levers
from reportgen.outputs import staged_outputs
from reportgen.plan import DEFAULT_TITLE, Plan, Provenance
from reportgen.readers import read_table
from reportgen.search import concrete, search
from reportgen.simulate.plan_latency import with_latency
from reportgen.simulate.sizing import simulated_knees
from reportgen.stamp import STAMP_COLUMNS, stamped_results
from reportgen.units import CONSTANTS
from reportgen.validate import ValidatedInput, validate

if TYPE_CHECKING:
    from reportgen.calibration.loadtest_fit import StackFit
    from reportgen.calibration.user_rows import UserCalibration
    from reportgen.catalog import Catalogs
    from reportgen.finance.prices import PriceBook

FORMATS = ("csv", "xlsx", "pdf")
__all__ = ["OUTPUT_COLUMNS", "BuildOptions", "BuildResult", "CalibrateOptions", "CalibrateResult",
           "build", "calibrate", "load", "load_with_efficiency", "make_plan"]
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
    efficiency: Path | None = None  # your efficiency rows (reportgen calibrate writes them)
    prices: Path | None = None  # your price book (CSV/XLSX); default: the shipped one
    price_basis: str = "on_demand"  # which basis of the price book the plan is costed at
    profile: Path | None = None  # daily demand profiles (CSV/XLSX: profile, hour, weight)
    lang: str = "en"  # the language of the workbook and PDF (i18n.LANGUAGES); data stays English


@dataclass(frozen=True)
class BuildResult:
    """What a build produced."""

    plan: Plan
    outputs: tuple[Path, ...]
    warnings: tuple[str, ...]


def load(path: Path, catalogs: Catalogs | None = None) -> ValidatedInput:
    """Read and validate a scenario file (raises InputError with every problem)."""
    return validate(read_table(path), catalogs, base_dir=path.parent)


def priced_catalogs(path: Path, prices: Path | None = None, basis: str = "on_demand",
                    as_of: dt.date | None = None
                    ) -> tuple[Catalogs, PriceBook, tuple[str, ...]]:
    """The catalogs with GPUs priced at ``basis`` from ``prices`` (CSV/XLSX), else the scenario
    workbook's Prices sheet, else the shipped price book; the book; and notes for the user."""
    from reportgen.catalog import load_catalogs, resolve_gpu
    from reportgen.finance.prices import (
        PRICES_SHEET,
        read_price_book,
        scenario_workbook_prices,
        shipped_price_book,
    )

    catalogs = load_catalogs()
    when = as_of or dt.date.today()

    def resolve(name: str) -> str:
        return resolve_gpu(catalogs, name)

    notes: tuple[str, ...] = ()
    workbook = path.suffix.lower() in (".xlsx", ".xlsm") and path.is_file()
    book = read_price_book(prices, resolve) if prices is not None else None
    if book is None and workbook:
        book = scenario_workbook_prices(path, resolve)
    elif book is not None and workbook and scenario_workbook_prices(path, resolve) is not None:
        notes = (f"{path}: its {PRICES_SHEET} sheet was not used; --prices {prices} was given "
                 "instead.",)
    if book is None:
        book = shipped_price_book(resolve)
        if basis == "on_demand" and as_of is None:  # the catalogs are priced so already
            return catalogs, book, notes
    return catalogs.with_prices(book, basis, when), book, notes


def load_with_efficiency(path: Path, efficiency: Path | None = None,
                         prices: Path | None = None, price_basis: str = "on_demand",
                         as_of: dt.date | None = None
                         ) -> tuple[ValidatedInput, UserCalibration | None]:
    """Read and validate a scenario file priced from ``prices`` (see :func:`priced_catalogs`),
    and join your efficiency rows to the shipped table: those of ``efficiency`` (CSV or XLSX),
    else those of the scenario workbook's Efficiency sheet, if any."""
    from reportgen.calibration.efficiency_file import (
        EFFICIENCY_SHEET,
        UserEfficiency,
        has_sheet,
        read_efficiency,
        scenario_workbook_efficiency,
    )
    from reportgen.calibration.user_rows import apply

    table = read_table(path)  # an unreadable scenario file is reported before any price sheet
    catalogs, book, price_notes = priced_catalogs(path, prices, price_basis, as_of)
    checked = replace(validate(table, catalogs, base_dir=path.parent), prices=book)
    if price_notes:
        checked = replace(checked, warnings=(*checked.warnings, *price_notes))
    user: UserEfficiency | None = None
    notes: tuple[str, ...] = ()
    workbook = path.suffix.lower() in (".xlsx", ".xlsm")
    if efficiency is not None:
        user = read_efficiency(efficiency, catalogs)
        if workbook and has_sheet(path, EFFICIENCY_SHEET):
            notes = (f"{path}: its {EFFICIENCY_SHEET} sheet was not used; --efficiency "
                     f"{efficiency} was given instead.",)
    elif workbook:
        user = scenario_workbook_efficiency(path, catalogs)
    if user is None:
        return checked, None
    return apply(checked, user, catalogs, notes)


def make_plan(checked: ValidatedInput, input_name: str, title: str = "",
              generated: dt.date | None = None,
              calibration: UserCalibration | None = None,
              profiles: Mapping[str, np.ndarray] | None = None,
              results_only: bool = False, digested: bool = True) -> Plan:
    """Search each row's configurations, choose what is budgeted, and stamp the provenance.
    ``results_only``: the plan feeds a results file, not a report: the search keeps each row's
    best two candidates only (no alternatives for the levers and charts). ``digested``: False
    leaves the provenance's inputs digest blank (a block of a larger file, whose digest is
    computed over all its rows: see :mod:`reportgen.blocks`)."""
    specs = pd.DataFrame(index=checked.scenarios.index) if checked.specs is None else checked.specs
    found = (search(checked.scenarios, specs, checked.tables, keep=2, shapes=False)
             if results_only else search(checked.scenarios, specs, checked.tables))
    best = found.best()
    scenarios = concrete(checked.scenarios, best)
    results = estimate(scenarios, checked.tables)
    knees = simulated_knees(scenarios, results, checked.tables)
    simulation_notes: tuple[str, ...] = ()
    typed = checked.scenarios
    if knees is not None:  # P99 targets: the simulated knee sizes those rows, as an input
        scenarios, simulation_notes = knees
        typed = typed.assign(knee_rps=scenarios["knee_rps"].to_numpy())
        sized = typed["knee_rps"].notna() & checked.scenarios["knee_rps"].isna()
        results = _estimated_again(results, scenarios, checked.tables,
                                   np.flatnonzero(sized.to_numpy()))
    baseline = estimate(as_typed(checked.scenarios, specs, best), checked.tables)
    per_node = gpus_per_node(checked.tables.gpus)
    results = pd.concat([results, decide(results, found, baseline, per_node)], axis=1)
    if calibration is not None:
        from reportgen.calibration.user_rows import mark_used

        calibration = mark_used(calibration, results)
    provenance = provenance_of(checked, typed if digested else None, input_name, title,
                               generated)
    return Plan(scenarios, checked.tables, results, provenance, typed=typed,
                specs=specs, search=found, calibration=calibration,
                simulation_notes=simulation_notes, prices=checked.prices, profiles=profiles)


def provenance_of(checked: ValidatedInput, typed: pd.DataFrame | None, input_name: str,
                  title: str = "", generated: dt.date | None = None) -> Provenance:
    """What a plan of ``checked`` was computed from: ``typed`` is its rows as typed, with each
    simulated knee (None: the inputs digest is left blank)."""
    return Provenance(
        title=title or DEFAULT_TITLE,
        input_name=input_name,
        input_sha256=checked.sha256,
        generated=generated or dt.date.today(),
        version=__version__,
        inputs_digest="" if typed is None else inputs_digest(typed, checked.specs),
        reference_digest=reference_digest(
            checked.tables, {name: c.value for name, c in CONSTANTS.items()}
        ),
    )


def _estimated_again(results: pd.DataFrame, scenarios: pd.DataFrame, tables: Tables,
                     sized: np.ndarray) -> pd.DataFrame:
    """``results`` with the rows at positions ``sized`` (those whose knee was simulated)
    estimated again; the engine works row by row, so the other rows keep their figures."""
    again = estimate(scenarios.iloc[sized], tables)
    for column in results.columns:  # column by column: each keeps its dtype, one copy at a time
        values = results[column].to_numpy(copy=True)
        values[sized] = again[column].to_numpy()
        results[column] = values
    return results


def write_results_csv(results: pd.DataFrame, path: Path | TextIO) -> None:
    """The results table as UTF-8 CSV, full precision (10 significant digits)."""
    write_csv(results, path)


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
    checked, calibration = load_with_efficiency(options.input_path, options.efficiency,
                                                options.prices, options.price_basis,
                                                options.generated)
    stem = options.input_path.stem
    edition = "" if options.lang == i18n.DEFAULT else f".{options.lang}"  # side by side
    names = {"csv": f"{stem}-results.csv", "xlsx": f"{stem}{edition}.xlsx",
             "pdf": f"{stem}{edition}.pdf"}
    refuse_overwriting_inputs({fmt: options.out_dir / names[fmt] for fmt in options.formats},
                              checked.inputs)
    _check_size(checked, options.input_path.name, options.formats)
    profiles = None
    if options.profile is not None:
        from reportgen.finance.demand import read_profiles

        profiles = read_profiles(options.profile)
    plan = make_plan(checked, options.input_path.name, options.title, options.generated,
                     calibration, profiles)
    if {"xlsx", "pdf"} & set(options.formats):
        step("weighing the levers of each plan row")
        plan = with_levers(plan)
        step("simulating latency under load and a day of autoscaling")
        plan = with_latency(plan)
    outputs: list[Path] = []
    with staged_outputs(options.out_dir) as stage, i18n.language(options.lang):
        if "csv" in options.formats:
            step("writing results CSV")
            path = options.out_dir / names["csv"]
            stage(path, lambda p: write_results_csv(stamped_results(plan), p))
            outputs.append(path)
        if "xlsx" in options.formats:
            step("writing workbook")
            from reportgen.render.workbook import write_workbook

            path = options.out_dir / names["xlsx"]
            if "pdf" in options.formats:  # another process writes it while the PDF is laid out
                stage(path, lambda p: forked.start(lambda: write_workbook(plan, p)))
            else:
                stage(path, lambda p: write_workbook(plan, p))
            outputs.append(path)
        if "pdf" in options.formats:
            step("writing PDF report")
            from reportgen.render.pdf import write_pdf

            path = options.out_dir / names["pdf"]
            stage(path, lambda p: write_pdf(
                plan, p, progress=lambda text: step(f"writing PDF report: {text}")))
            outputs.append(path)
    notes = plan.calibration.warnings() if plan.calibration is not None else ()
    return BuildResult(plan, tuple(outputs), (*checked.warnings, *notes, *plan.simulation_notes))


# --- calibration on your load test ------------------------------------------------------------


@dataclass(frozen=True)
class CalibrateOptions:
    """What `reportgen calibrate` was asked to do."""

    results: tuple[Path, ...]
    out: Path  # .csv (the runs go to NAME-runs.csv beside it) or .xlsx
    stack_file: Path | None = None
    stack: Mapping[str, str] = field(default_factory=dict)  # facts given as flags
    today: dt.date | None = None  # the calibration's date (default: today)


@dataclass(frozen=True)
class CalibrateResult:
    """What a calibration produced."""

    fits: tuple[StackFit, ...]
    outputs: tuple[Path, ...]


def calibrate(options: CalibrateOptions, progress: Callable[[str], None] | None = None
              ) -> CalibrateResult:
    """Read the load-test results, fit every stack among them, write the efficiency file (and
    its runs); nothing is written unless everything succeeds."""
    from reportgen.calibration import efficiency_file as files
    from reportgen.calibration.loadtest_fit import fit_stacks
    from reportgen.calibration.stack import read_stack_file, resolve
    from reportgen.catalog import load_catalogs
    from reportgen.efficiency import load_efficiency
    from reportgen.loadtest import read_results

    step = progress or (lambda _: None)
    suffix = options.out.suffix.lower()
    if suffix not in (".csv", ".xlsx"):
        raise InputError(f"--out {options.out}: expected a .csv or .xlsx file name.")
    runs_file = files.runs_path(options.out)
    inputs = [*options.results, *([options.stack_file] if options.stack_file else [])]
    for target in (options.out, runs_file) if suffix == ".csv" else (options.out,):
        if any(target.resolve() == p.resolve() for p in inputs):
            raise InputError(f"--out {options.out} would overwrite {target}, which is one of "
                             "the inputs; choose another name.")
    step("reading the load-test results")
    runs = read_results(options.results)
    rows = read_stack_file(options.stack_file) if options.stack_file else {}
    stacks, catalogs = resolve(runs, options.stack, rows, load_catalogs())
    step("fitting the efficiencies")
    shipped = load_efficiency()
    fits = fit_stacks(runs, stacks, catalogs, shipped)
    table = files.efficiency_rows(fits, shipped, options.today)
    run_table = pd.concat([f.runs for f in fits], ignore_index=True)
    with staged_outputs(options.out.parent) as stage:
        if suffix == ".csv":
            stage(runs_file, lambda p: files.write_csv(run_table, p))
            stage(options.out, lambda p: files.write_csv(table, p))
            outputs: tuple[Path, ...] = (options.out, runs_file)
        else:
            stage(options.out, lambda p: files.write_xlsx(table, run_table, p))
            outputs = (options.out,)
    return CalibrateResult(tuple(fits), outputs)
