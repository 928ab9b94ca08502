"""The Options sheet: the best configurations of every row that searches, as live registry rows
ranked live.

One sheet row per option: every quantity in its Plan column (so the same formulas read the
same way), the option's configuration after them (``planned_<input>``), then ``option_of`` (the
Scenarios row it plans), ``preference`` (0, or 1 for a pipeline-parallel option of a row whose
pp is blank: used only when nothing single-node fits) and ``rank``: 1 + the number of options of
the same row that beat it — meeting every target first, then the preference, the lower monthly
cost (to the cent), fewer GPUs, fewer pipeline stages, the lower TPOT, the earlier option. The
Plan row's ``planned_<input>`` cells read its rank-1 option, so an edited price, QPS or target
can change the configuration the plan budgets, as the engine would. The rule is search.py's
ranking.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
from openpyxl.worksheet.worksheet import Worksheet

from reportgen import schema
from reportgen.choose import GUARDS as PLAN_GUARDS
from reportgen.choose import compared
from reportgen.engine import estimate
from reportgen.i18n import N_, _
from reportgen.plan import Plan
from reportgen.render.cells import NOTE_FONT, set_formula, set_text, set_value
from reportgen.render.layout import (
    FIRST_ROW,
    FREEZE,
    OPTIONS,
    PLANNED_PREFIX,
    Layout,
    letter,
    sheet_ref,
)
from reportgen.render.registry_rows import (
    column_index,
    group_formula,
    size_variant_columns,
    variant_header,
    write_quantities,
)
from reportgen.render.xlsx_cache import CachedValue
from reportgen.search import CONFIG, KEEP, concrete, engine_inputs
from reportgen.xlfuncs import xl_round

# Each option's figures as the ranking compares them, never an error, so that an option whose
# formulas fail (a scenario cleared or given a name no catalog row has) ranks last among its
# scenario's options and cannot turn the other scenarios' ranks into errors.
# The notes are English, translated where written (choose.GUARDS' notes come from choose.py).
GUARDS: tuple[tuple[str, str, str], ...] = (
    ("ranked_ok", "IFERROR({in_plan_total}*{priced},0)",
     N_("1 when the option meets its targets and has a price (0 where its formulas fail).")),
    ("ranked_cost", "IFERROR(ROUND({monthly_cost},2),0)",
     N_("[USD/month] The monthly cost (to cents) the ranking compares (0 where it fails).")),
    *((name, template, note) for name, template, note in PLAN_GUARDS if name != "ranked_cost"),
)
MAX_OPTION_ROWS = 2_000  # fewer options per row when many rows search, so the sheet stays usable
EXTRA: tuple[tuple[str, str], ...] = (
    ("option_of", N_("The Scenarios row this option plans (and Plan row that may budget it).")),
    ("preference", N_("0, or 1 for a pipeline-parallel option of a row whose pp is blank "
                      "(planned only when nothing single-node meets the targets).")),
    ("rank", N_("1 for the option the Plan row plans: meets every target first, then "
                "preference, lower monthly cost (to the cent), fewer GPUs, fewer pipeline "
                "stages, lower TPOT, the earlier option.")),
    ("knee_rps", N_("Blank on purpose: options are ranked on the closed form, as the search "
                    "ranks them; a knee is simulated for one configuration and applies only on "
                    "the Plan row that budgets it.")),
    *((name, note) for name, _template, note in GUARDS),
)
_EARLIER = "(ROW({option_of[]})<ROW({option_of}))"
_TPOT = f"(({{ranked_tpot[]}}<{{ranked_tpot}})+({{ranked_tpot[]}}={{ranked_tpot}})*{_EARLIER})"
_STAGES = f"(({{ranked_pp[]}}<{{ranked_pp}})+({{ranked_pp[]}}={{ranked_pp}})*{_TPOT})"
_GPUS = f"(({{ranked_gpus[]}}<{{ranked_gpus}})+({{ranked_gpus[]}}={{ranked_gpus}})*{_STAGES})"
_COST = f"(({{ranked_cost[]}}<{{ranked_cost}})+({{ranked_cost[]}}={{ranked_cost}})*{_GPUS})"
# An option competes on cost when it meets its targets and has a price (search.py: feasible
# and priced).
_OK = "{ranked_ok}"
_OK_ALL = "{ranked_ok[]}"
_AMONG_EQUALS = f"({_OK}*{_COST}+(1-{_OK})*{_EARLIER})"
_PREFERENCE = (
    f"(({{preference[]}}<{{preference}})+({{preference[]}}={{preference}})*{_AMONG_EQUALS})"
)
_BEATS = (
    f"(({_OK_ALL}>{_OK})"
    f"+({_OK_ALL}={_OK})*{_PREFERENCE})"
)
# 1 + how many options of the same row beat this one (search.py's ranking, as a formula).
RANK_XL = f"1+SUMPRODUCT(({{option_of[]}}={{option_of}})*{_BEATS})"
NOTE = N_(
    "Each row plans one configuration of a scenario that searches (auto, a list, or a blank "
    "tp) with live formulas; rank 1 is what the scenario's Plan row budgets. Edit Scenarios or "
    "a price on the GPUs sheet (price_usd) and the ranks follow. Shown: the best {keep} options "
    "of each scenario."
)


def option_guards(results: pd.DataFrame) -> pd.DataFrame:
    """What the GUARDS columns hold for options whose formulas do not fail."""
    return pd.DataFrame({
        "ranked_ok": (results["in_plan_total"] * results["priced"]).to_numpy(dtype=float),
        "ranked_cost": xl_round(results["monthly_cost"].to_numpy(dtype=float), 2),
        **compared(results),
    }, index=results.index)


def option_rows(plan: Plan) -> pd.DataFrame:
    """The options the sheet shows: the best of every searching row, best first per row."""
    searching = [i for i, cols in enumerate(plan.search.searched) if cols]
    if not searching:
        return plan.search.kept.iloc[0:0]
    per_row = max(2, min(KEEP, MAX_OPTION_ROWS // len(searching)))
    kept = plan.search.kept
    shown = kept[kept["row"].isin(searching) & (kept["rank"] <= per_row)]
    return shown.sort_values(["row", "rank"]).reset_index(drop=True)


def extra_columns(layout: Layout) -> dict[str, str]:
    """Column letters of the planned inputs and the option columns on Options."""
    planned = {c: layout.plan_cols[PLANNED_PREFIX + c] for c in CONFIG}
    after = max(column_index(col) for col in planned.values()) + 1
    extra = {name: letter(after + k) for k, (name, _note) in enumerate(EXTRA)}
    return {**{PLANNED_PREFIX + c: col for c, col in planned.items()}, **extra}


def planned_reader(options: pd.DataFrame, layout: Layout) -> Callable[[str, int], str]:
    """The formula a Plan row's ``planned_<input>`` cell holds: the input of its rank-1 option."""
    cols = extra_columns(layout)
    last = FIRST_ROW + max(len(options), 1) - 1
    sheet = sheet_ref(OPTIONS)

    def column(name: str) -> str:
        return f"{sheet}${cols[name]}${FIRST_ROW}:${cols[name]}${last}"

    def formula(input_name: str, plan_row: int) -> str:
        of, rank = column("option_of"), column("rank")
        first = f"{sheet}${cols['option_of']}${FIRST_ROW}"
        position = f"SUMPRODUCT(({of}={plan_row})*({rank}=1)*(ROW({of})-ROW({first})+1))"
        text = "" if input_name in schema.NUMBER_COLUMNS else '&""'  # a blank option reads ""
        return f"=INDEX({column(PLANNED_PREFIX + input_name)},{position}){text}"

    return formula


def write_options(ws: Worksheet, layout: Layout, plan: Plan,
                  options: pd.DataFrame) -> dict[str, CachedValue]:
    """The option rows with their live ranks; returns the formulas' cached values."""
    cols = extra_columns(layout)
    extra = {cols[PLANNED_PREFIX + c]: (PLANNED_PREFIX + c,
                                        _("The {input} this option plans.").format(input=c))
             for c in CONFIG}
    extra.update({cols[name]: (name, _(note)) for name, note in EXTRA})
    variant_header(ws, layout, extra)
    values: dict[str, CachedValue] = {}
    if options.empty:
        set_text(ws.cell(row=FIRST_ROW, column=1), _("No scenario searches its configuration."))
        ws.cell(row=FIRST_ROW, column=1).font = NOTE_FONT
        return values
    typed = plan.typed
    if "knee_rps" in typed.columns:  # ranked on the closed form (the KNEE note above)
        typed = typed.assign(knee_rps=float("nan"))
    results = estimate(concrete(typed, options), plan.tables)
    planned = engine_inputs(options)
    own = {c: cols[PLANNED_PREFIX + c] for c in CONFIG}
    own["knee_rps"] = cols["knee_rps"]
    last = FIRST_ROW + len(options) - 1
    group_cols = {**layout.plan_cols, **cols}
    guarded = option_guards(results)
    for k in range(len(options)):
        r = FIRST_ROW + k
        option = options.iloc[k]
        source = FIRST_ROW + int(option["row"])
        write_quantities(ws, r, layout.row_resolver(r, source, own), results.iloc[k], layout,
                         values)
        for c in CONFIG:
            set_value(ws[f"{own[c]}{r}"], planned[c][k])
        set_value(ws[f"{cols['option_of']}{r}"], source)
        set_value(ws[f"{cols['preference']}{r}"], int(option["preference"]))
        for name, template, _note in GUARDS:
            cell = ws[f"{cols[name]}{r}"]
            set_formula(cell, group_formula(template, group_cols, FIRST_ROW, last, r))
            values[cell.coordinate] = float(guarded[name].iloc[k])
        cell = ws[f"{cols['rank']}{r}"]
        set_formula(cell, group_formula(RANK_XL, group_cols, FIRST_ROW, last, r))
        values[cell.coordinate] = float(option["rank"])
    note_row = last + 2
    per_row = int(options.groupby("row").size().max())
    set_text(ws.cell(row=note_row, column=1), _(NOTE).format(keep=per_row))
    ws.cell(row=note_row, column=1).font = NOTE_FONT
    ws.freeze_panes = FREEZE
    size_variant_columns(ws, layout, cols)
    return values
