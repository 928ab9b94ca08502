"""What `reportgen review` prints: the waterfall, one line per workload, and the files."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from reportgen.review import explain
from reportgen.review.pipeline import ReviewResult
from reportgen.review.variance import LABELS


def summary(result: ReviewResult) -> None:
    """The review's headline, waterfall and workloads, then the files written."""
    review = result.review
    console = Console(soft_wrap=False)
    if not console.is_terminal:
        console.width = 200
    waterfall = Table(title=f"{review.title} ({review.actuals.window[0]} to "
                            f"{review.actuals.window[1]}, end exclusive)")
    waterfall.add_column("step")
    waterfall.add_column("USD", justify="right")
    v = review.variance
    waterfall.add_row("plan cost", explain.usd(v.plan))
    for name, amount in v.components.items():
        waterfall.add_row(LABELS[name].lower(), explain.signed_usd(amount).replace("\u2060", ""))
    waterfall.add_row("actual cost", explain.usd(v.actual))
    console.print(waterfall)
    table = Table()
    for header in ("workload", "plan cost", "actual cost", "variance", "latency"):
        table.add_column(header, justify="left" if header in ("workload", "latency") else "right")
    for name, w in review.workloads.items():
        table.add_row(name, explain.usd(w.variance.plan), explain.usd(w.variance.actual),
                      explain.signed_usd(w.variance.total).replace("\u2060", ""),
                      ", ".join(f"{r.metric} {r.status}" for r in w.latency))
    console.print(table)
    console.print(explain.headline(review).replace("\u2060", ""))
    for path in result.outputs:
        console.print(f"wrote {path}")
