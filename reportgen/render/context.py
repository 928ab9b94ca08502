"""The PDF report's view models: everything the templates show, built once from a Plan.

Templates do no arithmetic and apply no business rule: every total, every choice of sentence and
every chart is made here, into frozen dataclasses. Numbers stay numbers (:class:`Num`: a value and
its unit) until a template formats them with the ``num``/``qty`` filters, which call
:func:`reportgen.formats.format_value` — the same table the workbook uses. Sentences that embed
numbers format them here with the same function.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reportgen import engine, schema
from reportgen.formats import format_value
from reportgen.plan import Plan
from reportgen.quantities import REGISTRY
from reportgen.render import charts
from reportgen.units import CONSTANTS

Row = Mapping[str, Any]

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
    cost_per_million: Num
    bottleneck: str
    bottleneck_label: str
    counted: bool
    status: str


@dataclass(frozen=True)
class Summary:
    """The one-page executive summary."""

    headlines: tuple[Headline, ...]
    band_sentence: str
    calibration_sentence: str
    rows: tuple[SummaryRow, ...]
    total_gpus: Num
    total_monthly_cost: Num
    findings: tuple[str, ...]


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


@dataclass(frozen=True)
class PriceRow:
    """Where a GPU price comes from."""

    gpu: str
    price: Num
    source: str
    date: str


@dataclass(frozen=True)
class Procurement:
    """The procurement hand-off page."""

    rows: tuple[BomRow, ...]
    total: BomRow
    prices: tuple[PriceRow, ...]
    nodes_note: str


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


@dataclass(frozen=True)
class Report:
    """The whole report."""

    title: str
    date: str
    version: str
    input_name: str
    input_sha256: str
    summary: Summary
    scenarios: tuple[ScenarioSection, ...]
    tutorials: tuple[TutorialComparison, ...]
    procurement: Procurement
    assumptions: tuple[Table, ...]
    formulas: tuple[FormulaGroup, ...]
    pitfalls: tuple[Pitfall, ...]


# --- helpers -------------------------------------------------------------------------------------

BOTTLENECK_LABELS: dict[str, str] = {
    "kv_memory": "KV-cache memory",
    "tpot_slo": "TPOT target",
    "ttft_slo": "TTFT target",
    "batch_cap": "Scheduler batch cap",
    "weights_do_not_fit": "Weights do not fit",
    "slo_unreachable": "Latency target unreachable",
    "compute": "Compute ceiling (tutorial)",
}
_INFEASIBLE = ("weights_do_not_fit", "slo_unreachable")
SUMMARY_ROWS = 10  # rows of the executive summary's table that still fit its one page
_SECTION_TITLES: dict[str, str] = {
    "inputs": "Inputs as the plan uses them",
    "memory": "Memory",
    "timing": "Time on the roofline",
    "batch": "The operating batch",
    "latency": "Latency and throughput of one instance",
    "fleet": "Fleet size and cost",
    "band": "Error band",
    "notes": "Notes",
}
_CONSTANT = {name: c.value for name, c in CONSTANTS.items()}
_UNLIMITED = float(CONSTANTS["UNLIMITED_BATCH"].value)


def _scalar(value: Any) -> float | str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    return str(value)


def _num(row: Row, name: str) -> Num:
    """A result quantity as a Num with the registry's unit."""
    return Num(_scalar(row[name]), REGISTRY[name].unit)


def _f(row: Row, name: str, *, with_unit: bool = True) -> str:
    """A result quantity formatted as the report shows it."""
    return format_value(_scalar(row[name]), REGISTRY[name].unit, with_unit=with_unit)


def _fv(value: float | str | None, unit: str, *, with_unit: bool = True) -> str:
    return format_value(value, unit, with_unit=with_unit)


def _constant(name: str) -> str:
    """A constant of units.CONSTANTS, formatted with its own unit."""
    c = CONSTANTS[name]
    return format_value(_scalar(c.value), c.unit, with_unit=True)


def _hours() -> str:
    return _constant("HOURS_PER_MONTH")


def _cell(frame: pd.DataFrame, index: str, column: str) -> Any:
    """One cell of a catalog or efficiency table."""
    return frame.loc[index, column]


def _float(row: Row, name: str) -> float:
    return float(row[name])


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value == ""


def _counted(row: Row) -> bool:
    return _float(row, "in_plan_total") == 1


def _tutorial(row: Row) -> bool:
    return str(row["method"]) == "tutorial"


def _quote(name: str) -> str:
    return f"“{name}”"


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): v for k, v in rec.items()} for rec in frame.to_dict(orient="records")]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _status(row: Row) -> str:
    if _tutorial(row):
        return "Tutorial method: for comparison, not in the totals"
    if not _counted(row):
        return "Does not fit: not in the totals"
    return "In the plan"


def _gpu_field(plan: Plan, gpu: str, field: str) -> Any:
    return plan.tables.gpus.loc[gpu, field]


# --- executive summary ---------------------------------------------------------------------------


def _sum(rows: Sequence[Row], name: str) -> float:
    return float(sum(float(r[name]) for r in rows))


def _next_limit(row: Row) -> tuple[str, float]:
    """The tightest batch limit other than memory: (what it is, value)."""
    candidates: list[tuple[str, float]] = []
    if _float(row, "batch_limit_tpot") < _UNLIMITED:
        candidates.append(("the TPOT target", _float(row, "batch_limit_tpot")))
    if _float(row, "batch_limit_ttft") < _UNLIMITED:
        candidates.append(("the TTFT target", _float(row, "batch_limit_ttft")))
    candidates.append(("the scheduler cap (max_batch)", _float(row, "max_batch")))
    return min(candidates, key=lambda c: c[1])


def _replica(row: Row) -> str:
    return f"{_f(row, 'tp', with_unit=False)}×{row['gpu']}"


def _size_sentence(row: Row) -> str:
    """What sets the size of a scenario's fleet, in one sentence with its numbers."""
    name = _quote(str(row["scenario"]))
    b_mem = _f(row, "batch_max_kv")
    batch = _f(row, "batch")
    code = str(row["bottleneck"])
    if code == "kv_memory":
        label, value = _next_limit(row)
        return (
            f"Memory, not compute, sets the size of {name}: each {_replica(row)} replica holds "
            f"{b_mem} sequences in its KV cache, while {label} would allow "
            f"{_fv(value, 'sequences')}."
        )
    if code in ("tpot_slo", "ttft_slo"):
        target = "TPOT" if code == "tpot_slo" else "TTFT"
        slo = _fv(_scalar(row[f"raw_{target.lower()}_slo_ms"]), "ms")
        return (
            f"The {target} target ({slo}), not memory, sets the size of {name}: each "
            f"{_replica(row)} replica runs {batch} sequences to meet it, while its KV cache "
            f"would hold {b_mem}."
        )
    if code == "batch_cap":
        return (
            f"The scheduler cap, not memory, sets the size of {name}: each {_replica(row)} "
            f"replica runs max_batch = {_f(row, 'max_batch')} sequences while its KV cache would "
            f"hold {b_mem}; a higher max_batch would need fewer replicas if latency allows."
        )
    return f"{name}: {BOTTLENECK_LABELS.get(code, code)}."


def _listing(items: Sequence[str], limit: int = 3) -> str:
    """Up to ``limit`` items joined, then how many more."""
    shown = "; ".join(items[:limit])
    more = len(items) - limit
    return f"{shown}; and {more} more" if more > 0 else shown


def _no_fit_reason(row: Row) -> str:
    if str(row["bottleneck"]) == "weights_do_not_fit":
        return (
            f"{_f(row, 'weights_gib')} of weights leave no room for one sequence on "
            f"{_f(row, 'tp', with_unit=False)}×{row['gpu']} ({_f(row, 'gpu_memory_gib')} each)"
        )
    return (
        f"even one sequence misses the latency target (TPOT {_f(row, 'tpot_ms')}, "
        f"TTFT {_f(row, 'ttft_ms')} at batch 1)"
    )


def _findings(rows: Sequence[Row], matches: Mapping[int, int]) -> tuple[str, ...]:
    counted = [r for r in rows if _counted(r)]
    out: list[str] = []
    total = _sum(counted, "monthly_cost")
    if counted:
        top = max(counted, key=lambda r: float(r["monthly_cost"]))
        if len(counted) > 1 and total > 0:
            share = _fv(float(top["monthly_cost"]) / total, "fraction")
            out.append(
                f"The biggest cost is {_quote(str(top['scenario']))}: {_f(top, 'gpus')} "
                f"{top['gpu']} GPUs, {_f(top, 'monthly_cost')} a month, {share} of the plan."
            )
        out.append(_size_sentence(top))
    no_fit = [r for r in rows if not _tutorial(r) and str(r["bottleneck"]) in _INFEASIBLE]
    if no_fit:
        parts = _listing([f"{_quote(str(r['scenario']))}: {_no_fit_reason(r)}" for r in no_fit])
        verb = "does" if len(no_fit) == 1 else "do"
        out.append(
            f"{_plural(len(no_fit), 'scenario')} {verb} not fit and "
            f"{'is' if len(no_fit) == 1 else 'are'} left out of the totals — {parts}."
        )
    no_target = [
        r for r in counted if _blank(r["raw_tpot_slo_ms"]) and _blank(r["raw_ttft_slo_ms"])
    ]
    if no_target:
        names = _listing(
            [f"{_quote(str(r['scenario']))} ({_f(r, 'tpot_ms')} per token)" for r in no_target]
        )
        out.append(
            f"{_plural(len(no_target), 'scenario')} set no latency target, so "
            f"{'it runs' if len(no_target) == 1 else 'they run'} as full as memory or the "
            f"batch cap allows and users get whatever latency that gives: {names}. Add "
            "tpot_slo_ms to plan for a latency."
        )
    for t_index, r_index in matches.items():
        t, r = rows[t_index], rows[r_index]
        out.append(
            f"The tutorial's own arithmetic for {_quote(str(t['scenario']))} gives "
            f"{_f(t, 'gpus')} GPUs at tensor parallelism 1, where its weights cannot even be "
            f"loaded; the roofline plan {_quote(str(r['scenario']))} needs {_f(r, 'gpus')} "
            "(see the tutorial comparison)."
        )
    return tuple(out[:4])


def _summary(plan: Plan, rows: Sequence[Row], matches: Mapping[int, int]) -> Summary:
    counted = [r for r in rows if _counted(r)]
    headlines = (
        Headline("GPUs", Num(_sum(counted, "gpus"), "GPUs"),
                 Num(_sum(counted, "gpus_low"), "GPUs"), Num(_sum(counted, "gpus_high"), "GPUs")),
        Headline("Nodes (servers)", Num(_sum(counted, "nodes"), "nodes")),
        Headline("Monthly cost", Num(_sum(counted, "monthly_cost"), "USD/month"),
                 Num(_sum(counted, "monthly_cost_low"), "USD/month"),
                 Num(_sum(counted, "monthly_cost_high"), "USD/month")),
        Headline("Annual cost", Num(_sum(counted, "annual_cost"), "USD/year")),
    )
    keys: list[str] = []
    for r in counted:
        if str(r["efficiency_key"]) not in keys:
            keys.append(str(r["efficiency_key"]))
    eff = plan.tables.efficiency
    spreads = "; ".join(
        f"{_fv(float(_cell(eff, k, 'throughput_ratio_p10')), '×', with_unit=False)}–"
        f"{_fv(float(_cell(eff, k, 'throughput_ratio_p90')), '×', with_unit=False)} for {k}"
        for k in keys
    )
    if counted:
        band = (
            "The range comes from the calibration: on the public load tests the efficiencies "
            "were fitted to, measured ÷ predicted throughput lay between its 10th and 90th "
            f"percentiles ({spreads}); a fleet sized for those throughputs needs the low and "
            "high GPU counts above."
        )
    else:
        band = "No scenario fits as specified, so the plan has nothing to buy."
    uncal = [r for r in counted if str(eff.loc[str(r["efficiency_key"]), "calibrated"]) != "yes"]
    if not uncal:
        calibration = "Every planned scenario uses calibrated efficiencies."
    elif len(uncal) == len(counted):
        calibration = (
            f"All {_plural(len(counted), 'planned scenario')} use uncalibrated efficiencies "
            "(engineering priors), so the band is a prior, not a measurement: load-test "
            "before committing."
        )
    else:
        names = ", ".join(_quote(str(r["scenario"])) for r in uncal)
        calibration = (
            f"Uncalibrated efficiencies (engineering priors) for {names}: their band is a "
            "prior, not a measurement; load-test them before committing."
        )
    table = [
        SummaryRow(
            number=str(i + 1),
            anchor=f"scenario-{i + 1}",
            name=str(r["scenario"]),
            model=str(r["model"]),
            gpu=str(r["gpu"]),
            gpus=_num(r, "gpus"),
            monthly_cost=_num(r, "monthly_cost"),
            cost_per_million=_num(r, "cost_per_million_output_tokens"),
            bottleneck=str(r["bottleneck"]),
            bottleneck_label=BOTTLENECK_LABELS.get(str(r["bottleneck"]), str(r["bottleneck"])),
            counted=_counted(r),
            status=_status(r),
        )
        for i, r in enumerate(rows)
    ]
    if len(table) > SUMMARY_ROWS:
        # Keep the summary to one page: the costliest rows in input order, the rest in one line.
        order = sorted(
            range(len(rows)),
            key=lambda i: (not _counted(rows[i]), -float(rows[i]["monthly_cost"])),
        )
        keep = set(order[: SUMMARY_ROWS - 1])
        rest = [r for i, r in enumerate(rows) if i not in keep]
        rest_counted = [r for r in rest if _counted(r)]
        table = [row for i, row in enumerate(table) if i in keep]
        table.append(SummaryRow(
            number="",
            anchor="",
            name=f"{len(rest)} more scenarios",
            model="",
            gpu="",
            gpus=Num(_sum(rest_counted, "gpus"), "GPUs"),
            monthly_cost=Num(_sum(rest_counted, "monthly_cost"), "USD/month"),
            cost_per_million=Num(None, "text"),
            bottleneck="",
            bottleneck_label="see their sections",
            counted=True,
            status=f"{len(rest_counted)} of them in the plan's totals",
        ))
    return Summary(
        headlines=headlines,
        band_sentence=band,
        calibration_sentence=calibration,
        rows=tuple(table),
        total_gpus=headlines[0].value,
        total_monthly_cost=headlines[2].value,
        findings=_findings(rows, matches),
    )


# --- batch sweeps --------------------------------------------------------------------------------


def _grid(row: Row) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Batches to draw: 1 to about twice the interesting limit, log-spaced, with B* included."""
    batch = _float(row, "batch")
    reach = min(_float(row, "batch_max_kv"), _float(row, "max_batch"))
    top = min(8192.0, max(16.0, 2 * batch, 1.25 * reach))
    grid = np.unique(np.concatenate([np.round(np.geomspace(1, top, 40)), [batch]]))
    return grid.astype(float)


def _sweeps(plan: Plan, rows: Sequence[Row]) -> dict[int, pd.DataFrame]:
    """Throughput and latency against batch for every scenario that fits, in one engine call."""
    wanted = [i for i, r in enumerate(rows) if _float(r, "batch_max_kv") >= 1]
    if not wanted:
        return {}
    grids = {i: _grid(rows[i]) for i in wanted}
    positions = [i for i in wanted for _ in range(len(grids[i]))]
    frame = plan.scenarios.iloc[positions].reset_index(drop=True)
    batches = np.concatenate([grids[i] for i in wanted])
    with np.errstate(all="ignore"):
        swept = engine.estimate(frame, plan.tables, overrides={"batch": batches})
    out: dict[int, pd.DataFrame] = {}
    start = 0
    for i in wanted:
        n = len(grids[i])
        out[i] = swept.iloc[start : start + n].reset_index(drop=True)
        start += n
    return out


# --- per scenario --------------------------------------------------------------------------------


def _default(raw: Any, text: str) -> str:
    return f" ({text})" if _blank(raw) else ""


def _inputs(plan: Plan, row: Row) -> tuple[Item, ...]:
    eff = plan.tables.efficiency.loc[str(row["efficiency_key"])]
    calibrated = "calibrated" if str(eff["calibrated"]) == "yes" else "uncalibrated prior"
    tp_note = _default(row["raw_tp"], "tutorial: always 1" if _tutorial(row) else "auto")
    ttft = "none" if _blank(row["raw_ttft_slo_ms"]) else _fv(_scalar(row["raw_ttft_slo_ms"]), "ms")
    tpot = "none" if _blank(row["raw_tpot_slo_ms"]) else _fv(_scalar(row["raw_tpot_slo_ms"]), "ms")
    price_from = "scenario" if not _blank(row["raw_gpu_hour_price"]) else "catalog"

    def text(label: str, value: str) -> Item:
        return Item(label, Num(value, "text"))

    return (
        text("Model", f"{row['model']}: {_f(row, 'params_b')} parameters "
             f"({_f(row, 'active_params_b')} active), {_f(row, 'layers')} layers, "
             f"{_f(row, 'kv_heads')} KV heads × {_f(row, 'head_dim')}"),
        text("GPU", f"{row['gpu']}: {_f(row, 'gpu_memory_gib')}, "
             f"{_f(row, 'gpu_bandwidth_tbps')}, {_f(row, 'gpu_tflops')} "
             f"({row['compute_dtype']})"),
        text("Load", f"{_f(row, 'peak_qps')} peak, {_f(row, 'avg_qps')} average"
             f"{_default(row['raw_avg_qps'], 'average = peak')}"),
        text("Prompt / output", f"{_f(row, 'avg_prompt_tokens', with_unit=False)} / "
             f"{_f(row, 'avg_output_tokens')} on average; KV reserved for "
             f"{_f(row, 'reserved_tokens_per_seq')} per sequence"),
        text("Latency targets", f"TTFT {ttft}; TPOT {tpot}"),
        text("Precision", f"weights {row['weight_dtype']}, KV cache {row['kv_dtype']}, "
             f"compute {row['compute_dtype']}"),
        text("Engine, parallelism", f"{row['engine']}, tensor parallelism "
             f"{_f(row, 'tp', with_unit=False)}{tp_note}, max_batch {_f(row, 'max_batch')}"
             f"{_default(row['raw_max_batch'], 'default')}"),
        text("Efficiencies", f"MFU prefill {_f(row, 'mfu_prefill')}, decode "
             f"{_f(row, 'mfu_decode')}, MBU {_f(row, 'mbu')} ({row['efficiency_key']}, "
             f"{calibrated})"),
        text("Business", f"safety factor {_f(row, 'safety_factor')}, "
             f"{_f(row, 'gpu_hour_price')} per GPU-hour ({price_from}), prefix-cache hit rate "
             f"{_f(row, 'prefix_cache_hit_rate')}"),
    )


def _memory(row: Row) -> tuple[str, tuple[LegendEntry, ...], str]:
    """Per-GPU memory at the operating batch: chart, legend and caption."""
    capacity = _float(row, "gpu_memory_gib")
    tp = _float(row, "tp")
    weights = _float(row, "weights_gib_per_gpu")
    fits = _float(row, "batch_max_kv") >= 1
    kv = _float(row, "batch") * _float(row, "kv_gib_per_seq") / tp if fits else 0.0
    reserve = (
        float(_CONSTANT["ACTIVATION_RESERVE_GIB"])
        if not _tutorial(row) and str(row["engine"]) in ("vllm", "tensorrt-llm")
        else 0.0
    )
    free = capacity - weights - kv - reserve
    parts = (("weights", weights), ("kv", kv), ("reserve", reserve), ("free", max(free, 0.0)))
    chart = charts.memory_bar(charts.MemorySpec(capacity, parts))
    colours = charts.COLOURS
    sequences = "sequence" if _float(row, "batch") == 1 else "sequences"
    boxes = (
        (f"Weights {_fv(weights, 'GiB')}", "weights", weights),
        (f"KV cache, {_f(row, 'batch')} {sequences} {_fv(kv, 'GiB')}", "kv", kv),
        (f"Activation reserve {_fv(reserve, 'GiB')}", "reserve", reserve),
        (f"Free {_fv(max(free, 0.0), 'GiB')}", "free", free),
    )
    legend = [LegendEntry(label, colours[kind], "box") for label, kind, gib in boxes if gib > 0]
    legend.append(LegendEntry(f"GPU memory {_fv(capacity, 'GiB')}", colours["ink"], "line"))
    if free < 0:
        legend.append(LegendEntry(f"Over by {_fv(-free, 'GiB')}", colours["limit"], "shade"))
    if fits:
        caption = (
            f"One GPU of a {_replica(row)} replica. The engine ({row['engine']}) gives the "
            f"instance {_f(row, 'kv_budget_gib')} for KV cache; each sequence reserves "
            f"{_f(row, 'kv_gib_per_seq')} ({_f(row, 'kv_bytes_per_token')} × "
            f"{_f(row, 'reserved_tokens_per_seq')}), so memory holds "
            f"{_f(row, 'batch_max_kv')} sequences; the plan runs {_f(row, 'batch')}. "
            "“Free” includes the engine's own margin and KV space the batch does not use."
        )
    else:
        caption = (
            f"One GPU of a {_replica(row)} replica: {_f(row, 'weights_gib')} of weights "
            f"(at {row['weight_dtype']}) need {_f(row, 'weights_gib_per_gpu')} per GPU, and the "
            f"KV budget is {_f(row, 'kv_budget_gib')}: not one sequence fits."
        )
    return chart, tuple(legend), caption


def _batch_chart(
    row: Row, sweep: pd.DataFrame | None
) -> tuple[str | None, tuple[LegendEntry, ...], str]:
    if sweep is None:
        return None, (), "No curve: no batch fits in memory."
    slo = None if _blank(row["raw_tpot_slo_ms"]) else float(row["raw_tpot_slo_ms"])
    tokens = tuple(float(v) for v in sweep["output_tokens_per_s_per_gpu"])
    batches = tuple(float(b) for b in sweep["batch"])
    ceiling = _float(row, "compute_ceiling_tokens_per_s_per_gpu")
    on_scale = ceiling <= 2.5 * max(tokens)
    spec = charts.BatchSpec(
        batches=batches,
        tokens_per_s_gpu=tokens,
        tpot_ms=tuple(float(v) for v in sweep["tpot_ms"]),
        chosen=_float(row, "batch"),
        chosen_tokens=_float(row, "output_tokens_per_s_per_gpu"),
        chosen_tpot=_float(row, "tpot_ms"),
        memory_limit=_float(row, "batch_max_kv"),
        cap=_float(row, "max_batch"),
        ceiling=ceiling if on_scale else None,
        slo=slo,
    )
    c = charts.COLOURS
    top = max(batches)
    legend = [
        LegendEntry("Output tokens/s per GPU (left)", c["line"], "line"),
        LegendEntry("Time per output token (right)", c["latency"], "line"),
        LegendEntry(f"Plan: B* = {_f(row, 'batch')}", c["limit"], "marker"),
    ]
    if slo is not None:
        legend.append(LegendEntry(f"TPOT target {_fv(slo, 'ms')}", c["limit"], "dash"))
    if _float(row, "batch_max_kv") < top:
        legend.append(LegendEntry(
            f"Beyond memory's {_f(row, 'batch_max_kv')} sequences", "#c8c8c8", "shade"))
    if _float(row, "max_batch") < top:
        legend.append(LegendEntry(f"max_batch {_f(row, 'max_batch')}", "#666666", "dot"))
    ceiling_text = f"Compute ceiling F·MFU/2P {_f(row, 'compute_ceiling_tokens_per_s_per_gpu')}"
    if on_scale:
        legend.append(LegendEntry(ceiling_text, c["tutorial"], "dash"))
    caption = (
        "From the roofline, as the batch grows: throughput per GPU rises while each token "
        f"takes longer. The plan runs at B* = {_f(row, 'batch')}: "
        f"{_f(row, 'output_tokens_per_s_per_gpu')} at {_f(row, 'tpot_ms')} per token."
        + ("" if on_scale else f" {ceiling_text} is far above the curve (not drawn).")
    )
    return charts.batch_curves(spec), tuple(legend), caption


def _timing(row: Row) -> tuple[Item, ...]:
    decode_s = _float(row, "avg_output_tokens") * _float(row, "tpot_ms") / 1000
    return (
        Item(f"Prefill of one request ({_f(row, 'prefill_tokens')})", _num(row, "prefill_ms")),
        Item("Time to first token (prefill + one decode step)", _num(row, "ttft_ms")),
        Item(f"Decode step of the whole batch ({_f(row, 'batch')} sequences, "
             f"{row['decode_regime']}-bound)", _num(row, "decode_step_ms")),
        Item("Time per output token (step + prefill stalls)", _num(row, "tpot_ms")),
        Item(f"Decode of {_f(row, 'avg_output_tokens')} at that pace", Num(decode_s, "s")),
        Item("Response time (first to last token)", _num(row, "response_time_s")),
        Item("Share of instance time spent in prefill", _num(row, "prefill_time_share")),
    )


def _chain(plan: Plan, row: Row) -> tuple[tuple[ChainStep, ...], str]:
    per_node = Num(_scalar(_gpu_field(plan, str(row["gpu"]), "gpus_per_node")), "GPUs")
    steps: tuple[ChainStep, ...]
    if _tutorial(row):
        steps = (
            ChainStep("", _num(row, "peak_qps"), "peak load"),
            ChainStep("×", _num(row, "safety_factor"), "safety factor", bare=True),
            ChainStep("÷", _num(row, "tutorial_instance_rps"),
                      "tutorial capacity of one instance: F·MFU/2P ÷ (prompt + output tokens)"),
            ChainStep("=", _num(row, "instances"), "instances, rounded up"),
            ChainStep("×", _num(row, "tp"), "GPUs per instance (no tensor parallelism)"),
            ChainStep("=", _num(row, "gpus"), "GPUs"),
            ChainStep("÷", per_node, "GPUs per node, rounded up"),
            ChainStep("=", _num(row, "nodes"), "nodes"),
        )
        return steps, (
            "The tutorial divides the request rate by a compute-only capacity: no Little's Law, "
            "no memory and no latency."
        )
    if not _counted(row):
        return (), "No fleet: the scenario does not fit, so Little's Law has nothing to size."
    steps = (
        ChainStep("", _num(row, "peak_qps"), "peak load"),
        ChainStep("×", _num(row, "response_time_s"), "response time at the operating batch"),
        ChainStep("=", _num(row, "concurrency"), "requests in flight (Little's Law)"),
        ChainStep("÷", _num(row, "batch"), "sequences per instance (operating batch B*)"),
        ChainStep("×", _num(row, "safety_factor"), "safety factor", bare=True),
        ChainStep("=", _num(row, "instances"), "instances, rounded up"),
        ChainStep("×", _num(row, "tp"), "GPUs per instance (tensor parallelism)"),
        ChainStep("=", _num(row, "gpus"), "GPUs"),
        ChainStep("÷", per_node, "GPUs per node, rounded up"),
        ChainStep("=", _num(row, "nodes"), "nodes"),
    )
    return steps, (
        f"At {_f(row, 'gpu_hour_price')} per GPU-hour and {_hours()} hours a month this costs "
        f"{_f(row, 'monthly_cost')} a month; at the average load "
        f"({_f(row, 'avg_qps')}) the fleet is {_f(row, 'utilization_at_avg_load')} busy and "
        f"an output token costs {_f(row, 'cost_per_million_output_tokens')} per million."
    )


def _limits(row: Row) -> tuple[Limit, ...]:
    code = str(row["bottleneck"])

    def limit(name: str, label: str, binding: bool) -> Limit:
        value = _float(row, name)
        shown = Num("no target", "text") if value >= _UNLIMITED else _num(row, name)
        return Limit(label, shown, binding)

    return (
        limit("batch_max_kv", "KV-cache memory", code in ("kv_memory", "weights_do_not_fit")),
        limit("batch_limit_tpot", "TPOT target", code == "tpot_slo"),
        limit("batch_limit_ttft", "TTFT target", code == "ttft_slo"),
        limit("max_batch", "Scheduler cap (max_batch)", code == "batch_cap"),
    )


def _bottleneck_sentence(row: Row) -> str:
    code = str(row["bottleneck"])
    if _tutorial(row):
        compute = (
            f"The tutorial sizes the fleet from the compute ceiling alone: "
            f"{_f(row, 'compute_ceiling_tokens_per_s_per_gpu')} ÷ "
            f"({_f(row, 'avg_prompt_tokens', with_unit=False)} + "
            f"{_f(row, 'avg_output_tokens')}) = {_f(row, 'tutorial_instance_rps')} per instance, "
            f"hence {_f(row, 'gpus')} GPUs."
        )
        if code != "weights_do_not_fit":
            return compute
        return (
            f"{compute} It never checks memory: {_f(row, 'weights_gib')} of weights on one "
            f"{_f(row, 'gpu_memory_gib')} GPU leave a KV budget of {_f(row, 'kv_budget_gib')}, "
            "so not one sequence fits."
        )
    if code == "weights_do_not_fit":
        return (
            f"The weights do not fit: {_f(row, 'weights_gib')} at {row['weight_dtype']} is "
            f"{_f(row, 'weights_gib_per_gpu')} per GPU at tensor parallelism "
            f"{_f(row, 'tp', with_unit=False)}, and the KV budget of the instance is "
            f"{_f(row, 'kv_budget_gib')}, less than one sequence's "
            f"{_f(row, 'kv_gib_per_seq')}."
        )
    if code == "slo_unreachable":
        return (
            f"No batch meets the latency targets: with one sequence, TTFT is "
            f"{_f(row, 'ttft_ms')} and TPOT {_f(row, 'tpot_ms')}."
        )
    return _size_sentence(row)


def _regime_sentence(row: Row) -> str:
    if _float(row, "batch_max_kv") < 1:
        return ""
    return (
        f"At {_f(row, 'batch')} sequences a decode step takes {_f(row, 'decode_step_ms')} and is "
        f"{row['decode_regime']}-bound (it reads {_f(row, 'weights_read_gib_per_step')} of "
        f"weights every step); prefill takes {_f(row, 'prefill_time_share')} of the instance's "
        "time."
    )


def _relief(row: Row) -> tuple[str, ...]:
    code = str(row["bottleneck"])
    if _tutorial(row):
        return (
            "Nothing to relieve: the tutorial method is not a plan. See the tutorial "
            "comparison and the roofline scenario for the same workload.",
        )
    tp = _float(row, "tp")
    higher_tp = (
        f"Higher tensor parallelism (now {_f(row, 'tp', with_unit=False)})"
        if tp < 8 else "Tensor parallelism is already 8, the most tried"
    )
    fp8_kv = (
        f"An fp8 KV cache: half the {_f(row, 'kv_bytes_per_token')} now stored per token"
        if str(row["kv_dtype"]) in ("bf16", "fp16") else
        f"The KV cache is already {row['kv_dtype']}"
    )
    if code == "kv_memory":
        return (
            fp8_kv,
            f"A GPU with more memory than {_f(row, 'gpu_memory_gib')}",
            f"{higher_tp}: the weights take a smaller share of each GPU",
            f"Shorter reserved lengths: {_f(row, 'max_prompt_tokens', with_unit=False)} + "
            f"{_f(row, 'max_output_tokens')} are reserved per sequence",
        )
    if code in ("tpot_slo", "ttft_slo"):
        return (
            f"A faster GPU: more memory bandwidth than {_f(row, 'gpu_bandwidth_tbps')}",
            f"{higher_tp}: each step's weight read is shared by more GPUs",
            "fp8 weights: half the bytes read every step",
            "A looser target, if users accept it",
        )
    if code == "batch_cap":
        return (
            f"Raise max_batch (now {_f(row, 'max_batch')}) towards the memory limit of "
            f"{_f(row, 'batch_max_kv')}, then check latency under load",
        )
    if code == "weights_do_not_fit":
        return (
            f"Lower-precision weights (now {row['weight_dtype']}): fp8 halves them, int4 "
            "quarters them",
            f"A GPU with more memory than {_f(row, 'gpu_memory_gib')}",
            "More GPUs per replica: tensor parallelism above 8 or pipeline parallelism (not "
            "modelled here)",
        )
    if code == "slo_unreachable":
        return (
            "A looser TTFT/TPOT target",
            f"A faster GPU or {higher_tp.lower()}",
            "Prefix caching or shorter prompts, if TTFT is the problem",
        )
    return ("Not a plan: see the roofline scenario and the tutorial comparison.",)


def _scenario(
    plan: Plan, index: int, row: Row, sweep: pd.DataFrame | None
) -> ScenarioSection:
    memory_chart, memory_legend, memory_caption = _memory(row)
    batch_chart, batch_legend, batch_caption = _batch_chart(row, sweep)
    chain, chain_caption = _chain(plan, row)
    band = _counted(row)
    headlines = (
        Headline("GPUs", _num(row, "gpus"), _num(row, "gpus_low") if band else None,
                 _num(row, "gpus_high") if band else None),
        Headline("Nodes", _num(row, "nodes")),
        Headline("Monthly cost", _num(row, "monthly_cost"),
                 _num(row, "monthly_cost_low") if band else None,
                 _num(row, "monthly_cost_high") if band else None),
        Headline("Per 1M output tokens", _num(row, "cost_per_million_output_tokens")),
        Headline("Power at TDP", _num(row, "power_kw")),
    )
    return ScenarioSection(
        anchor=f"scenario-{index + 1}",
        number=index + 1,
        name=str(row["scenario"]),
        subtitle=f"{row['model']} on {row['gpu']} · {row['method']} method",
        counted=_counted(row),
        status=_status(row),
        headlines=headlines,
        inputs=_inputs(plan, row),
        memory_chart=memory_chart,
        memory_legend=memory_legend,
        memory_caption=memory_caption,
        batch_chart=batch_chart,
        batch_legend=batch_legend,
        batch_caption=batch_caption,
        timing=_timing(row),
        chain=chain,
        chain_caption=chain_caption,
        bottleneck=str(row["bottleneck"]),
        bottleneck_label=BOTTLENECK_LABELS.get(str(row["bottleneck"]), str(row["bottleneck"])),
        bottleneck_sentence=_bottleneck_sentence(row),
        regime_sentence=_regime_sentence(row),
        limits=_limits(row),
        relief=_relief(row),
        notes=_text(row["notes"]),
    )


# --- tutorial comparison -------------------------------------------------------------------------

_MATCH_FIELDS = ("model", "gpu", "peak_qps", "avg_prompt_tokens", "avg_output_tokens")


def _matches(rows: Sequence[Row]) -> dict[int, int]:
    """Each tutorial row → the first roofline row with the same model, GPU, load and lengths."""
    out: dict[int, int] = {}
    for i, t in enumerate(rows):
        if not _tutorial(t):
            continue
        for j, r in enumerate(rows):
            if not _tutorial(r) and all(t[f] == r[f] for f in _MATCH_FIELDS):
                out[i] = j
                break
    return out


def tutorial_batching_gain(batch: float) -> float:
    """The tutorial's hand-waved batching gain 2B/(B+1) (NOTES.md item 7), shown only as its."""
    return 2 * batch / (batch + 1)


def _comparison(
    index: int, t: Row, r: Row | None, sweep: pd.DataFrame | None
) -> TutorialComparison:
    dash = Num(None, "text")

    def pair(label: str, name: str) -> CompareRow:
        return CompareRow(label, _num(t, name), _num(r, name) if r is not None else dash)

    rows = (
        pair("Parameters", "params_b"),
        pair("KV heads per layer", "kv_heads"),
        pair("KV cache per token", "kv_bytes_per_token"),
        pair("Tensor parallelism (GPUs per instance)", "tp"),
        pair("Weights per GPU", "weights_gib_per_gpu"),
        pair("GPU memory", "gpu_memory_gib"),
        pair("KV budget per instance", "kv_budget_gib"),
        pair("Sequences memory holds (B_mem)", "batch_max_kv"),
        pair("Operating batch", "batch"),
        pair("MFU (decode)", "mfu_decode"),
        pair("Compute ceiling F·MFU/2P per GPU", "compute_ceiling_tokens_per_s_per_gpu"),
        CompareRow("Requests/s one instance serves", _num(t, "tutorial_instance_rps"),
                   _num(r, "instance_rps") if r is not None else dash),
        pair("Instances", "instances"),
        pair("GPUs", "gpus"),
        pair("Monthly cost", "monthly_cost"),
    )
    reasons: list[str] = []
    if r is not None and _float(t, "kv_heads") != _float(r, "kv_heads"):
        reasons.append(
            f"KV heads: the tutorial uses {_f(t, 'kv_heads')} KV heads; {r['model']} has "
            f"{_f(r, 'kv_heads')} (grouped-query attention), so its KV cache per token is "
            f"{_f(t, 'kv_bytes_per_token')} instead of {_f(r, 'kv_bytes_per_token')}."
        )
    elif r is None:
        reasons.append(
            "KV heads: the tutorial calls a 70B model “80 layers, 64 KV heads”; Llama 70B "
            "models have 8 KV heads (grouped-query attention), eight times less KV cache."
        )
    if str(t["bottleneck"]) == "weights_do_not_fit":
        sharded = (
            f" reportgen shards them over {_f(r, 'tp', with_unit=False)} GPUs per instance."
            if r is not None else ""
        )
        reasons.append(
            f"Weights that do not fit: {_f(t, 'weights_gib')} of weights on one "
            f"{_f(t, 'gpu_memory_gib')} GPU leave a KV budget of {_f(t, 'kv_budget_gib')}; the "
            f"tutorial has no tensor parallelism and prints negative batch sizes.{sharded}"
        )
    reasons.append(
        "Units: the tutorial mixes decimal GB (10⁹ bytes) with GiB (2³⁰ bytes); every memory "
        "figure here is GiB, as the driver reports it (an “80 GB” H100 holds 80 GiB)."
    )
    reasons.append(
        "Mixed dimensions: its single-instance capacity min(compute ÷ tokens per request, free "
        "memory ÷ KV per token) compares requests per second with a token count; here "
        "requests in flight, tokens per second and bytes stay apart and meet only through "
        "Little's Law and the batch."
    )
    if r is not None and _float(r, "batch_max_kv") >= 1:
        reasons.append(
            f"Decode is {r['decode_regime']}-bound: at {_f(r, 'batch')} sequences each decode "
            f"step reads {_f(r, 'weights_read_gib_per_step')} of weights plus the KV cache, so "
            f"the 2P-FLOPs ceiling of {_f(t, 'compute_ceiling_tokens_per_s_per_gpu')} per GPU "
            f"is not what limits it; the roofline gives {_f(r, 'output_tokens_per_s_per_gpu')}."
        )
    else:
        reasons.append(
            "Decode is bandwidth-bound at small and medium batches: every step reads all "
            "weights plus the KV cache; FLOPs ≈ 2P per token bounds only prefill and large "
            "batches."
        )
    gain_chart: str | None = None
    gain_legend: tuple[LegendEntry, ...] = ()
    gain_caption = ""
    if sweep is not None and r is not None:
        batches = tuple(float(b) for b in sweep["batch"])
        tokens = sweep["output_tokens_per_s_per_gpu"].to_numpy(dtype=float)
        roofline = tuple(float(v) for v in tokens / tokens[0])
        chosen = _float(r, "batch")
        at_chosen = float(np.interp(chosen, np.asarray(batches), tokens) / tokens[0])
        gain_chart = charts.gain_curves(
            charts.GainSpec(
                batches=batches,
                roofline=roofline,
                tutorial=tuple(tutorial_batching_gain(b) for b in batches),
                chosen=chosen,
            )
        )
        gain_legend = (
            LegendEntry("Roofline (this plan)", charts.COLOURS["line"], "line"),
            LegendEntry("Tutorial: 2B/(B+1)", charts.COLOURS["tutorial"], "dash"),
            LegendEntry(f"B* = {_f(r, 'batch')}", charts.COLOURS["limit"], "dot"),
        )
        gain_caption = (
            "Throughput relative to one sequence. The tutorial's 2B/(B+1) never reaches 2×; "
            f"on the roofline, throughput at B* = {_f(r, 'batch')} is "
            f"{_fv(at_chosen, '×')} that at B = 1, because a bandwidth-bound step costs "
            "almost the same for one sequence as for many."
        )
        reasons.append(
            f"Batching gain: the tutorial's 2B/(B+1) caps the gain at 2×; the roofline gives "
            f"{_fv(at_chosen, '×')} at B* = {_f(r, 'batch')} (chart below)."
        )
    else:
        reasons.append(
            "Batching gain: the tutorial's 2B/(B+1) caps the gain at 2×; real decode "
            "throughput grows almost linearly while bandwidth-bound and flattens once "
            "compute-bound."
        )
    safety = f"({_f(r, 'safety_factor')}) " if r is not None else ""
    reasons.append(
        f"Safety applied twice: the tutorial runs at {_constant('TUTORIAL_KV_HEADROOM')} "
        f"of the memory-limited batch and then multiplies instances by "
        f"{_f(t, 'safety_factor')}; reportgen keeps only the serving engine's own memory "
        f"margin, applies its safety factor {safety}once, and shows each."
    )
    intro = (
        f"{_quote(str(t['scenario']))} uses the tutorial's own arithmetic "
        "(compute ceiling F·MFU/2P, capacity = ceiling ÷ (prompt + output) tokens, instances "
        "= ⌈QPS × safety ÷ capacity⌉). "
        + (
            f"It is shown beside {_quote(str(r['scenario']))}, the roofline plan for the same "
            "model, GPU, load and lengths."
            if r is not None
            else "The input has no roofline scenario with the same model, GPU, load and "
            "lengths to set beside it."
        )
    )
    return TutorialComparison(
        anchor=f"tutorial-{index + 1}",
        name=str(t["scenario"]),
        match_name=str(r["scenario"]) if r is not None else "",
        intro=intro,
        rows=rows,
        reasons=tuple(reasons),
        gain_chart=gain_chart,
        gain_legend=gain_legend,
        gain_caption=gain_caption,
    )


# --- procurement ---------------------------------------------------------------------------------


def _procurement(plan: Plan, rows: Sequence[Row]) -> Procurement:
    counted = [r for r in rows if _counted(r)]
    groups: dict[tuple[str, float], list[Row]] = {}
    for r in counted:
        groups.setdefault((str(r["gpu"]), _float(r, "gpu_hour_price")), []).append(r)

    def bom(gpu: str, price: Num, members: Sequence[Row]) -> BomRow:
        return BomRow(
            gpu=gpu,
            price=price,
            gpus=Num(_sum(members, "gpus"), "GPUs"),
            gpus_low=Num(_sum(members, "gpus_low"), "GPUs"),
            gpus_high=Num(_sum(members, "gpus_high"), "GPUs"),
            nodes=Num(_sum(members, "nodes"), "nodes"),
            power_kw=Num(_sum(members, "power_kw"), "kW"),
            monthly_cost=Num(_sum(members, "monthly_cost"), "USD/month"),
            annual_cost=Num(_sum(members, "annual_cost"), "USD/year"),
            scenarios=", ".join(str(m["scenario"]) for m in members),
        )

    bom_rows = tuple(
        bom(gpu, Num(price, "USD/GPU-h"), members)
        for (gpu, price), members in sorted(groups.items())
    )
    total = bom("Total", Num("", "text"), counted)
    prices: list[PriceRow] = []
    seen: set[tuple[str, float]] = set()
    for r in rows:
        key = (str(r["gpu"]), _float(r, "gpu_hour_price"))
        if key in seen or not _counted(r):
            continue
        seen.add(key)
        if _blank(r["raw_gpu_hour_price"]):
            source = _text(_gpu_field(plan, key[0], "price_source"))
            date = _text(_gpu_field(plan, key[0], "price_date"))
        else:
            source, date = f"given in the scenario file ({r['scenario']})", "—"
        prices.append(PriceRow(key[0], Num(key[1], "USD/GPU-h"), source or "—", date or "—"))
    note = (
        "Nodes are counted per scenario (replicas of different scenarios are not packed onto "
        "shared servers); power is GPU board power at TDP, without host, cooling or network. "
        f"Costs assume {_hours()} billable hours a month."
    )
    return Procurement(rows=bom_rows, total=total, prices=tuple(prices), nodes_note=note)


# --- assumptions register ------------------------------------------------------------------------


def _t(value: Any) -> Num:
    text = _text(value)
    return Num(text if text else "—", "text")


def _assumptions(plan: Plan, rows: Sequence[Row]) -> tuple[Table, ...]:
    constants = Table(
        "constants",
        "Constants and defaults",
        "Each is a named cell on the workbook's Assumptions sheet.",
        ("Name", "Value", "Unit", "Meaning", "Source", "Date"),
        tuple(
            (Num(c.name, "text"), Num(_scalar(c.value), c.unit), Num(c.unit, "text"),
             Num(c.doc, "text"), Num(c.source, "text"), Num(c.date, "text"))
            for c in CONSTANTS.values()
        ),
        suffix=False,
    )
    gpus_used = list(dict.fromkeys(str(r["gpu"]) for r in rows))
    g = plan.tables.gpus
    gpu_table = Table(
        "gpus",
        "GPU specifications used",
        "Dense tensor throughput; memory as the driver reports it.",
        ("GPU", "Memory (GiB)", "Bandwidth (TB/s)", "BF16 (TFLOP/s)", "FP8 (TFLOP/s)",
         "TDP (W)", "GPUs per node", "Source", "Date"),
        tuple(
            (Num(name, "text"), Num(_scalar(g.loc[name, "memory_gib"]), "GiB"),
             Num(_scalar(g.loc[name, "bandwidth_tbps"]), "TB/s"),
             Num(_scalar(g.loc[name, "bf16_tflops"]), "TFLOP/s"),
             Num(_scalar(g.loc[name, "fp8_tflops"]), "TFLOP/s"),
             Num(_scalar(g.loc[name, "tdp_w"]), "W"),
             Num(_scalar(g.loc[name, "gpus_per_node"]), "GPUs"),
             _t(g.loc[name, "source"] if "source" in g.columns else ""),
             _t(g.loc[name, "source_date"] if "source_date" in g.columns else ""))
            for name in gpus_used
        ),
        suffix=False,
    )
    models_used = list(dict.fromkeys(str(r["model"]) for r in rows))
    m = plan.tables.models
    model_table = Table(
        "models",
        "Model architectures used",
        "From the model catalog (Hugging Face config.json values).",
        ("Model", "Params (B)", "Active (B)", "Layers", "Heads", "KV heads", "Head dim",
         "Source", "Date"),
        tuple(
            (Num(name, "text"), Num(_scalar(m.loc[name, "params_b"]), "B params"),
             Num(_scalar(m.loc[name, "active_params_b"]), "B params"),
             Num(_scalar(m.loc[name, "layers"]), "layers"),
             Num(_scalar(m.loc[name, "attention_heads"]), "heads"),
             Num(_scalar(m.loc[name, "kv_heads"]), "heads"),
             Num(_scalar(m.loc[name, "head_dim"]), "elements"),
             _t(m.loc[name, "source"] if "source" in m.columns else ""),
             _t(m.loc[name, "source_date"] if "source_date" in m.columns else ""))
            for name in models_used
        ),
        suffix=False,
    )
    keys = list(dict.fromkeys(str(r["efficiency_key"]) for r in rows))
    e = plan.tables.efficiency

    def mdape(key: str) -> Num:
        value = _cell(e, key, "fit_mdape_pct")
        return Num(None if _blank(value) else float(value) / 100, "fraction")

    eff_table = Table(
        "efficiency",
        "Efficiencies used",
        "Per GPU family and compute precision; p10–p90 of measured ÷ predicted throughput give "
        "the error band.",
        ("Key", "MFU prefill", "MFU decode", "MBU", "Step (ms)", "p10 (×)", "p90 (×)",
         "Calibrated", "Points", "Fit MdAPE", "Source", "Date"),
        tuple(
            (Num(k, "text"), Num(_scalar(e.loc[k, "mfu_prefill"]), "fraction"),
             Num(_scalar(e.loc[k, "mfu_decode"]), "fraction"),
             Num(_scalar(e.loc[k, "mbu"]), "fraction"),
             Num(_scalar(e.loc[k, "step_overhead_ms"]), "ms"),
             Num(_scalar(e.loc[k, "throughput_ratio_p10"]), "×"),
             Num(_scalar(e.loc[k, "throughput_ratio_p90"]), "×"),
             _t(e.loc[k, "calibrated"]), Num(_scalar(e.loc[k, "n_measurements"]), "sequences"),
             mdape(k), _t(e.loc[k, "source"]), _t(e.loc[k, "date"]))
            for k in keys
        ),
        suffix=False,
    )
    override_cols = (
        *schema.MODEL_OVERRIDES, *schema.GPU_OVERRIDES, "mfu_prefill", "mfu_decode", "mbu",
        "gpu_hour_price", "safety_factor",
    )
    overrides = tuple(
        (Num(str(r["scenario"]), "text"), Num(col, "text"),
         Num(_scalar(r[f"raw_{col}"]), schema.BY_NAME[col].unit or "text"),
         Num(schema.BY_NAME[col].unit, "text"), Num(schema.BY_NAME[col].help, "text"))
        for r in rows
        for col in override_cols
        if not _blank(r[f"raw_{col}"])
    )
    price_rows = []
    for r in rows:
        row = (Num(str(r["gpu"]), "text"), _num(r, "gpu_hour_price"))
        if _blank(r["raw_gpu_hour_price"]):
            source = (_t(_cell(g, str(r["gpu"]), "price_source")),
                      _t(_cell(g, str(r["gpu"]), "price_date")))
        else:
            source = (Num(f"given in the scenario file ({r['scenario']})", "text"),
                      Num("—", "text"))
        if (*row, *source) not in price_rows:
            price_rows.append((*row, *source))
    price_table = Table(
        "prices",
        "GPU prices",
        "Per GPU-hour, in USD; every cost in this report is GPUs × price × hours.",
        ("GPU", "Price per GPU-hour", "Source", "Date"),
        tuple(price_rows),
    )
    tables = [constants, gpu_table, model_table, eff_table, price_table]
    if overrides:
        tables.append(Table(
            "overrides",
            "Values given in the scenario file instead of the catalog or defaults",
            "Source: the input file named on the cover.",
            ("Scenario", "Column", "Value", "Unit", "Meaning"),
            overrides,
        ))
    return tuple(tables)


# --- method --------------------------------------------------------------------------------------


def _formulas() -> tuple[FormulaGroup, ...]:
    groups: dict[str, list[Formula]] = {}
    for q in REGISTRY.values():
        groups.setdefault(q.section, []).append(Formula(q.name, q.unit, q.doc, "=" + q.excel))
    return tuple(
        FormulaGroup(_SECTION_TITLES.get(section, section), tuple(items))
        for section, items in groups.items()
    )


def _pitfalls(rows: Sequence[Row]) -> tuple[Pitfall, ...]:
    counted = [r for r in rows if _counted(r)]
    top = max(counted, key=lambda r: float(r["monthly_cost"])) if counted else None
    name = _quote(str(top["scenario"])) if top is not None else ""

    def ev(text: str) -> str:
        return text if top is not None else ""

    return (
        Pitfall(
            "A theoretical number is not a promise",
            "The compute ceiling F·MFU/2P is an upper bound for a kitchen that never waits. "
            "The plan discounts both ceilings (compute and memory bandwidth) by efficiencies "
            "listed in the assumptions register with whether they are calibrated, and carries "
            "their spread into the GPU range.",
            ev(f"In {name}, the ceiling would be "
               f"{_f(top, 'compute_ceiling_tokens_per_s_per_gpu') if top else ''}; the plan "
               f"counts on {_f(top, 'output_tokens_per_s_per_gpu') if top else ''}."),
        ),
        Pitfall(
            "KV cache from the input length only",
            "A sequence's KV cache grows to prompt + output while it runs, so memory is "
            "reserved for the maximum prompt plus the maximum output.",
            ev(f"{name} reserves {_f(top, 'reserved_tokens_per_seq') if top else ''} per "
               "sequence."),
        ),
        Pitfall(
            "QPS is not concurrency",
            "Concurrency = request rate × response time (Little's Law); with responses "
            "lasting seconds, requests in flight far exceed requests per second.",
            ev(f"{name}: {_f(top, 'peak_qps') if top else ''} × "
               f"{_f(top, 'response_time_s') if top else ''} = "
               f"{_f(top, 'concurrency') if top else ''} requests in flight."),
        ),
        Pitfall(
            "The largest batch is not the best batch",
            "Throughput flattens while latency keeps rising; the plan takes the largest batch "
            "that meets the latency targets, memory and the scheduler cap, and says which one "
            "binds.",
            ev(f"{name}: B* = {_f(top, 'batch') if top else ''}, set by "
               f"{BOTTLENECK_LABELS.get(str(top['bottleneck']), '') if top else ''}."),
        ),
        Pitfall(
            "Copying someone else's optimisations",
            "Benchmarks from other workloads, hardware and engine versions do not transfer. "
            "The plan is an estimate to be calibrated with your own load test; every "
            "efficiency it uses is listed with its source and whether it was calibrated.",
            "",
        ),
    )


# --- entry point ---------------------------------------------------------------------------------


def _rows(plan: Plan) -> list[dict[str, Any]]:
    """Results joined with the raw inputs (as raw_<column>) for the sentences that need them."""
    results = _records(plan.results)
    raw = _records(plan.scenarios)
    for res, inp in zip(results, raw, strict=True):
        for column in schema.BY_NAME:
            res[f"raw_{column}"] = inp.get(column)
    return results


def build(plan: Plan) -> Report:
    """The report's view model for a plan."""
    rows = _rows(plan)
    sweeps = _sweeps(plan, rows)
    matches = _matches(rows)
    tutorials = tuple(
        _comparison(
            i, rows[i],
            rows[matches[i]] if i in matches else None,
            sweeps.get(matches[i]) if i in matches else None,
        )
        for i, r in enumerate(rows)
        if _tutorial(r)
    )
    p = plan.provenance
    return Report(
        title=p.title,
        date=p.generated.isoformat(),
        version=p.version,
        input_name=p.input_name,
        input_sha256=p.input_sha256,
        summary=_summary(plan, rows, matches),
        scenarios=tuple(_scenario(plan, i, r, sweeps.get(i)) for i, r in enumerate(rows)),
        tutorials=tutorials,
        procurement=_procurement(plan, rows),
        assumptions=_assumptions(plan, rows),
        formulas=_formulas(),
        pitfalls=_pitfalls(rows),
    )
