"""The choice: which rows the plan budgets, and why the others are not budgeted.

:mod:`search` finds each row's best configuration. Here rows are grouped into workloads (rows
with the same ``workload``, compared ignoring case; a blank workload is the row alone) and the
plan rows of a workload compete: the one whose best configuration meets every target at the
lowest monthly cost is *chosen* and counted in totals, BOM and procurement (ties: fewer GPUs,
then fewer pipeline stages per replica, then the lower TPOT, then the earlier row). The others
are *options*, kept with the reason they were not chosen. *Compare* rows (role ``compare``, and
every tutorial-method row) are shown for comparison and never counted; plan rows that nothing
fits are *no fit*.

Pure: tables in, tables out. The workbook writes the same rule as formulas (render/choice
formulas); the parity tests hold the two together.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
import pandas as pd

from reportgen.formats import format_value
from reportgen.i18n import _
from reportgen.search import CONFIG, Search
from reportgen.xlfuncs import per_combination, xl_round

CHOSEN, OPTION, COMPARE, NO_FIT = "chosen", "option", "compare", "no fit"
NO_PRICE = "no price"
DECISION_COLUMNS: tuple[str, ...] = (
    "status", "counted", "budgeted_monthly_cost", "why", "decision", "candidates_evaluated",
    "searched", "runner_up", "runner_up_monthly_cost", "margin_monthly_cost", "typed_configuration",
    "typed_monthly_cost", "saving_monthly_cost",
)
# Units and meanings of the decision columns (the registry's columns carry their own).
DECISION_UNITS = {
    "status": "text", "counted": "flag", "budgeted_monthly_cost": "USD/month", "why": "text",
    "decision": "text",
    "candidates_evaluated": "count", "searched": "text", "runner_up": "text",
    "runner_up_monthly_cost": "USD/month",
    "margin_monthly_cost": "USD/month", "typed_configuration": "text",
    "typed_monthly_cost": "USD/month", "saving_monthly_cost": "USD/month",
}
DECISION_DOCS = {
    "status": "chosen (budgeted), option (another row of its workload is cheaper), compare "
              "(shown for comparison only) or no fit (nothing searched meets its targets).",
    "counted": "1 when the plan's totals, BOM and procurement count the row (status chosen).",
    "budgeted_monthly_cost": "What the row adds to the plan's monthly total: its monthly cost "
                             "when budgeted (counted), else 0.",
    "why": "Why the row is or is not budgeted, in a few words (a live formula in the workbook).",
    "decision": "Why the row is or is not budgeted, in a sentence.",
    "candidates_evaluated": "Configurations of the row planned by the search.",
    "searched": "The inputs the row searched (auto, a list, or a blank tp).",
    "runner_up": "The row's second-best configuration that meets its targets.",
    "runner_up_monthly_cost": "Monthly cost of the runner-up configuration.",
    "margin_monthly_cost": "How much more the runner-up costs a month.",
    "typed_configuration": "The row as typed: listed inputs at their first value, a blank tp "
                           "at the quick rule (smallest that leaves half the memory free), a "
                           "blank pp at 1 (one node per replica).",
    "typed_monthly_cost": "Monthly cost of the row as typed (blank when it does not fit).",
    "saving_monthly_cost": "Typed monthly cost minus the chosen configuration's.",
}


# The same rule as workbook formulas over the Plan sheet: {name} is the row's cell of a Plan
# column, {name[]} the whole column (see render/plan_sheet.py).
# Each row's figures as the choice compares them, never an error: a row whose own formulas fail
# (a name no catalog row has, a cleared row) does not compete, and it cannot turn the other rows'
# choice into errors. RANKED_COST is -1 on rows that do not compete.
GUARDS: tuple[tuple[str, str, str], ...] = (
    ("ranked_cost", 'IFERROR(IF(AND({role}="plan",{in_plan_total}=1,{priced}=1),'
                    "ROUND({monthly_cost},2),-1),-1)",
     "[USD/month] The monthly cost (to cents) the choice compares; -1 on rows that do not "
     "compete (comparison rows, rows that do not fit or have no price, rows whose formulas "
     "fail)."),
    ("ranked_gpus", "IFERROR({gpus}+0,0)", "[GPUs] GPUs as compared (0 where the formula fails)."),
    ("ranked_pp", "IFERROR({pp}+0,0)", "[stages] Pipeline stages as compared (0 where it fails)."),
    ("ranked_tpot", "IFERROR({tpot_ms}+0,0)", "[ms] TPOT as compared (0 where it fails)."),
)
COUNTED_XL = (
    "IF(AND({ranked_cost}>=0,"
    "SUMPRODUCT(({workload_key[]}={workload_key})*({ranked_cost[]}>=0)"
    "*(({ranked_cost[]}<{ranked_cost})"
    "+({ranked_cost[]}={ranked_cost})"
    "*(({ranked_gpus[]}<{ranked_gpus})+({ranked_gpus[]}={ranked_gpus})"
    "*(({ranked_pp[]}<{ranked_pp})+({ranked_pp[]}={ranked_pp})"
    "*(({ranked_tpot[]}<{ranked_tpot})+({ranked_tpot[]}={ranked_tpot})"
    "*(ROW({workload_key[]})<ROW({workload_key})))))))=0),1,0)"
)
CHOSEN_COST_XL = "IF({counted}=1,{monthly_cost},0)"
STATUS_XL = (
    'IF({scenario}="","",'
    'IF(OR(ISERROR({role}),ISERROR({in_plan_total}+{priced}+{monthly_cost})),"error",'
    'IF({role}<>"plan","compare",IF({in_plan_total}<>1,"no fit",IF({priced}<>1,"no price",'
    'IF({counted}=1,"chosen","option"))))))'
)
WHY_XL = (
    'IF({scenario}="","",IF({status}="chosen","budgeted",'
    'IF({status}="compare","shown for comparison, not budgeted",'
    'IF({status}="error","not planned: a formula of this row is an error (Summary, Checks)",'
    'IF({status}="no fit","not budgeted: nothing meets the targets ("&{bottleneck}&")",'
    'IF({status}="no price","not budgeted: no price for this GPU at basis "&{price_basis},'
    '"not budgeted: "&ROUND({monthly_cost}-SUMPRODUCT(({workload_key[]}={workload_key})'
    '*{chosen_cost[]}),0)&" USD/month more than the budgeted row of its workload"))))))'
)
# What the choice columns show on a row whose scenario is blank (a spare or cleared row).
EMPTY_CHOICE: dict[str, float | str] = {
    "ranked_cost": -1.0, "ranked_gpus": 0.0, "ranked_pp": 0.0, "ranked_tpot": 0.0,
    "counted": 0.0, "chosen_cost": 0.0, "status": "", "why": "",
}


def _competing(results: pd.DataFrame) -> npt.NDArray[np.bool_]:
    """Plan rows that meet their targets and have a price: those the choice compares."""
    return ((results["role"] == "plan") & (results["in_plan_total"] == 1)
            & (results["priced"] == 1)).to_numpy()


def compared(results: pd.DataFrame) -> dict[str, npt.NDArray[np.float64]]:
    """The ranked_gpus, ranked_pp and ranked_tpot the choice (and the Options ranking) compare
    after the cost, for rows whose formulas do not fail."""
    return {"ranked_gpus": results["gpus"].to_numpy(dtype=float),
            "ranked_pp": results["pp"].to_numpy(dtype=float),
            "ranked_tpot": results["tpot_ms"].to_numpy(dtype=float)}


def guards(results: pd.DataFrame, counted: pd.Series) -> pd.DataFrame:
    """What the GUARDS and CHOSEN_COST_XL columns hold for rows whose formulas do not fail."""
    cost = results["monthly_cost"].to_numpy(dtype=float)
    return pd.DataFrame({
        "ranked_cost": np.where(_competing(results), xl_round(cost, 2), -1.0),
        **compared(results),
        "chosen_cost": np.where(counted.to_numpy(dtype=float) == 1, cost, 0.0),
    }, index=results.index)


def gpus_per_node(gpus: pd.DataFrame) -> dict[str, float]:
    """GPUs per node by GPU name, from a GPU table (what :func:`configurations` reads)."""
    return {str(k): float(v) for k, v in gpus["gpus_per_node"].items()}


def replica_shape(tp: object, pp: object) -> str:
    """A replica's shape in a few characters: "4" (tensor parallelism), "8×2" with pipeline
    stages."""
    t, p = float(tp), float(pp)  # type: ignore[arg-type]
    return f"{t:g}" if p <= 1 else f"{t:g}×{p:g}"


def split_words(tp: float, data_parallel: bool) -> str:
    """How a stage's GPUs share the model: "TP 8" (tensor parallel), or "DEP 8" (attention
    data-parallel, the experts split over the 8 GPUs)."""
    return f"{'DEP' if data_parallel else 'TP'} {tp:g}"


def replica_words(gpu: str, tp: float, pp: float, per_node: Mapping[str, float] | None,
                  attention_dp: float = 0.0) -> str:
    """A replica's shape in words: "TP 2", "DEP 8" (attention data-parallel, experts split
    over the 8 GPUs), or "TP 8 × PP 2 (16 GPUs per replica across 2 nodes)" when it has
    pipeline stages (the nodes when ``per_node`` gives the GPU's)."""
    split = split_words(tp, attention_dp == 1)
    if pp <= 1:
        return split
    gpus = tp * pp
    node = float(per_node.get(gpu, 0.0)) if per_node is not None else 0.0
    words = (_("{split} × PP {pp} ({gpus} GPUs per replica across {nodes} nodes)")
             if node and gpus > node else
             _("{split} × PP {pp} ({gpus} GPUs per replica in one node)") if node else
             _("{split} × PP {pp} ({gpus} GPUs per replica)"))
    return words.format(split=split, pp=f"{pp:g}", gpus=f"{gpus:g}",
                        nodes=f"{math.ceil(gpus / node):g}" if node else "")


def weights_words(weights: str, experts: str) -> str:
    """The weights' precision in words: "fp8 weights", "mxfp4 experts + bf16 weights"."""
    shipped = weights or _("as-shipped")
    if experts and experts != weights:
        return _("{experts} experts + {weights} weights").format(experts=experts, weights=shipped)
    return _("{weights} weights").format(weights=shipped)


def configurations(frame: pd.DataFrame, per_node: Mapping[str, float] | None = None) -> list[str]:
    """Each row's configuration in words, e.g. "H200-SXM, TP 2, fp8 weights, fp8 KV,
    tensorrt-llm" (a blank precision: "as-shipped"); ``per_node``: GPUs per node by GPU name,
    for the nodes a pipeline-parallel replica spans."""
    n = len(frame)
    pp = frame["pp"].to_numpy(dtype=float) if "pp" in frame else np.ones(n)
    dep = (frame["attention_dp"].to_numpy(dtype=float) if "attention_dp" in frame else
           (frame["attention_replicas"].to_numpy(dtype=float) > 1).astype(float)
           if "attention_replicas" in frame else np.zeros(n))
    experts = (frame["expert_weight_dtype"].to_numpy(dtype=object) if "expert_weight_dtype" in
               frame else np.full(n, "", dtype=object))

    def words(gpu: str, tp: float, p: float, d: float, weights: str, expert: str, kv: str,
              engine: str) -> str:
        return _("{gpu}, {replica}, {weights}, {kv} KV, {engine}").format(
            gpu=gpu, replica=replica_words(str(gpu), tp, p, per_node, d),
            weights=weights_words(weights, expert), kv=kv or _("as-shipped"), engine=engine)

    # each distinct configuration worded once
    worded: list[str] = per_combination(
        words, frame["gpu"].to_numpy(dtype=object), frame["tp"].to_numpy(dtype=float), pp,
        dep, frame["weight_dtype"].to_numpy(dtype=object), experts,
        frame["kv_dtype"].to_numpy(dtype=object), frame["engine"].to_numpy(dtype=object),
    ).tolist()
    return worded


def configuration(row: pd.Series | dict[str, object],
                  per_node: Mapping[str, float] | None = None) -> str:
    """One row's configuration in words (see :func:`configurations`)."""
    values = dict(row)
    return configurations(pd.DataFrame([{k: values[k] for k in _WORDED if k in values}]),
                          per_node)[0]


# the columns :func:`configurations` reads (a results row has 150 more)
_WORDED = ("gpu", "tp", "pp", "attention_dp", "attention_replicas", "weight_dtype",
           "expert_weight_dtype", "kv_dtype", "engine")


def _money(value: float) -> str:
    return format_value(value, "USD/month")


def _share(part: float, whole: float) -> str:
    return format_value(part / whole, "fraction") if whole > 0 else "—"


def _winners(results: pd.DataFrame) -> pd.Series:
    """Per row: True for the chosen plan row of its workload (COUNTED_XL in the workbook)."""
    competing = _competing(results)
    ranked = pd.DataFrame({
        "key": results["workload_key"].to_numpy(dtype=object),
        "cost": xl_round(results["monthly_cost"].to_numpy(dtype=float), 2),
        "gpus": results["gpus"].to_numpy(dtype=float),
        "pp": results["pp"].to_numpy(dtype=float),
        "tpot": results["tpot_ms"].to_numpy(dtype=float),
        "order": np.arange(len(results)),
    }, index=results.index)[competing]
    ranked = ranked.sort_values(["key", "cost", "gpus", "pp", "tpot", "order"], kind="stable")
    first = ranked.groupby("key", sort=False).head(1).index
    return pd.Series(results.index.isin(first), index=results.index)


def choice(results: pd.DataFrame) -> pd.DataFrame:
    """``counted``, ``status``, ``budgeted_monthly_cost`` and ``why`` of every row from its
    registry results alone (what the workbook's COUNTED_XL, STATUS_XL and WHY_XL compute, and
    the Summary's monthly_cost × counted)."""
    winners = _winners(results).to_numpy()
    feasible = results["in_plan_total"].to_numpy(dtype=float) == 1
    plan = (results["role"] == "plan").to_numpy()
    unpriced = results["priced"].to_numpy(dtype=float) != 1
    status = np.where(~plan, COMPARE, np.where(
        ~feasible, NO_FIT, np.where(unpriced, NO_PRICE, np.where(winners, CHOSEN, OPTION))))
    counted = (status == CHOSEN).astype(float)
    cost = results["monthly_cost"].to_numpy(dtype=float)
    keys = results["workload_key"].to_numpy(dtype=object)
    budgeted = pd.Series(cost * counted).groupby(keys).transform("sum").to_numpy()
    bottleneck = results["bottleneck"].tolist()
    basis = results["price_basis"].tolist()
    why = [
        "budgeted" if s == CHOSEN else
        "shown for comparison, not budgeted" if s == COMPARE else
        f"not budgeted: nothing meets the targets ({bottleneck[i]})" if s == NO_FIT else
        f"not budgeted: no price for this GPU at basis {basis[i]}" if s == NO_PRICE else
        f"not budgeted: {xl_round(cost[i] - budgeted[i], 0):.0f} USD/month more than the "
        "budgeted row of its workload"
        for i, s in enumerate(status.tolist())
    ]
    return pd.DataFrame({"counted": counted, "status": status.astype(object),
                         "budgeted_monthly_cost": cost * counted,
                         "why": np.array(why, dtype=object)}, index=results.index)


def _runner_up(search: Search, n: int,
               per_node: Mapping[str, float] | None) -> tuple[list[str], np.ndarray]:
    """Per row: the second-best configuration that meets the targets, and its monthly cost."""
    second = search.kept[(search.kept["rank"] == 2) & search.kept["feasible"]]
    rows = second["row"].to_numpy(dtype=int)
    text = np.full(n, "", dtype=object)
    text[rows] = configurations(second, per_node)
    cost = np.full(n, np.nan)
    cost[rows] = second["monthly_cost"].to_numpy(dtype=float)
    return text.tolist(), cost


def decide(results: pd.DataFrame, search: Search, typed: pd.DataFrame,
           per_node: Mapping[str, float] | None = None) -> pd.DataFrame:
    """The decision columns (DECISION_COLUMNS), one row per row of ``results``.

    ``results``: the registry results of each row's best configuration; ``typed``: the registry
    results of each row as typed (searched columns at their first listed value, a blank tp at
    the quick rule, a blank pp at 1), which the savings are measured against; ``per_node``:
    GPUs per node by GPU, for the words of pipeline-parallel configurations.
    """
    n = len(results)
    chosen = choice(results)
    status = chosen["status"].to_numpy(dtype=object)
    feasible = results["in_plan_total"].to_numpy(dtype=float) == 1
    cost = results["monthly_cost"].to_numpy(dtype=float)
    runner_text, runner_cost = _runner_up(search, n, per_node)
    typed_feasible = typed["in_plan_total"].to_numpy(dtype=float) == 1
    typed_cost = np.where(typed_feasible, typed["monthly_cost"].to_numpy(dtype=float), np.nan)
    return pd.DataFrame({
        "status": status,
        "counted": chosen["counted"],
        "budgeted_monthly_cost": chosen["budgeted_monthly_cost"],
        "why": chosen["why"],
        "decision": _sentences(results, status, search, runner_cost),
        "candidates_evaluated": search.evaluated.astype(float),
        "searched": [", ".join(cols) for cols in search.searched],
        "runner_up": runner_text,
        "runner_up_monthly_cost": runner_cost,
        "margin_monthly_cost": runner_cost - cost,
        "typed_configuration": configurations(typed, per_node),
        "typed_monthly_cost": typed_cost,
        "saving_monthly_cost": np.where(feasible, typed_cost - cost, np.nan),
    }, index=results.index)


def _sentences(results: pd.DataFrame, status: np.ndarray, search: Search,
               runner_cost: np.ndarray) -> list[str]:
    """Why each row is or is not budgeted, in words."""
    names = results["scenario"].tolist()
    workloads = results["workload"].tolist()
    keys = results["workload_key"].tolist()
    costs = results["monthly_cost"].to_numpy(dtype=float).tolist()
    methods = results["method"].tolist()
    bottlenecks = results["bottleneck"].tolist()
    plan = (results["role"] == "plan").to_numpy()
    feasible = results["in_plan_total"].to_numpy(dtype=float) == 1
    # per workload: its plan rows that meet their targets, cheapest first; and its plan rows
    competing: dict[str, list[int]] = {}
    options: dict[str, int] = {}
    for i in np.flatnonzero(plan).tolist():
        options[keys[i]] = options.get(keys[i], 0) + 1
        if feasible[i]:
            competing.setdefault(keys[i], []).append(i)
    for members in competing.values():
        members.sort(key=lambda i: (round(costs[i], 2), i))
    out = []
    searched: dict[tuple[object, ...], str] = {}  # each distinct sentence made once
    compared = {True: _("The tutorial's own arithmetic, shown for comparison; not budgeted."),
                False: _("Kept for comparison (role compare); not budgeted.")}
    no_fit = _("Not budgeted: no configuration searched meets its targets ({bottleneck}).")
    no_price = _("Not budgeted: the price book has no price for this GPU at this basis "
                 "(no_price); add one with --prices or type gpu_hour_price.")
    not_chosen = _("Not chosen: {extra}/month ({share}) more than \"{best}\", the cheapest "
                   "option of workload \"{workload}\" that meets its targets.")
    chosen = _("Chosen: the cheapest of {n} options of workload \"{workload}\" that meet their "
               "targets.")
    the_next = _("The next, \"{rival}\", costs {extra}/month ({share}) more.")
    as_given = _("Budgeted as given.")
    evaluated = search.evaluated.tolist()
    state = status.tolist()
    for i in range(len(names)):
        if state[i] == COMPARE:
            out.append(compared[methods[i] == "tutorial"])
            continue
        if state[i] == NO_FIT:
            out.append(no_fit.format(bottleneck=bottlenecks[i]))
            continue
        if state[i] == NO_PRICE:
            out.append(no_price)
            continue
        ranked = competing.get(keys[i], [])
        best = next((j for j in ranked if state[j] == CHOSEN), None)
        if state[i] == OPTION and best is not None:
            extra = costs[i] - costs[best]
            out.append(not_chosen.format(
                extra=_money(extra), share=_share(extra, costs[best]), best=names[best],
                workload=workloads[i]))
            continue
        parts = []
        if options.get(keys[i], 0) > 1:
            parts.append(chosen.format(n=options[keys[i]], workload=workloads[i]))
            rival = next((j for j in ranked if j != i), None)
            if rival is not None:
                extra = costs[rival] - costs[i]
                parts.append(the_next.format(rival=names[rival], extra=_money(extra),
                                             share=_share(extra, costs[i])))
        facts = (evaluated[i], search.searched[i], float(runner_cost[i]), costs[i],
                 options.get(keys[i], 0) > 1)
        sentence = searched.get(facts)
        if sentence is None:
            sentence = searched[facts] = _searched_sentence(*facts)
        parts.append(sentence)
        out.append(" ".join(p for p in parts if p) or as_given)
    return out


def decision_sentences(results: pd.DataFrame, search: Search) -> list[str]:
    """Each row's ``decision`` in the active language (the results hold them in English, as
    :func:`decide` wrote them)."""
    return _sentences(results, results["status"].to_numpy(dtype=object), search,
                      results["runner_up_monthly_cost"].to_numpy(dtype=float))


def _searched_sentence(evaluated: int, columns: tuple[str, ...], runner_cost: float,
                       cost: float, several_rows: bool) -> str:
    if evaluated <= 1:
        return ""
    searched = ", ".join(columns)
    if not np.isfinite(runner_cost):
        tail = ""
    elif round(runner_cost - cost, 2) > 0:
        margin = runner_cost - cost
        tail = _("; the runner-up costs {margin}/month ({share}) more").format(
            margin=_money(margin), share=_share(margin, cost))
    else:
        tail = _("; the runner-up costs the same, and this one wins the tie (no more GPUs, "
                 "pipeline stages or time per token)")
    sentence = (_("Cheapest of {n} configurations searched ({searched}) within the row{tail}.")
                if several_rows else
                _("Cheapest of {n} configurations searched ({searched}){tail}."))
    return sentence.format(n=evaluated, searched=searched, tail=tail)


def as_typed(scenarios: pd.DataFrame, specs: pd.DataFrame, best: pd.DataFrame) -> pd.DataFrame:
    """Each row as typed, made concrete: a listed column at its first value, an ``auto`` GPU at
    the one chosen, other ``auto`` columns at their default (as shipped; vLLM; pp 1), a blank tp
    left blank (the registry's quick rule: the smallest tp that leaves half the memory free)."""
    frame = scenarios.copy()
    for c in CONFIG:
        if c not in specs:
            continue
        spec = specs[c].to_numpy(dtype=object)
        listed = np.array([s.split("|")[0] if s and s != "auto" else "" for s in spec],
                          dtype=object)
        auto = spec == "auto"
        if c == "gpu":
            values = np.where(auto, best["gpu"].to_numpy(dtype=object), listed)
        elif c == "engine":
            values = np.where(auto, "vllm", listed)
        else:
            values = listed
        given = spec != ""
        if c in ("tp", "pp", "attention_dp"):
            numbers = np.array([float(v) if v else np.nan for v in values])
            frame[c] = np.where(given, numbers, frame[c].to_numpy(dtype=float))
        else:
            frame[c] = np.where(given, values, frame[c].to_numpy(dtype=object))
    return frame
