"""What the command line shows a person: progress, the summary table, columns and catalogs."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence

from rich.console import Console
from rich.table import Table

from reportgen import schema
from reportgen.formats import format_value
from reportgen.pipeline import BuildResult


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


def summary_table(result: BuildResult) -> None:
    """The plan's totals and a line per scenario (the first SUMMARY_ROWS), then the files."""
    results = result.plan.results
    console = _console()
    table = Table(title=f"{result.plan.provenance.title} ({result.plan.provenance.input_name})")
    for header, justify in (("scenario", "left"), ("model", "left"), ("GPU", "left"),
                            ("tp", "right"), ("GPUs", "right"), ("monthly cost", "right"),
                            ("$/1M out tok", "right"), ("bottleneck", "left")):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for _, row in results.head(SUMMARY_ROWS).iterrows():
        table.add_row(
            str(row["scenario"]), str(row["model"]), str(row["gpu"]),
            format_value(row["tp"], "GPUs"), format_value(row["gpus"], "GPUs"),
            format_value(row["monthly_cost"], "USD/month"),
            format_value(row["cost_per_million_output_tokens"], "USD/1M tokens"),
            str(row["bottleneck"]),
        )
    if len(results) > SUMMARY_ROWS:
        table.add_row(f"… {len(results) - SUMMARY_ROWS:,} more scenarios (see the outputs)",
                      "", "", "", "", "", "", "")
    counted = results["counted"] == 1
    table.add_section()
    table.add_row(
        "total (plan)", "", "", "", format_value(results.loc[counted, "gpus"].sum(), "GPUs"),
        format_value(results.loc[counted, "monthly_cost"].sum(), "USD/month"), "", "",
    )
    console.print(table)
    for path in result.outputs:
        console.print(f"wrote {path}")


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
                  ("price_per_gpu_hour", "USD/GPU-h")]
    else:
        frame = catalogs.models
        fields = [("params_b", "B params"), ("active_params_b", "B params"), ("layers", "layers"),
                  ("attention_heads", "heads"), ("kv_heads", "heads"), ("head_dim", "elements")]
    table.add_column("name", no_wrap=True)
    for field, _ in fields:
        table.add_column(field, justify="right")
    table.add_column("source")
    for key, row in frame.iterrows():
        table.add_row(str(key), *(format_value(row[f], u) for f, u in fields),
                      str(row["source"])[:60])
    _console().print(table)
