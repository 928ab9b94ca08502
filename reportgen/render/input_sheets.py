"""The sheets that hold data, not formulas: Scenarios (the inputs), Assumptions (named constants)
and the lookup tables (GPUs, Models, Efficiency)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.workbook.workbook import Workbook
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.worksheet import Worksheet

from reportgen import schema
from reportgen.i18n import N_, _
from reportgen.render.cells import (
    FIXED_FILL,
    INPUT_FILL,
    labelled_header,
    number_format,
    set_formula,
    set_text,
    set_value,
    set_widths,
)
from reportgen.render.layout import (
    ASSUMPTIONS,
    FIRST_ROW,
    FREEZE,
    LOOKUP_SHEETS,
    Layout,
    check_defined_name,
    column_range,
    letter,
    sheet_ref,
)
from reportgen.render.xlsx_cache import CachedValue
from reportgen.units import CONSTANTS
from reportgen.validate import MIN_POSITIVE

_TABLE_WIDTH_CAP = 40.0
# Excel's limits on a data validation's texts (longer ones make Excel repair the file).
TITLE_MAX = 32
MESSAGE_MAX = 255

# How schema.COLUMNS reads a blank cell, in words (Column.default): translated where shown. A
# default not listed here (a number, a machine name, a constant) shows as it is.
DEFAULT_WORDS: frozenset[str] = frozenset({
    N_("auto: the cheapest"),
    N_("1 (more only when nothing fits)"),
    N_("as shipped (the checkpoint's own precision)"),
    N_("as shipped (the checkpoint's activation precision)"),
    N_("no target"),
    N_("1 (Poisson)"),
    N_("simulated when a percentile target is given"),
    N_("the price book's price at --price-basis (reportgen/data/prices.csv)"),
    N_("2 for plan rows, 1 for compare rows"),
    N_("calibrated for the GPU family and precision"),
    N_("catalog"),
    N_("catalog (= params_b for dense)"),
    N_("the scenario name"),
    N_("plan (compare for tutorial-method rows)"),
})


def _default_words(col: schema.Column) -> str:
    return _(col.default) if col.default in DEFAULT_WORDS else col.default


def _allowed(col: schema.Column) -> str:
    """The allowed values in words, in the reader's language (schema.Column.allowed in
    English)."""
    if col.searchable:
        if col.choices:
            return _("one of {choices}, {auto}, or a list such as {example}").format(
                choices=", ".join(col.choices), auto=schema.AUTO, example=col.example())
        return _("a catalog name, {auto}, or a list such as {example}").format(
            auto=schema.AUTO, example=col.example())
    if col.choices:
        return _("one of {choices}").format(choices=", ".join(col.choices))
    if col.type == "text":
        return _("text")
    sign = ">" if col.above_minimum else "≥"
    low = "" if col.minimum is None else f"{sign} {schema._number(col.minimum)}"
    high = "" if col.maximum is None else f"≤ {schema._number(col.maximum)}"
    if low and high:
        words = (_("a whole number {low} and {high}") if col.integer
                 else _("a number {low} and {high}"))
        return words.format(low=low, high=high)
    if low or high:
        words = _("a whole number {bound}") if col.integer else _("a number {bound}")
        return words.format(bound=low or high)
    return _("a whole number") if col.integer else _("a number")


def _column_note(col: schema.Column) -> str:
    unit = f"[{col.unit}] " if col.unit else ""
    if col.default and not col.required:
        note = _("{help} Allowed: {allowed}. Blank: {default}.").format(
            help=_(col.help), allowed=_allowed(col), default=_default_words(col))
    else:
        note = _("{help} Allowed: {allowed}.").format(help=_(col.help), allowed=_allowed(col))
    return unit + note


def _title(text: str, fallback: str) -> str:
    """A data validation's title, or ``fallback`` where Excel's 32 characters are too few."""
    return text if len(text) <= TITLE_MAX else fallback[:TITLE_MAX]


def _message(text: str) -> str:
    """A data validation's message, cut to Excel's 255 characters."""
    return text if len(text) <= MESSAGE_MAX else text[: MESSAGE_MAX - 1] + "…"


def _list_validation(source: str, what: str) -> DataValidation:
    dv = DataValidation(type="list", formula1=source, allow_blank=True)
    dv.showErrorMessage = True
    dv.errorTitle = _title(_("Unknown {name}").format(name=what), _("Unknown value"))
    dv.error = _("Pick a value of {name} from the list (the dropdown arrow on the cell).").format(
        name=what)
    dv.showInputMessage = True
    dv.promptTitle = what[:TITLE_MAX]
    dv.prompt = _message(_("Choose a {name}; blank uses the default.").format(name=what))
    return dv


def _literal(x: float) -> str:
    """A number as a formula literal without exponent (1000000, 0.99)."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _bounds_validation(col: schema.Column) -> DataValidation | None:
    if col.choices or col.type != "number" or col.minimum is None or col.maximum is None:
        return None
    # "> 0" columns refuse 0 as the CLI does: their floor is the smallest value it accepts
    lower = (f"{MIN_POSITIVE:.6f}" if col.above_minimum and col.minimum == 0
             else _literal(col.minimum))
    dv = DataValidation(
        type="whole" if col.integer else "decimal",
        operator="between",
        formula1=lower,
        formula2=_literal(col.maximum),
        allow_blank=True,
    )
    dv.showErrorMessage = True
    dv.errorTitle = _title(_("{name} out of range").format(name=col.name), _("Out of range"))
    dv.error = _("{name}: {allowed} (blank for the default).").format(name=col.name,
                                                                       allowed=_allowed(col))
    return dv


def _validations(col: schema.Column, layout: Layout) -> DataValidation | None:
    dv: DataValidation | None
    if col.name in LOOKUP_SHEETS:  # model, gpu: the name column of their catalog sheet
        sheet = LOOKUP_SHEETS[col.name]
        last = FIRST_ROW + layout.table_rows[col.name] - 1
        dv = _list_validation(column_range(sheet, "A", FIRST_ROW, last), col.name)
    elif col.choices:
        dv = _list_validation('"' + ",".join(col.choices) + '"', col.name)
    else:
        dv = _bounds_validation(col)
    if dv is not None and col.searchable:
        # auto and lists (a|b) are searched when the file is built: warn, don't refuse
        dv.errorStyle = "warning"
        dv.error = _("{error} {auto} or a list such as {example} is searched when reportgen "
                     "builds the workbook; the sheet itself plans one value.").format(
            error=dv.error, auto=schema.AUTO, example=col.example())
    if dv is not None:
        dv.error = _message(dv.error)
    return dv


def write_scenarios(ws: Worksheet, scenarios: pd.DataFrame, specs: pd.DataFrame,
                    layout: Layout) -> None:
    """One row per scenario, one column per input (schema order), as the user typed it (the
    searched inputs as their spec: auto or a|b), then the layout's spare rows, blank; inputs
    look editable."""
    columns = schema.COLUMNS
    labelled_header(ws, [c.name for c in columns], [_column_note(c) for c in columns])
    for i, (_index, row) in enumerate(scenarios.iterrows()):
        r = FIRST_ROW + i
        for j, col in enumerate(columns, start=1):
            cell = ws.cell(row=r, column=j)
            spec = specs[col.name].iat[i] if col.name in specs else ""
            set_value(cell, spec or row[col.name])
            cell.fill = INPUT_FILL
            fmt = number_format(col.unit) if col.type == "number" else None
            if fmt:
                cell.number_format = fmt
    for r in layout.spare():  # room for scenarios added in the workbook: Plan covers them
        for j, col in enumerate(columns, start=1):
            cell = ws.cell(row=r, column=j)
            cell.fill = INPUT_FILL
            fmt = number_format(col.unit) if col.type == "number" else None
            if fmt:
                cell.number_format = fmt
    for col in columns:
        dv = _validations(col, layout)
        if dv is not None:
            letter = layout.scenario_cols[col.name]
            dv.add(f"{letter}{FIRST_ROW}:{letter}{layout.last_row}")
            ws.add_data_validation(dv)
    ws.freeze_panes = FREEZE
    set_widths(ws, [max(12.0, len(c.name) + 3.0) for c in columns])
    ws.column_dimensions["A"].width = 28


def write_assumptions(ws: Worksheet, wb: Workbook) -> None:
    """Every constant as a named, editable cell with unit, source, date and meaning."""
    labelled_header(ws, ["name", "value", "unit", "source", "date", "meaning"])
    for i, c in enumerate(CONSTANTS.values()):
        r = FIRST_ROW + i
        set_text(ws.cell(row=r, column=1), c.name)
        value = ws.cell(row=r, column=2)
        set_value(value, c.value)
        value.fill = INPUT_FILL if c.editable else FIXED_FILL
        fmt = number_format(c.unit)
        if fmt and not isinstance(c.value, str):
            value.number_format = fmt
        set_text(ws.cell(row=r, column=3), c.unit)
        set_text(ws.cell(row=r, column=4), _(c.source) if c.source else "")
        set_text(ws.cell(row=r, column=5), c.date)
        set_text(ws.cell(row=r, column=6),
                 _(c.doc) if c.editable else
                 _("{meaning} A definition, not an assumption: leave it.").format(
                     meaning=_(c.doc)))
        if c.unit == "flag":  # a switch: 1 on, 0 off, nothing else
            switch = DataValidation(type="list", formula1='"0,1"', allow_blank=False)
            switch.showErrorMessage = True
            switch.errorTitle = _title(_("{name} is a switch").format(name=c.name),
                                       _("A switch"))
            switch.error = _message(_("{name}: 1 (on) or 0 (off).").format(name=c.name))
            ws.add_data_validation(switch)
            switch.add(value.coordinate)
        check_defined_name(c.name)
        wb.defined_names[c.name] = DefinedName(c.name, attr_text=f"{sheet_ref(ASSUMPTIONS)}$B${r}")
    ws.freeze_panes = FREEZE
    set_widths(ws, [34, 14, 12, 60, 12, 80])


def write_table(ws: Worksheet, frame: pd.DataFrame, index_name: str,
                editable: Mapping[str, str] | None = None,
                derived: Mapping[str, str] | None = None) -> dict[str, CachedValue]:
    """A lookup table: the index in column A, then every column, one row per entry. Columns
    in ``editable`` (name → note) are signposted as inputs; columns in ``derived`` (name → a
    formula over the row's ``{field}`` cells) are live formulas with the table's value cached.
    Returns the formulas' cached values."""
    editable, derived = editable or {}, derived or {}
    names = [index_name, *(str(c) for c in frame.columns)]
    # the editable notes are marked where they are defined (N_) and translated here
    notes = [_(editable[n]) if editable.get(n) else
             _("= {formula} (a formula)").format(formula=derived[n]) if n in derived else ""
             for n in names]
    labelled_header(ws, names, notes)
    cols = {n: letter(j) for j, n in enumerate(names)}
    widths = [float(len(n) + 3) for n in names]
    values: dict[str, CachedValue] = {}
    for i, (key, row) in enumerate(frame.iterrows()):
        r = FIRST_ROW + i
        set_text(ws.cell(row=r, column=1), str(key))
        widths[0] = max(widths[0], len(str(key)) + 2.0)
        for j, (name, value) in enumerate(zip(names[1:], row.tolist(), strict=True), start=2):
            cell = ws.cell(row=r, column=j)
            if name in derived:
                refs = {field: f"{col}{r}" for field, col in cols.items()}
                set_formula(cell, "=" + derived[name].format(**refs))
                values[cell.coordinate] = float(value)
            else:
                set_value(cell, value)
            if name in editable:
                cell.fill = INPUT_FILL
            widths[j - 1] = max(widths[j - 1], min(len(str(value)) + 2.0, _TABLE_WIDTH_CAP))
    ws.freeze_panes = FREEZE
    set_widths(ws, widths)
    return values


def table_fields(frames: Mapping[str, pd.DataFrame]) -> dict[str, list[str]]:
    """Field names per lookup prefix, in sheet column order (B onwards)."""
    return {prefix: [str(c) for c in frame.columns] for prefix, frame in frames.items()}

