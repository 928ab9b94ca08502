"""The `reportgen` command line. Thin: parse, build one options object, call one function, map
errors to exit codes (0 ok, 2 for anything the user can fix, 1 for a bug)."""

from __future__ import annotations

import datetime as dt
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

import click

from reportgen import __version__
from reportgen.errors import CatalogError, ReportgenError
from reportgen.i18n import LANGUAGES

DEFAULT_INPUT = Path("inputs/scenarios.csv")
EXIT_USER_ERROR = 2
EXIT_BUG = 1
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command whose reader went away


def _fail(message: str, code: int) -> None:
    click.echo(f"reportgen: {message}", err=True)
    raise SystemExit(code)


def _guarded(debug: bool, action: Callable[[], None]) -> None:
    try:
        action()
    except CatalogError as err:
        if debug:
            traceback.print_exc()
        _fail(f"the shipped catalog is inconsistent (this is a bug): {err}", EXIT_BUG)
    except ReportgenError as err:
        if debug:
            traceback.print_exc()
        _fail(str(err), EXIT_USER_ERROR)
    except KeyboardInterrupt:
        _fail("interrupted; nothing was written.", 130)
    except BrokenPipeError:  # `reportgen estimate big.csv | head`: the reader has had enough
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the exit flush does not fail again
        raise SystemExit(EXIT_BROKEN_PIPE) from None
    except Exception as err:  # the last line of defence: a bug, reported as one
        if debug:
            traceback.print_exc()
        _fail(
            f"internal error (this is a bug): {type(err).__name__}: {err}. Nothing was written. "
            "Run again with --debug for the traceback and report it.",
            EXIT_BUG,
        )


def _warn(warnings: Sequence[str]) -> None:
    for warning in warnings:
        click.echo(f"reportgen: warning: {warning}", err=True)


def _price_options(fn: Callable[..., None]) -> Callable[..., None]:
    """--prices and --price-basis, the same on every command that prices a plan."""
    fn = click.option("--price-basis", "price_basis", default="on_demand", show_default=True,
                      type=click.Choice(["on_demand", "reserved_1y", "reserved_3y", "spot",
                                         "capacity_block"]),
                      help="Which prices of the price book the plan is costed at.")(fn)
    return click.option("--prices", "prices", type=click.Path(path_type=Path),
                        help="Your price book (CSV/XLSX; default: "
                             "reportgen/data/prices.csv).")(fn)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reportgen")
def app() -> None:
    """GPU capacity and budget plans for LLM inference services.

    Reads scenarios (peak QPS, prompt and output lengths, model, GPU, price, latency targets)
    from CSV or XLSX and writes an Excel workbook with live formulas, a PDF report and a results
    CSV. Run `reportgen columns` for the input columns.
    """


@app.command()
@click.argument("input_path", metavar="[INPUT]", required=False, type=click.Path(path_type=Path))
@click.option("--out", "out_dir", default=Path("outputs"), show_default=True,
              type=click.Path(path_type=Path, file_okay=False), help="Folder for the outputs.")
@click.option("--title", default="", help="Plan or organisation name for the cover.")
@click.option("--format", "formats", multiple=True, type=click.Choice(["csv", "xlsx", "pdf"]),
              help="Outputs to write (repeatable; default: all).")
@click.option("--efficiency", "efficiency", type=click.Path(path_type=Path),
              help="Your efficiency rows (CSV/XLSX, e.g. from `reportgen calibrate`).")
@click.option("--date", "generated", type=click.DateTime(["%Y-%m-%d"]), default=None,
              help="Date the plan is stamped with, YYYY-MM-DD (default: today).")
@_price_options
@click.option("--profile", "profile", type=click.Path(path_type=Path),
              help="Daily demand profiles (CSV/XLSX: profile, hour 0-23, weight; a profile "
                   "named like a workload applies to it).")
@click.option("--lang", "lang", type=click.Choice(LANGUAGES), default="en", show_default=True,
              help="Language of the workbook and PDF (zh-CN: Chinese, written to "
                   "<name>.zh-CN.xlsx and .pdf); the results CSV is data and stays as it is.")
@click.option("--debug", is_flag=True, help="Show tracebacks.")
def build(input_path: Path | None, out_dir: Path, title: str, formats: tuple[str, ...],
          efficiency: Path | None, generated: dt.datetime | None, prices: Path | None,
          price_basis: str, profile: Path | None, lang: str, debug: bool) -> None:
    """Build the results CSV, workbook and PDF from INPUT (default inputs/scenarios.csv)."""
    from reportgen.pipeline import FORMATS, BuildOptions
    from reportgen.pipeline import build as run_build
    from reportgen.terminal import progress_reporter, summary_table

    options = BuildOptions(input_path or DEFAULT_INPUT, out_dir, title, formats or FORMATS,
                           generated.date() if generated else None, efficiency=efficiency,
                           prices=prices, price_basis=price_basis, profile=profile, lang=lang)

    def action() -> None:
        with progress_reporter() as step:
            result = run_build(options, step)
        _warn(result.warnings)
        summary_table(result)

    _guarded(debug, action)


@app.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="JSON instead of CSV.")
@click.option("--efficiency", "efficiency", type=click.Path(path_type=Path),
              help="Your efficiency rows (CSV/XLSX, e.g. from `reportgen calibrate`).")
@_price_options
@click.option("--debug", is_flag=True, help="Show tracebacks.")
def estimate(input_path: Path, as_json: bool, efficiency: Path | None, prices: Path | None,
             price_basis: str, debug: bool) -> None:
    """Estimate INPUT and print the results (CSV, or JSON with --json) to stdout."""
    from reportgen.blocks import write_results
    from reportgen.pipeline import (
        load_with_efficiency,
        make_plan,
        refuse_stdout_over_input,
        results_json,
    )
    from reportgen.stamp import stamped_results
    from reportgen.terminal import progress_reporter

    def action() -> None:
        refuse_stdout_over_input(sys.stdout, input_path)  # before the read: say what happened
        with progress_reporter() as step:  # on a terminal's stderr: a long file takes minutes
            step("reading and validating")
            checked, calibration = load_with_efficiency(input_path, efficiency, prices,
                                                        price_basis)
            refuse_stdout_over_input(sys.stdout, input_path, checked.inputs)
            _warn(checked.warnings)
            n = len(checked.scenarios)
            step(f"planning {n:,} scenario{'s' if n != 1 else ''}")
            if as_json:
                plan = make_plan(checked, input_path.name, calibration=calibration,
                                 results_only=True)
                calibration = plan.calibration
                click.echo(results_json(stamped_results(plan)))
            else:
                sys.stdout.flush()
                calibration = write_results(
                    checked, input_path.name, sys.stdout.buffer, calibration,
                    written=lambda k: step(f"planned and written {k:,} of {n:,} scenarios"))
                sys.stdout.buffer.flush()
        _warn(calibration.warnings() if calibration is not None else ())

    _guarded(debug, action)


@app.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(path_type=Path))
@click.option("--debug", is_flag=True, help="Show tracebacks.")
def validate(input_path: Path, debug: bool) -> None:
    """Check INPUT and list every problem; writes nothing."""
    from reportgen.pipeline import load

    def action() -> None:
        checked = load(input_path)
        _warn(checked.warnings)
        n, w = len(checked.scenarios), len(checked.warnings)
        scenarios = f"{n:,} scenario{'s' if n != 1 else ''}"
        if w:
            click.echo(f"{input_path}: {scenarios}, no errors, {w:,} warning"
                       f"{'s' if w != 1 else ''} (above): read before you build.")
        else:
            click.echo(f"{input_path}: {scenarios}, no problems.")

    _guarded(debug, action)


_STACK_FLAGS = (
    ("model", str, "Model served (catalog name, Hugging Face id or config.json)."),
    ("gpu", str, "GPU the load test ran on (e.g. H100)."),
    ("tp", int, "Tensor parallelism per replica."),
    ("weight-dtype", str, "Weight precision (bf16, fp8, ...)."),
    ("kv-dtype", str, "KV-cache precision (default bf16)."),
    ("engine", str, "Serving engine (vllm, sglang, tensorrt-llm)."),
    ("engine-version", str, "The engine's version, e.g. 0.11.0."),
    ("instances", int, "Replicas behind the tested endpoint (default 1)."),
    ("max-batch", int, "The engine's cap on running sequences (vLLM --max-num-seqs)."),
    ("date", str, "Date of the load test, YYYY-MM-DD (default: from the file)."),
)


def _stack_options(fn: Callable[..., None]) -> Callable[..., None]:
    for name, kind, text in reversed(_STACK_FLAGS):
        fn = click.option(f"--{name}", name.replace("-", "_"), type=kind, help=text)(fn)
    return fn


@app.command()
@click.argument("results", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", default=Path("outputs/efficiency.csv"), show_default=True,
              type=click.Path(path_type=Path, dir_okay=False),
              help="Efficiency file to write (.csv, runs in NAME-runs.csv; or .xlsx).")
@click.option("--stack", "stack_file", type=click.Path(path_type=Path),
              help="CSV/XLSX with what the result files do not say (columns file, gpu, tp, ...).")
@_stack_options
@click.option("--debug", is_flag=True, help="Show tracebacks.")
def calibrate(results: tuple[Path, ...], out: Path, stack_file: Path | None, debug: bool,
              **stack: object) -> None:
    """Fit the efficiencies of your serving stack on load-test RESULTS (vllm bench serve,
    SGLang bench_serving, GuideLLM, genai-perf, AIPerf or llmperf files)."""
    from reportgen.pipeline import CalibrateOptions
    from reportgen.pipeline import calibrate as run_calibrate
    from reportgen.terminal import calibration_table, progress_reporter

    facts = {k: str(v) for k, v in stack.items() if v is not None}
    options = CalibrateOptions(results, out, stack_file, facts)

    def action() -> None:
        with progress_reporter() as step:
            result = run_calibrate(options, step)
        calibration_table(result)

    _guarded(debug, action)


@app.command()
@click.option("--markdown", is_flag=True, help="A Markdown table (for the README).")
@click.option("--actuals", is_flag=True, help="The actuals template of `reportgen review`.")
def columns(markdown: bool, actuals: bool) -> None:
    """Every input column with type, unit, default, allowed values and meaning."""
    from reportgen.terminal import columns_table

    if actuals:
        from reportgen.review.actuals.measures import TEMPLATE_COLUMNS

        columns_table(markdown, TEMPLATE_COLUMNS, "Actuals template columns (CSV or XLSX; one "
                      "row per workload and period)")
    else:
        columns_table(markdown)


@app.command()
@click.argument("plan_path", metavar="PLAN", type=click.Path(path_type=Path))
@click.argument("actual_paths", metavar="ACTUALS...", nargs=-1, required=True,
                type=click.Path(path_type=Path))
@click.option("--out", "out_dir", default=Path("outputs"), show_default=True,
              type=click.Path(path_type=Path, file_okay=False), help="Folder for the outputs.")
@click.option("--title", default="", help="Title of the review (default: the plan's).")
@click.option("--format", "formats", multiple=True, type=click.Choice(["xlsx", "pdf", "csv"]),
              help="Outputs to write (repeatable; default: all).")
@click.option("--debug", is_flag=True, help="Show tracebacks.")
def review(plan_path: Path, actual_paths: tuple[Path, ...], out_dir: Path, title: str,
           formats: tuple[str, ...], debug: bool) -> None:
    """The quarter in review: PLAN (a workbook or results CSV from `reportgen build`) against
    ACTUALS (the actuals template, Prometheus query_range exports of vLLM metrics, AWS Cost and
    Usage Report CSVs): variance explained, latency against target, re-forecast."""
    from reportgen.review.pipeline import FORMATS, ReviewOptions, run_review
    from reportgen.review.terminal import summary
    from reportgen.terminal import progress_reporter

    options = ReviewOptions(plan_path, actual_paths, out_dir, title, formats or FORMATS)

    def action() -> None:
        with progress_reporter() as step:
            result = run_review(options, step)
        _warn([f"the plan file was edited after reportgen wrote it: {w}"
               for w in result.warnings])
        summary(result)

    _guarded(debug, action)


@app.command()
@click.argument("kind", type=click.Choice(["gpus", "models"]))
def catalog(kind: str) -> None:
    """The GPUs or models reportgen knows, with their sources."""
    from reportgen.terminal import catalog_table

    _guarded(False, lambda: catalog_table(kind))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    try:
        app.main(args=list(argv) if argv is not None else None, prog_name="reportgen",
                 standalone_mode=False)
    except click.exceptions.Exit as done:
        return int(done.exit_code or 0)
    except click.ClickException as err:
        err.show()
        return EXIT_USER_ERROR
    except click.exceptions.Abort:
        click.echo("reportgen: aborted.", err=True)
        return 130
    except SystemExit as done:
        return int(done.code or 0) if isinstance(done.code, int) else EXIT_BUG
    return 0
