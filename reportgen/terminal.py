"""What the command line shows a person: progress, the summary table, columns and catalogs."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from reportgen import schema
from reportgen.choose import replica_shape
from reportgen.finance.support import support
from reportgen.formats import format_value
from reportgen.pipeline import BuildResult, CalibrateResult

if TYPE_CHECKING:
    import pandas as pd


def _console() -> Console:
    """Standard output; wide enough for the tables when it is a file or a pipe."""
    console = Console(soft_wrap=False)
    if not console.is_terminal:
        console.width = 200
    return console


@contextlib.contextmanager
def progress_reporter() -> Iterator[Callable[[str], None]]:
    """A spinner with the current step on a terminal (stderr); silent when not a terminal."""
    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda _: None
        return
    with console.status("reportgen") as status:
        yield lambda step: status.update(f"reportgen: {step}")


SUMMARY_ROWS = 40  # a terminal table longer than this is not read; the outputs hold every row
# The summary's columns: header, alignment, and the order in which they give way when the
# terminal is too narrow for all (0 never does: scenario names are wrapped, never cut).
_SUMMARY = (("scenario", "left", 0), ("model", "left", 6), ("GPU", "left", 4),
            ("tp×pp", "right", 5), ("GPUs", "right", 1), ("monthly cost", "right", 2),
            ("$/1M out tok", "right", 7), ("bottleneck", "left", 3), ("status", "left", 1))
_ALWAYS = 3  # priorities up to this are kept whatever the width


def fit_columns(widths: list[int], priorities: list[int], room: int) -> list[int]:
    """Indexes of the columns to show: all if their natural ``widths`` fit in ``room``
    characters of a boxed table, else without the least important (highest priority number)
    until they do or only the essential ones are left."""
    keep = list(range(len(widths)))

    def needed() -> int:
        return 1 + sum(widths[j] + 3 for j in keep)  # "│ " + cell + " " per column, "│" at the end

    for j in sorted(keep, key=lambda j: -priorities[j]):
        if needed() <= room or priorities[j] <= _ALWAYS:
            break
        keep.remove(j)
    return keep


def summary_table(result: BuildResult) -> None:
    """The plan's totals and a line per scenario (the first SUMMARY_ROWS), then the files.

    The table fits the terminal: less important columns give way first, and scenario names
    wrap instead of being cut."""
    results = result.plan.results
    console = _console()
    counted = results["counted"] == 1
    rows = [[
        str(row["scenario"]), str(row["model"]), str(row["gpu"]),
        replica_shape(row["tp"], row["pp"]), format_value(row["gpus"], "GPUs"),
        *(("no price", "no price") if row.get("priced", 1) == 0 else (
            format_value(row["monthly_cost"], "USD/month"),
            format_value(row["cost_per_million_output_tokens"], "USD/1M tokens"))),
        str(row["bottleneck"]), str(row["status"]),
    ] for _, row in results.head(SUMMARY_ROWS).iterrows()]
    total = ["total (plan)", "", "", "", format_value(results.loc[counted, "gpus"].sum(), "GPUs"),
             format_value(results.loc[counted, "monthly_cost"].sum(), "USD/month"), "", "", ""]
    widths = [max([max(map(len, header.split())), *(len(r[j]) for r in [*rows, total])])
              for j, (header, _, _) in enumerate(_SUMMARY)]
    keep = fit_columns(widths, [priority for _, _, priority in _SUMMARY], console.width)
    table = Table(title=f"{result.plan.provenance.title} ({result.plan.provenance.input_name})")
    for j in keep:
        header, justify, _ = _SUMMARY[j]
        wrap = j == 0  # only the names wrap; numbers and codes are never cut
        table.add_column(header, justify=justify, no_wrap=not wrap,  # type: ignore[arg-type]
                         overflow="fold" if wrap else "ellipsis", min_width=widths[j] if not wrap
                         else min(widths[j], 12))
    for row in rows:
        table.add_row(*(row[j] for j in keep))
    table.add_section()
    table.add_row(*(total[j] for j in keep))
    console.print(table)
    console.print(status_line(results))
    plan = support(results)
    spend, extra = plan.spend, plan.monthly_cost
    if extra > 0:
        gpu = float(results.loc[counted, "monthly_cost"].sum())
        console.print(f"With the AWS support plan ({format_value(extra, 'USD/month')} a month on "
                      f"the {format_value(spend, 'USD/month')} billed by AWS), the plan costs "
                      f"{format_value(gpu + extra, 'USD/month')} a month.")
    left_out = [_SUMMARY[j][0] for j in range(len(_SUMMARY)) if j not in keep]
    if len(results) > SUMMARY_ROWS:
        console.print(f"… and {len(results) - SUMMARY_ROWS:,} more scenarios: see the outputs.")
    if left_out:
        console.print(f"({', '.join(left_out)} left out to fit {console.width} columns: see the "
                      "outputs.)")
    for path in result.outputs:
        console.print(f"wrote {path}")


def status_line(results: pd.DataFrame) -> str:
    """How many rows the totals count, and why the others are left out."""
    counts = results["status"].value_counts()
    words = {"chosen": "budgeted", "option": "not chosen (a cheaper row of the same workload "
             "is budgeted)", "compare": "for comparison only", "no fit": "not fitting",
             "no price": "without a price (the price book has none for the GPU)"}
    parts = [f"{int(counts[k])} {w}" for k, w in words.items() if counts.get(k, 0)]
    return f"{len(results)} rows: " + "; ".join(parts) + ". Only budgeted rows are in the total."


def columns_table(markdown: bool, columns: Sequence[schema.Column] = schema.COLUMNS,
                  title: str = "Scenario columns (CSV or XLSX; names are case-insensitive)"
                  ) -> None:
    """Every input column: type, unit, default, allowed values, meaning."""
    rows = [
        (c.name, ("required " if c.required else "") + c.type, c.unit or "—",
         c.default or ("—" if c.required else "blank"), c.allowed(), c.help)
        for c in columns
    ]
    headers = ("column", "type", "unit", "default", "allowed", "meaning")
    if markdown:
        sys.stdout.write("| " + " | ".join(headers) + " |\n")
        sys.stdout.write("|" + "---|" * len(headers) + "\n")
        for row in rows:
            sys.stdout.write("| " + " | ".join(f"`{row[0]}`" if i == 0 else v.replace("|", "\\|")
                                               for i, v in enumerate(row)) + " |\n")
        return
    table = Table(title=title)
    for header in headers:
        table.add_column(header)
    for row in rows:
        table.add_row(*row)
    _console().print(table)


def catalog_table(kind: str) -> None:
    """The shipped GPUs or models with their key figures and sources."""
    from reportgen.catalog import load_catalogs

    catalogs = load_catalogs()
    table = Table(title=f"reportgen {kind}")
    if kind == "gpus":
        frame = catalogs.gpus
        fields = [("memory_gib", "GiB"), ("bandwidth_tbps", "TB/s"), ("bf16_tflops", "TFLOP/s"),
                  ("fp8_tflops", "TFLOP/s"), ("fp4_tflops", "TFLOP/s"),
                  ("internode_gbps", "GB/s"), ("price_per_gpu_hour", "USD/GPU-h")]
    else:
        frame = catalogs.models
        fields = [("params_b", "B params"), ("active_params_b", "B params"), ("layers", "layers"),
                  ("attention_heads", "heads"), ("kv_heads", "heads"), ("head_dim", "elements"),
                  ("weight_dtype", "text"), ("expert_weight_dtype", "text")]
    table.add_column("name", no_wrap=True)
    for field, _ in fields:
        table.add_column(field, justify="right")
    table.add_column("source")
    def cell(row: pd.Series, field: str, unit: str) -> str:
        if field == "price_per_gpu_hour" and row.get("price_status") == "no_price":
            return "no price"
        return format_value(row[field], unit)

    for key, row in frame.iterrows():
        table.add_row(str(key), *(cell(row, f, u) for f, u in fields), str(row["source"])[:60])
    _console().print(table)


def calibration_table(result: CalibrateResult) -> None:
    """Per calibrated stack: every run measured against predicted, the fitted efficiencies
    against the shipped ones, then the files written."""
    from reportgen.calibration.loadtest_fit import PARAMETERS

    console = _console()

    def shown(name: str, value: float) -> str:
        return f"{value:.2f} ms" if name == "step_overhead_ms" else f"{value:.3f}"

    for fit in result.fits:
        runs = Table(title=f"{fit.key}: {fit.n_runs} runs, median error {fit.mdape_pct:.1f} % "
                     f"(with the shipped {fit.replaces}: {fit.shipped_mdape_pct:.1f} %)")
        for header in ("run", "load", "in flight", "tok/s/GPU measured", "predicted",
                       "TTFT ms measured", "predicted", "TPOT ms measured", "predicted"):
            runs.add_column(header, justify="left" if header in ("run", "load") else "right")
        for _, r in fit.runs.iterrows():
            queued = " (queued)" if r["queued"] else ""
            runs.add_row(
                f"{Path(str(r['file'])).name} {r['run']}", str(r["load"]) + queued,
                f"{r['requests_in_flight']:,.1f}",
                *(format_value(r[c], u) for c, u in (
                    ("measured_tokens_per_s_per_gpu", "tokens/s/GPU"),
                    ("predicted_tokens_per_s_per_gpu", "tokens/s/GPU"),
                    ("measured_ttft_ms", "ms"), ("predicted_ttft_ms", "ms"),
                    ("measured_tpot_ms", "ms"), ("predicted_tpot_ms", "ms"))),
            )
        console.print(runs)
        values = Table(title=f"{fit.key} efficiencies (band {fit.band[0]:.2f}–{fit.band[1]:.2f}×:"
                       f" {fit.band_source})")
        for header in ("efficiency", "yours", f"shipped ({fit.replaces})", "from"):
            values.add_column(header, justify="left" if header in ("efficiency", "from")
                              else "right")
        for name in PARAMETERS:
            values.add_row(name, shown(name, fit.fitted[name]), shown(name, fit.shipped[name]),
                           "your runs" if fit.determined[name] else "shipped (not exercised)")
        console.print(values)
    for path in result.outputs:
        console.print(f"wrote {path}")
