"""The price book: what one GPU or one server costs, on which basis, where and since when.

A price book has one row per GPU and basis (``on_demand``, ``reserved_1y``, ``reserved_3y``,
``spot``, ``capacity_block``, ``purchase``), the unit the price is quoted in (``gpu_hour``: one
GPU for one hour; ``node_hour``: one instance or server of ``gpus_per_unit`` GPUs for one hour;
``node_capex``: buying that server), the price, currency, region, provider, instance type or
server SKU, the term, the source and its date. The shipped default is
``reportgen/data/prices.csv``; ``--prices FILE`` (CSV or XLSX) or a ``Prices`` sheet in the
scenario workbook replaces it.

The plan prices every GPU at one basis (``--price-basis``, default on_demand): the chosen row of
each GPU is joined to the GPU catalog as its ``price_*`` fields, which the registry reads
(``price_per_unit``, ``billed_units``, ``monthly_cost``) and the workbook's GPUs sheet shows, so
an edited price recalculates the workbook. A GPU the book has no row for at that basis gets
``price_status`` ``no_price`` and is never budgeted; a price dated more than
``STALE_AFTER_MONTHS`` before the plan's date is ``stale``, one without a date ``undated``.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from reportgen.errors import InputError

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "prices.csv"
PRICES_SHEET = "Prices"
BASES: tuple[str, ...] = (
    "on_demand", "reserved_1y", "reserved_3y", "spot", "capacity_block", "purchase",
)
RENTAL_BASES: tuple[str, ...] = tuple(b for b in BASES if b != "purchase")
UNITS: tuple[str, ...] = ("gpu_hour", "node_hour", "node_capex")
DEFAULT_BASIS = "on_demand"
STALE_AFTER_MONTHS = 12
COLUMNS: tuple[str, ...] = (
    "gpu", "basis", "unit", "price", "currency", "region", "provider", "sku", "gpus_per_unit",
    "term_months", "source", "date", "notes",
)
REQUIRED: tuple[str, ...] = ("gpu", "basis", "unit", "price", "currency", "source")
# The fields the chosen row adds to each GPU catalog row (the GPUs sheet shows them).
GPU_PRICE_NUMERIC: tuple[str, ...] = (
    "price_usd", "price_unit_gpus", "price_per_gpu_hour", "price_term_months",
)
GPU_PRICE_FIELDS: tuple[str, ...] = (
    "price_basis", "price_unit", "price_usd", "price_unit_gpus", "price_per_gpu_hour",
    "price_currency", "price_region", "price_provider", "price_sku", "price_term_months",
    "price_source", "price_date", "price_status",
)
_DATE = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?$")


class PriceBookError(InputError):
    """A price book cannot be used: every problem, one per line."""

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        n = len(self.problems)
        lines = [f"{source} has {n:,} problem{'s' if n != 1 else ''}; nothing was written.",
                 *("  " + p for p in self.problems),
                 "A price book has one row per GPU and basis with the columns "
                 f"{', '.join(COLUMNS)} (reportgen/data/prices.csv is an example)."]
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class PriceBook:
    """Checked price rows (one per GPU and basis; GPU as its catalog name) and where they came
    from."""

    rows: pd.DataFrame
    source: str


def price_date(text: str) -> dt.date | None:
    """The date a price was quoted: YYYY-MM-DD, or YYYY-MM read as the month's first day."""
    match = _DATE.match(text.strip())
    if not match:
        return None
    year, month, day = int(match[1]), int(match[2]), int(match[3] or 1)
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def months_between(start: dt.date, end: dt.date) -> float:
    """Whole and part months from ``start`` to ``end`` (30.44 days a month)."""
    return (end - start).days / 30.436875


def _number(value: object) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        number = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _text(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def check_rows(records: Sequence[tuple[int, dict[str, object]]], source: str,
               resolve_gpu: Callable[[str], str]) -> PriceBook:
    """The price rows ``records`` (spreadsheet row number, cells by column) checked: every
    problem is collected and raised together as a :class:`PriceBookError`. ``resolve_gpu``
    maps a GPU name to its catalog name (raises LookupError for an unknown GPU)."""
    problems: list[str] = []
    out: list[dict[str, object]] = []
    seen: dict[tuple[str, str], int] = {}
    for row, cells in records:
        where = f"row {row}"
        values = {c: _text(cells.get(c)) for c in COLUMNS}
        if not any(values.values()):
            continue
        for column in REQUIRED:
            if not values[column]:
                problems.append(f"{where}, column {column}: blank; expected a value")
        gpu = values["gpu"]
        if gpu:
            try:
                gpu = resolve_gpu(gpu)
            except LookupError:
                problems.append(f"{where}, column gpu: {values['gpu']!r} is not a catalog GPU; "
                                "expected a name `reportgen catalog gpus` lists")
        basis = values["basis"].lower()
        if basis and basis not in BASES:
            problems.append(f"{where}, column basis: {values['basis']!r}; expected one of "
                            f"{', '.join(BASES)}")
        unit = values["unit"].lower()
        if unit and unit not in UNITS:
            problems.append(f"{where}, column unit: {values['unit']!r}; expected one of "
                            f"{', '.join(UNITS)}")
        if unit == "node_capex" and basis and basis != "purchase":
            problems.append(f"{where}: unit node_capex with basis {basis}; expected basis "
                            "purchase (a server bought), or an hourly unit")
        if basis == "purchase" and unit and unit != "node_capex":
            problems.append(f"{where}: basis purchase with unit {unit}; expected node_capex")
        price = _number(cells.get("price"))
        if values["price"] and (price is None or price < 0):
            problems.append(f"{where}, column price: {values['price']!r}; expected a number ≥ 0 "
                            "(the price per unit, without currency signs)")
        per_unit = _number(cells.get("gpus_per_unit")) if values["gpus_per_unit"] else 1.0
        if per_unit is None or per_unit < 1 or not float(per_unit).is_integer():
            problems.append(f"{where}, column gpus_per_unit: {values['gpus_per_unit']!r}; "
                            "expected a whole number ≥ 1 (GPUs in the priced instance/server)")
            per_unit = 1.0
        if unit == "gpu_hour" and per_unit != 1:
            problems.append(f"{where}: unit gpu_hour with gpus_per_unit {per_unit:g}; expected "
                            "1 (or unit node_hour for an instance of several GPUs)")
        term = _number(cells.get("term_months")) if values["term_months"] else 0.0
        if term is None or term < 0:
            problems.append(f"{where}, column term_months: {values['term_months']!r}; expected "
                            "a number of months ≥ 0 (0: no commitment)")
            term = 0.0
        if values["date"] and price_date(values["date"]) is None:
            problems.append(f"{where}, column date: {values['date']!r}; expected YYYY-MM-DD or "
                            "YYYY-MM (blank: undated, flagged in the report)")
        key = (str(gpu), basis)
        if gpu and basis and key in seen:
            problems.append(f"{where}: a second {basis} price for {gpu} (first on row "
                            f"{seen[key]}); expected one row per GPU and basis")
        seen.setdefault(key, row)
        out.append({**values, "gpu": gpu, "basis": basis, "unit": unit,
                    "price": price if price is not None else math.nan,
                    "gpus_per_unit": float(per_unit), "term_months": float(term),
                    "currency": values["currency"].upper()})
    if not out and not problems:
        problems.append("no price rows; expected one row per GPU and basis")
    currencies = sorted({str(r["currency"]) for r in out if r["currency"]})
    if len(currencies) > 1:
        problems.append(f"prices in several currencies ({', '.join(currencies)}); expected one "
                        "currency for the whole book (convert before planning)")
    if problems:
        raise PriceBookError(source, problems)
    return PriceBook(pd.DataFrame(out, columns=list(COLUMNS)), source)


def _records_of_table(header: Sequence[str], rows: Sequence[tuple[int, Sequence[object]]]
                      ) -> list[tuple[int, dict[str, object]]]:
    names = [h.strip().lower() for h in header]
    return [(n, {h: c for h, c in zip(names, cells, strict=False) if h}) for n, cells in rows]


def _check_header(header: Sequence[str], source: str) -> None:
    names = {h.strip().lower() for h in header}
    missing = [c for c in REQUIRED if c not in names]
    unknown = sorted(n for n in names - set(COLUMNS) if n)
    problems = []
    if missing:
        problems.append(f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    if unknown:
        problems.append(f"unknown column{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                        f"expected only {', '.join(COLUMNS)}")
    if problems:
        raise PriceBookError(source, problems)


def read_price_book(path: Path, resolve_gpu: Callable[[str], str]) -> PriceBook:
    """A price book file: CSV, or XLSX with a Prices sheet (else its first sheet)."""
    from reportgen.readers import read_table

    if not path.is_file():
        raise PriceBookError(str(path), ["no such file; give a price book (CSV or XLSX) such "
                                         "as reportgen/data/prices.csv"])
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        from reportgen.calibration.efficiency_file import _read_sheet

        table = _read_sheet(path, PRICES_SHEET) or read_table(path)
    else:
        table = read_table(path)
    _check_header(table.header, table.source)
    return check_rows(_records_of_table(table.header, table.rows), table.source, resolve_gpu)


def scenario_workbook_prices(path: Path, resolve_gpu: Callable[[str], str]) -> PriceBook | None:
    """The Prices sheet of a scenario workbook, if it has one."""
    from reportgen.calibration.efficiency_file import _read_sheet

    table = _read_sheet(path, PRICES_SHEET)
    if table is None:
        return None
    _check_header(table.header, table.source)
    return check_rows(_records_of_table(table.header, table.rows), table.source, resolve_gpu)


def shipped_price_book(resolve_gpu: Callable[[str], str]) -> PriceBook:
    """The default price book, reportgen/data/prices.csv."""
    raw = pd.read_csv(DATA_FILE, dtype=str, keep_default_na=False)
    records = [(i + 2, {str(k): v for k, v in row.items()})
               for i, row in enumerate(raw.to_dict("records"))]
    return check_rows(records, "reportgen/data/prices.csv", resolve_gpu)


def status(date_text: str, as_of: dt.date) -> str:
    """current, stale (more than STALE_AFTER_MONTHS before ``as_of``) or undated."""
    quoted = price_date(date_text)
    if quoted is None:
        return "undated"
    return "stale" if months_between(quoted, as_of) > STALE_AFTER_MONTHS else "current"


def no_price_fields(basis: str, book: PriceBook) -> dict[str, object]:
    """The price fields of a GPU the book has no price for at ``basis``."""
    return {"price_basis": basis, "price_unit": "gpu_hour", "price_usd": 0.0,
            "price_unit_gpus": 1.0, "price_per_gpu_hour": 0.0, "price_currency": "",
            "price_region": "", "price_provider": "", "price_sku": "",
            "price_term_months": 0.0,
            "price_source": f"no {basis} price in {book.source}", "price_date": "",
            "price_status": "no_price"}


def price_fields(gpus: pd.Index, book: PriceBook, basis: str, as_of: dt.date) -> pd.DataFrame:
    """Per catalog GPU (``gpus``, the catalog index): the GPU_PRICE_FIELDS of its ``basis``
    row in ``book`` (hourly bases; purchase prices feed buy-vs-rent, not the hourly plan)."""
    if basis not in RENTAL_BASES:
        raise ValueError(f"price basis {basis!r}: expected one of {', '.join(RENTAL_BASES)}")
    chosen = book.rows[book.rows["basis"] == basis].set_index("gpu")
    records = []
    for gpu in gpus:
        if gpu not in chosen.index or not math.isfinite(float(chosen.loc[gpu, "price"])):
            records.append(no_price_fields(basis, book))
            continue
        row = chosen.loc[gpu]
        per_unit = float(row["gpus_per_unit"]) if row["unit"] == "node_hour" else 1.0
        records.append({
            "price_basis": basis, "price_unit": str(row["unit"]),
            "price_usd": float(row["price"]), "price_unit_gpus": per_unit,
            "price_per_gpu_hour": float(row["price"]) / per_unit,
            "price_currency": str(row["currency"]), "price_region": str(row["region"]),
            "price_provider": str(row["provider"]), "price_sku": str(row["sku"]),
            "price_term_months": float(row["term_months"]), "price_source": str(row["source"]),
            "price_date": str(row["date"]), "price_status": status(str(row["date"]), as_of),
        })
    return pd.DataFrame(records, index=gpus, columns=list(GPU_PRICE_FIELDS))
