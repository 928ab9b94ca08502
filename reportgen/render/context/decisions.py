"""The Decisions page: what the plan chose for each workload, what it was chosen against, what
it saves against the rows as typed, and why every other row is not budgeted.

The search (:mod:`reportgen.search`) and the choice (:mod:`reportgen.choose`) decide; this module
picks the words and the tables: per workload that had a choice to make, the top alternatives
(GPUs, monthly cost, what sets their size, TPOT) and a chart of the cheapest cost on each GPU at
each tensor parallelism.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from reportgen.choose import (
    CHOSEN,
    COMPARE,
    NO_FIT,
    NO_PRICE,
    OPTION,
    configuration,
    configurations,
    decision_sentences,
    gpus_per_node,
)
from reportgen.i18n import N_, _, ngettext
from reportgen.plan import Plan
from reportgen.render import charts
from reportgen.render.context.common import Row, bottleneck_label, fmt_value
from reportgen.render.context.models import (
    Alternative,
    Decisions,
    LegendEntry,
    NotBudgeted,
    Num,
    WorkloadDecision,
)

ALTERNATIVES = 5
CLIP = 3.0  # the cost chart's axis stops at this multiple of the cheapest option
# A row's standing, in words (the Standing column of "Rows not budgeted").
_STATUS_WORDS = {COMPARE: N_("for comparison"), OPTION: N_("option not chosen"),
                 NO_FIT: N_("does not fit"), NO_PRICE: N_("without a price")}


def _standing_count(status: str, n: int) -> str:
    """How many rows have a standing other than budgeted (the page's first sentence)."""
    if status == COMPARE:
        return _("{n} for comparison").format(n=n)
    if status == OPTION:
        return ngettext("{n} option not chosen", "{n} options not chosen", n).format(n=n)
    if status == NO_FIT:
        return ngettext("{n} does not fit", "{n} do not fit", n).format(n=n)
    return _("{n} without a price").format(n=n)


def _joined(parts: Sequence[str]) -> str:
    """Phrases of one sentence, listed ("a, b, c")."""
    # TRANSLATORS: separates the phrases of a list inside one sentence ("a, b, c").
    return _(", ").join(parts)


class _Searched:
    """The configurations the search kept, found by plan row (each workload's lookups cost its
    own rows, not the whole search: 1,427 kept for the 200-scenario benchmark file)."""

    def __init__(self, plan: Plan) -> None:
        self.kept = plan.search.kept
        self._positions = self.kept.groupby("row").indices
        self.per_node = gpus_per_node(plan.tables.gpus)

    def of(self, rows: Sequence[int], feasible: bool = False) -> pd.DataFrame:
        """The kept configurations of plan rows ``rows``, in the search's order; ``feasible``:
        only those that meet the targets."""
        found = [self._positions[r] for r in rows if r in self._positions]
        mine = self.kept.iloc[np.sort(np.concatenate(found))] if found else self.kept.iloc[:0]
        return mine[mine["feasible"].to_numpy(dtype=bool)] if feasible else mine


def _alternatives(plan: Plan, searched: _Searched, rows: Sequence[int],
                  chosen: int) -> tuple[Alternative, ...]:
    mine = searched.of(rows, feasible=True)
    mine = mine.assign(_cost=mine["monthly_cost"].round(2)).sort_values(
        ["_cost", "gpus", "pp", "tpot_ms", "row", "rank"], kind="stable")
    names = plan.results["scenario"]
    top = mine.head(ALTERNATIVES)
    worded = configurations(top, searched.per_node) if len(top) else []
    out = []
    for k, ((_row, r), words) in enumerate(zip(top.iterrows(), worded, strict=True), start=1):
        is_chosen = int(r["row"]) == chosen and int(r["rank"]) == 1
        out.append(Alternative(
            rank=k,
            scenario=str(names.iloc[int(r["row"])]),
            configuration=words,
            gpus=Num(float(r["gpus"]), "GPUs"),
            monthly_cost=Num(float(r["monthly_cost"]), "USD/month"),
            bottleneck=bottleneck_label({"bottleneck": r["bottleneck"]}),
            tpot=Num(float(r["tpot_ms"]), "ms"),
            chosen=is_chosen,
        ))
    return tuple(out)


def _chart(plan: Plan, searched: _Searched, rows: Sequence[int],
           chosen: int) -> tuple[str | None, tuple[LegendEntry, ...]]:
    mine = searched.of(rows, feasible=True)
    if mine["gpu"].nunique() < 2:  # one GPU: the table of alternatives says it all
        return None, ()
    best = mine.groupby(["gpu", "tp", "pp"])["monthly_cost"].min()
    gpus = tuple(dict.fromkeys(mine.sort_values("monthly_cost")["gpu"]))
    shapes = tuple(sorted(set(zip(mine["pp"].tolist(), mine["tp"].tolist(), strict=True))))
    costs = tuple(tuple(float(best.get((g, t, p), math.nan)) for p, t in shapes) for g in gpus)
    pick = plan.results.iloc[chosen]
    mark = (float(pick["pp"]), float(pick["tp"]))
    at = ((gpus.index(pick["gpu"]), shapes.index(mark))
          if pick["gpu"] in gpus and mark in shapes else None)
    cheapest = float(mine["monthly_cost"].min())
    clip = CLIP * cheapest if float(mine["monthly_cost"].max()) > CLIP * cheapest else None
    labels = tuple(f"TP {t:g}" if p <= 1 else f"TP {t:g} × PP {p:g}" for p, t in shapes)
    chart = charts.cost_by_gpu_and_tp(charts.CostSpec(gpus, labels, costs, at, clip))
    legend = tuple(LegendEntry(label, charts.TP_COLOURS[k % len(charts.TP_COLOURS)], "box")
                   for k, label in enumerate(labels))
    cut = () if clip is None else (LegendEntry(
        _("cut at {cost}").format(cost=fmt_value(clip, "USD/month")), charts.COLOURS["ink"],
        "marker"),)
    return chart, (*legend, LegendEntry(_("chosen"), charts.COLOURS["limit"], "marker"), *cut)


def _workload(plan: Plan, searched: _Searched, rows: list[int], results: pd.DataFrame,
              sentences: list[str]) -> WorkloadDecision:
    plan_rows = [i for i in rows if results.iloc[i]["role"] == "plan"]
    chosen = next((i for i in rows if results.iloc[i]["status"] == CHOSEN), None)
    first = results.iloc[plan_rows[0]]
    evaluated = int(sum(plan.search.evaluated[i] for i in plan_rows))
    if chosen is None:
        return WorkloadDecision(
            name=str(first["workload"]), chosen="", configuration="",
            gpus=Num(None, "GPUs"), monthly_cost=Num(None, "USD/month"),
            sentence=ngettext(
                "Nothing budgeted: none of the {n} configuration searched meets the targets.",
                "Nothing budgeted: none of the {n} configurations searched meets the targets.",
                evaluated).format(n=evaluated),
            typed=str(first["typed_configuration"]), typed_cost=Num(None, "USD/month"),
            saving=Num(None, "USD/month"), evaluated=evaluated, alternatives=(),
            chart=None, legend=(),
        )
    row = results.iloc[chosen]
    mixed = _mixed_prices(plan, searched, plan_rows)
    typed_cost = float(first["typed_monthly_cost"])
    saving = typed_cost - float(row["monthly_cost"]) if not math.isnan(typed_cost) else math.nan
    chart, legend = _chart(plan, searched, plan_rows, chosen)
    return WorkloadDecision(
        name=str(row["workload"]),
        chosen=str(row["scenario"]),
        configuration=configuration(row, searched.per_node),
        gpus=Num(float(row["gpus"]), "GPUs"),
        monthly_cost=Num(float(row["monthly_cost"]), "USD/month"),
        sentence=sentences[chosen],
        typed=_("{scenario} as typed: {configuration}").format(
            scenario=first["scenario"], configuration=first["typed_configuration"]),
        typed_cost=Num(None if math.isnan(typed_cost) else typed_cost, "USD/month"),
        saving=Num(None if math.isnan(saving) else saving, "USD/month"),
        evaluated=evaluated,
        alternatives=_alternatives(plan, searched, plan_rows, chosen),
        chart=chart,
        legend=legend,
        mixed_prices=mixed,
    )


def _mixed_prices(plan: Plan, searched: _Searched, plan_rows: Sequence[int]) -> str:
    """A sentence when the GPUs this workload compared are priced by different providers."""
    gpus = sorted(set(searched.of(plan_rows)["gpu"].astype(str))
                  | {str(plan.results.iloc[i]["gpu"]) for i in plan_rows})
    catalog = plan.tables.gpus
    sources = {g: str(catalog.at[g, "price_provider"]) for g in gpus
               if g in catalog.index and str(catalog.at[g, "price_status"]) != "no_price"}
    if len(set(sources.values())) < 2:
        return ""
    listed = "; ".join(f"{g}: {p or _('unnamed')}" for g, p in sources.items())
    return _("The GPUs compared are priced by different providers ({providers}), so part of the "
             "difference in cost is the provider's price, not the hardware: price them from one "
             "provider (--prices) before deciding on this basis.").format(providers=listed)


def _intro(results: pd.DataFrame, decided: int) -> str:
    counts = results["status"].value_counts()
    budgeted = int(counts.get(CHOSEN, 0))
    parts = [ngettext("{n} row budgeted", "{n} rows budgeted", budgeted).format(n=budgeted)]
    for status in _STATUS_WORDS:
        if counts.get(status, 0):
            parts.append(_standing_count(status, int(counts[status])))
    return " ".join((
        ngettext("{n} scenario row: {standings}.", "{n} scenario rows: {standings}.",
                 len(results)).format(n=len(results), standings=_joined(parts)),
        _("Each workload budgets one row — the cheapest that meets its targets; the other rows "
          "are listed below with the reason."),
        ngettext("{n} workload had a choice to make (a search or several rows).",
                 "{n} workloads had a choice to make (a search or several rows).",
                 decided).format(n=decided),
    ))


def _mixed_note(blocks: Sequence[WorkloadDecision]) -> str:
    mixed = [b.name for b in blocks if b.mixed_prices]
    if not mixed:
        return ""
    names = ", ".join(f'"{name}"' for name in mixed)
    return ngettext(
        "For {n} workload ({names}) the GPUs compared are priced by different providers, so "
        "part of that saving is the provider's price, not the hardware (see each).",
        "For {n} workloads ({names}) the GPUs compared are priced by different providers, so "
        "part of that saving is the provider's price, not the hardware (see each).",
        len(mixed)).format(n=len(mixed), names=names)


def _unservable(blocks: Sequence[WorkloadDecision]) -> str:
    """The workloads the search made servable: nothing as typed meets their targets."""
    rescued = [b.name for b in blocks if b.chosen and b.typed_cost.value is None]
    if not rescued:
        return ""
    names = ", ".join(f'"{name}"' for name in rescued)
    return ngettext(
        "{n} workload ({names}) could not be served as typed at all; the search found the plan "
        "budgeted for them, which the saving leaves out.",
        "{n} workloads ({names}) could not be served as typed at all; the search found the "
        "plan budgeted for them, which the saving leaves out.",
        len(rescued)).format(n=len(rescued), names=names)


def decisions(plan: Plan, rows: Sequence[Row]) -> Decisions:
    """The Decisions page's view model."""
    results = plan.results
    groups: dict[str, list[int]] = {}
    for i, key in enumerate(results["workload_key"]):
        groups.setdefault(str(key), []).append(i)
    sentences = decision_sentences(results, plan.search)
    searched = _Searched(plan)
    roles = results["role"].tolist()
    blocks = []
    for members in groups.values():
        plan_rows = [i for i in members if roles[i] == "plan"]
        chose = any(plan.search.evaluated[i] > 1 for i in plan_rows)
        if plan_rows and (chose or len(plan_rows) > 1):
            blocks.append(_workload(plan, searched, members, results, sentences))
    saving = sum(b.saving.value for b in blocks if isinstance(b.saving.value, float))
    excluded = tuple(
        NotBudgeted(str(r["scenario"]), _(_STATUS_WORDS[str(r["status"])]), sentences[i])
        for i, (_row, r) in enumerate(results.iterrows()) if r["status"] != CHOSEN
    )
    total = Num(saving, "USD/month")
    against = _("Against the rows as typed (a blank tp at the quick rule — the smallest that "
                "leaves half the memory free —, a blank pp at 1 and listed values at their "
                "first), the choices save {saving} a month.").format(
                    saving=fmt_value(saving, "USD/month"))
    return Decisions(
        intro=_intro(results, len(blocks)),
        saving=total,
        saving_sentence=(
            " ".join(part for part in (against, _unservable(blocks), _mixed_note(blocks)) if part)
            if blocks else ""),
        workloads=tuple(blocks),
        excluded=excluded,
    )

