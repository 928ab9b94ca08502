"""The PDF report's view models: everything the templates show, built once from a Plan.

Templates do no arithmetic and apply no business rule, and neither do these modules: every
derived number is a quantity of the registry (:mod:`reportgen.quantities`), read from the plan's
results or from an engine sweep over the batch. What is made here is presentation: which
sentence to say, in what order, with which numbers, into frozen dataclasses (:mod:`.models`).
Numbers stay numbers (:class:`Num`: a value and its unit) until a template formats them with the
``num``/``qty`` filters, which call :func:`reportgen.formats.format_value` — the same table the
workbook uses. Sentences that embed numbers format them here with the same function.

One module per part of the report: :mod:`.summary`, :mod:`.decisions`, :mod:`.scenario` (with
:mod:`.figures` and
:mod:`.bottleneck`), :mod:`.tutorial`, :mod:`.procurement`, :mod:`.assumptions` and
:mod:`.method`; :mod:`.sweeps` runs the batch sweeps the charts draw.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pandas as pd

from reportgen import i18n, schema
from reportgen.finance.support import support
from reportgen.levers import in_words as levers_in_words
from reportgen.levers import with_levers
from reportgen.plan import Plan
from reportgen.render.context import scenario, tutorial
from reportgen.render.context.ask import ask
from reportgen.render.context.assumptions import assumptions
from reportgen.render.context.calibration import calibration
from reportgen.render.context.common import BOTTLENECK_LABELS, is_tutorial
from reportgen.render.context.decisions import decisions
from reportgen.render.context.latency import latency_section
from reportgen.render.context.method import formulas, pitfalls
from reportgen.render.context.models import (
    BomRow,
    ChainStep,
    CompareRow,
    Formula,
    FormulaGroup,
    Headline,
    Item,
    LegendEntry,
    Limit,
    Num,
    Pitfall,
    PriceRow,
    Procurement,
    Report,
    ScenarioSection,
    Summary,
    SummaryRow,
    Table,
    TutorialComparison,
)
from reportgen.render.context.outlook import outlook
from reportgen.render.context.procurement import procurement
from reportgen.render.context.sensitivity import sensitivity
from reportgen.render.context.summary import SUMMARY_ROWS, summary
from reportgen.render.context.sweeps import sweeps

__all__ = [
    "BOTTLENECK_LABELS",
    "SUMMARY_ROWS",
    "BomRow",
    "ChainStep",
    "CompareRow",
    "Formula",
    "FormulaGroup",
    "Headline",
    "Item",
    "LegendEntry",
    "Limit",
    "Num",
    "Pitfall",
    "PriceRow",
    "Procurement",
    "Report",
    "ScenarioSection",
    "Summary",
    "SummaryRow",
    "Table",
    "TutorialComparison",
    "build",
]


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): v for k, v in rec.items()} for rec in frame.to_dict(orient="records")]


def _rows(plan: Plan) -> list[dict[str, Any]]:
    """Results joined with the raw inputs (as raw_<column>) for the sentences that need them;
    each row's notes in the reader's language."""
    results = _records(plan.results)
    raw = _records(plan.scenarios)
    for res, inp, notes in zip(results, raw, scenario.notes_worded(plan), strict=True):
        for column in schema.BY_NAME:
            res[f"raw_{column}"] = inp.get(column)
        res["notes"] = notes
    return results


def _section(plan: Plan, i: int, row: Any, swept: Any, n: int,
             step: Callable[[str], None]) -> ScenarioSection:
    step(f"scenario {i + 1:,} of {n:,}: its section and charts")
    return scenario.section(plan, i, row, swept)


def build(plan: Plan, progress: Callable[[str], None] | None = None) -> Report:
    """The report's view model for a plan; ``progress`` is told which scenario's section (and
    charts) is being made."""
    plan = with_levers(plan)
    plan = replace(plan, levers=levers_in_words(plan, i18n._))  # the reader's language
    step = progress or (lambda _: None)
    rows = _rows(plan)
    swept = sweeps(plan, rows)
    matches = tutorial.matches(rows)
    tutorials = tuple(
        tutorial.comparison(
            i, r,
            rows[matches[i]] if i in matches else None,
            swept.get(matches[i]) if i in matches else None,
        )
        for i, r in enumerate(rows)
        if is_tutorial(r)
    )
    p = plan.provenance
    made_decisions = decisions(plan, rows)
    demand = outlook(plan)
    tornado = sensitivity(plan)
    return Report(
        title=p.shown_title(),
        date=i18n.long_date(p.generated),
        version=p.version,
        input_name=p.input_name,
        input_sha256=p.input_sha256,
        summary=summary(plan, rows),
        decisions=made_decisions,
        scenarios=tuple(_section(plan, i, r, swept.get(i), len(rows), step)
                        for i, r in enumerate(rows)),
        tutorials=tutorials,
        procurement=procurement(plan, rows),
        assumptions=assumptions(plan, rows),
        formulas=formulas(),
        pitfalls=pitfalls(rows),
        calibration=calibration(plan),
        inputs_digest=p.inputs_digest,
        latency=latency_section(plan),
        outlook=demand,
        tornado=tornado,
        ask=ask(plan, rows, support(plan.results), tornado, made_decisions, demand),
        lang=i18n.current(),
    )
