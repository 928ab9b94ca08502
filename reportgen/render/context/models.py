"""The report's view models: frozen dataclasses the templates read, one per block of a page.

Numbers stay numbers (:class:`Num`: a value and its unit) until a template formats them with the
``num``/``qty`` filters, which call :func:`reportgen.formats.format_value`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reportgen.render.context.ask import Ask
    from reportgen.render.context.latency import LatencySection
    from reportgen.render.context.outlook import Outlook
    from reportgen.render.context.sensitivity import Tornado

# --- small value types ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Num:
    """A value and the unit that decides how it is shown (see formats.FORMATS)."""

    value: float | str | None
    unit: str


@dataclass(frozen=True)
class Item:
    """A labelled value in a two-column list."""

    label: str
    value: Num


@dataclass(frozen=True)
class LegendEntry:
    """One key of a chart's legend, drawn in HTML: a swatch (box, line, dash, dot, marker or
    shade) in a colour, and its label."""

    label: str
    colour: str
    style: str


@dataclass(frozen=True)
class Headline:
    """A big number with an optional range under it."""

    label: str
    value: Num
    low: Num | None = None
    high: Num | None = None
    note: str = ""  # what the number adds up, under it

# --- executive summary ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SummaryRow:
    """One scenario in the executive summary's table."""

    number: str
    anchor: str
    name: str
    model: str
    gpu: str
    gpus: Num
    monthly_cost: Num
    cost_per_million: Num  # per 1M output tokens
    cost_per_million_total: Num  # per 1M tokens, prompt and output together
    bottleneck: str
    bottleneck_label: str
    counted: bool
    status: str


@dataclass(frozen=True)
class Summary:
    """The one-page executive summary."""

    headlines: tuple[Headline, ...]
    rows: tuple[SummaryRow, ...]
    total_gpus: Num
    total_monthly_cost: Num
    gpu_monthly_cost: Num | None = None  # the budgeted rows' GPUs as billed, support excluded
    support_monthly_cost: Num | None = None  # the support plan on the budgeted rows' spend


# --- per scenario --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChainStep:
    """One line of the Little's Law chain: an operator, a value and what it is."""

    op: str
    value: Num
    label: str
    bare: bool = False  # show the number without its unit suffix (the operator says it)


@dataclass(frozen=True)
class Limit:
    """One candidate for the operating batch."""

    label: str
    value: Num
    binding: bool


@dataclass(frozen=True)
class ScenarioSection:
    """Everything one scenario's section shows."""

    anchor: str
    number: int
    name: str
    subtitle: str
    counted: bool
    status: str
    headlines: tuple[Headline, ...]
    inputs: tuple[Item, ...]
    memory_chart: str
    memory_legend: tuple[LegendEntry, ...]
    memory_caption: str
    batch_chart: str | None
    batch_legend: tuple[LegendEntry, ...]
    batch_caption: str
    timing: tuple[Item, ...]
    chain: tuple[ChainStep, ...]
    chain_caption: str
    bottleneck: str
    bottleneck_label: str
    bottleneck_sentence: str
    regime_sentence: str
    limits: tuple[Limit, ...]
    relief: tuple[str, ...]
    notes: str


# --- tutorial comparison -------------------------------------------------------------------------


@dataclass(frozen=True)
class CompareRow:
    """One line of the tutorial-versus-reportgen table."""

    label: str
    tutorial: Num
    reportgen: Num


@dataclass(frozen=True)
class TutorialComparison:
    """A tutorial-method row beside the matching roofline row (if the input has one)."""

    anchor: str
    name: str
    match_name: str
    intro: str
    rows: tuple[CompareRow, ...]
    reasons: tuple[str, ...]
    gain_chart: str | None
    gain_legend: tuple[LegendEntry, ...]
    gain_caption: str


# --- procurement, assumptions, method ------------------------------------------------------------


@dataclass(frozen=True)
class BomRow:
    """One GPU type of the bill of materials."""

    gpu: str
    price: Num
    gpus: Num
    gpus_low: Num
    gpus_high: Num
    nodes: Num
    power_kw: Num
    monthly_cost: Num
    annual_cost: Num
    scenarios: str
    basis: str = ""  # price basis (on_demand ...), region and instance type / SKU, in words
    unit: str = ""  # what is billed: "GPU-hours" or "<sku> instance-hours"
    billed_units: Num = Num("", "text")
    billed_gpus: Num = Num("", "text")
    wall_kw: Num = Num("", "text")  # at the wall: servers' maximum draw (or GPU boards) × PUE
    wall_basis: str = ""  # what wall_kw counts
    needed: str = ""  # the quarter the hardware is needed


@dataclass(frozen=True)
class PriceRow:
    """Where a GPU price comes from."""

    gpu: str
    price: Num
    source: str
    date: str
    basis: str = ""
    unit: str = ""
    region: str = ""
    sku: str = ""
    status: str = ""


@dataclass(frozen=True)
class Procurement:
    """The procurement hand-off page."""

    rows: tuple[BomRow, ...]
    total: BomRow
    prices: tuple[PriceRow, ...]
    nodes_note: str
    support_label: str = ""  # the support plan's line of the bill ("" when none)
    support_monthly_cost: Num | None = None
    support_annual_cost: Num | None = None
    grand_monthly_cost: Num | None = None  # the bill's total with support
    grand_annual_cost: Num | None = None


@dataclass(frozen=True)
class Table:
    """A generic table: header cells and rows of values."""

    slug: str  # names the table's column widths in report.css
    title: str
    note: str
    header: tuple[str, ...]
    rows: tuple[tuple[Num, ...], ...]
    suffix: bool = True  # numbers carry their unit suffix (False when a Unit column says it)

    @property
    def numeric(self) -> tuple[bool, ...]:
        """Per column: every cell a number (right-aligned, kept on one line)."""
        if not self.rows:
            return tuple(False for _ in self.header)
        return tuple(
            all(row[i].unit != "text" for row in self.rows) for i in range(len(self.header))
        )


@dataclass(frozen=True)
class Formula:
    """One quantity of the registry as the method appendix prints it."""

    name: str
    unit: str
    doc: str
    excel: str


@dataclass(frozen=True)
class FormulaGroup:
    """The quantities of one registry module."""

    title: str
    formulas: tuple[Formula, ...]


@dataclass(frozen=True)
class Pitfall:
    """One of the tutorial's misconceptions and how this plan avoids it."""

    title: str
    text: str
    evidence: str


# --- decisions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Alternative:
    """One of a workload's best configurations."""

    rank: int
    scenario: str
    configuration: str
    gpus: Num
    monthly_cost: Num
    bottleneck: str
    tpot: Num
    chosen: bool


@dataclass(frozen=True)
class WorkloadDecision:
    """What a workload that had a choice to make budgets, and against what."""

    name: str
    chosen: str  # scenario name; "" when nothing fits
    configuration: str
    gpus: Num
    monthly_cost: Num
    sentence: str
    typed: str
    typed_cost: Num
    saving: Num
    evaluated: int
    alternatives: tuple[Alternative, ...]
    chart: str | None
    legend: tuple[LegendEntry, ...]
    # set when the GPUs compared are priced by different providers: part of any difference in
    # cost is the provider's price, not the hardware
    mixed_prices: str = ""


@dataclass(frozen=True)
class NotBudgeted:
    """A row the plan does not budget, and why."""

    scenario: str
    status: str
    reason: str


@dataclass(frozen=True)
class Decisions:
    """The Decisions page."""

    intro: str
    saving: Num
    saving_sentence: str
    workloads: tuple[WorkloadDecision, ...]
    excluded: tuple[NotBudgeted, ...]


@dataclass(frozen=True)
class CalibratedStack:
    """One of your efficiency rows on the calibration page."""

    key: str
    replaces: str
    headline: str
    values: Table  # your efficiencies against the shipped row
    runs: Table | None  # every run measured against predicted (None: runs not found)
    chart: str | None
    notes: tuple[str, ...]


@dataclass(frozen=True)
class CalibrationPage:
    """The calibration page: only when a scenario uses a row of your efficiency file."""

    intro: str
    stacks: tuple[CalibratedStack, ...]
    legend: tuple[LegendEntry, ...]


@dataclass(frozen=True)
class Report:
    """The whole report."""

    title: str
    date: str
    version: str
    input_name: str
    input_sha256: str
    summary: Summary
    decisions: Decisions
    scenarios: tuple[ScenarioSection, ...]
    tutorials: tuple[TutorialComparison, ...]
    procurement: Procurement
    assumptions: tuple[Table, ...]
    formulas: tuple[FormulaGroup, ...]
    pitfalls: tuple[Pitfall, ...]
    calibration: CalibrationPage | None = None
    inputs_digest: str = ""  # digest.py: recomputable from the workbook or results CSV
    latency: LatencySection | None = None  # simulated latency under load (context/latency.py)
    outlook: Outlook | None = None  # demand over time (render/context/outlook.py)
    tornado: Tornado | None = None  # the summary's sensitivity (render/context/sensitivity.py)
    ask: Ask | None = None  # the executive page's decision (render/context/ask.py)
    lang: str = "en"  # the language the report is written in (an HTML language tag)
