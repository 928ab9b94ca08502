"""How each unit is shown: one table for the PDF (Python format) and the workbook (number format).

Both renderers format numbers through this table, so a cost reads the same in Excel and in the
PDF: same decimals, thousands separators and currency.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from reportgen.i18n import usd


@dataclass(frozen=True)
class Format:
    """Display of one unit: decimals, Excel number format, suffix shown after PDF numbers."""

    decimals: int
    excel: str
    suffix: str = ""
    percent: bool = False
    currency: bool = False
    scale: int = 0  # shown in 10^scale (a multiple of 3): the label names the scaled unit


_INT = Format(0, "#,##0")
FORMATS: dict[str, Format] = {
    "text": Format(0, "@"),
    "flag": Format(0, "0"),
    "row": Format(0, "0"),
    "req/s": Format(2, "#,##0.00", " req/s"),
    "tokens": Format(0, "#,##0", " tokens"),
    "token pairs": Format(0, "#,##0", " token pairs"),
    "sequences": Format(0, "#,##0"),
    "count": Format(0, "#,##0"),
    "fraction": Format(1, "0.0%", percent=True),
    "×": Format(2, '0.00"×"', "×"),
    "B params": Format(2, "#,##0.00", " B"),
    "layers": _INT,
    "heads": _INT,
    "elements": _INT,
    "GiB": Format(2, "#,##0.00", " GiB"),
    "TB/s": Format(2, "0.00", " TB/s"),
    "TFLOP/s": Format(1, "#,##0.0", " TFLOP/s"),
    "FLOP": _INT,
    # Each trailing comma of a number format divides by 1,000: 1.2E+15 FLOP/s shows 1,200.0
    # under a "(TFLOP/s)" label, 3.1E+12 bytes/s shows 3,100.0 under "(GB/s)".
    "FLOP/s": Format(1, "#,##0.0,,,,", " TFLOP/s", scale=12),
    "bytes": Format(1, "0.0", " bytes"),
    "bytes/s": Format(1, "#,##0.0,,,", " GB/s", scale=9),
    "bytes/token": Format(0, "#,##0", " B/token"),
    "ms": Format(1, "#,##0.0", " ms"),
    "s": Format(3, "0.000", " s"),
    "s/token": Format(9, "0.00E+00", " s/token"),
    "s/sequence": Format(9, "0.00E+00", " s/seq"),
    "GPUs": _INT,
    "stages": _INT,
    "chunks": _INT,
    "GB/s": Format(1, "#,##0.0", " GB/s"),
    "us": Format(1, "#,##0.0", " µs"),
    "instances": _INT,
    "nodes": _INT,
    "kW": Format(1, "#,##0.0", " kW"),
    "W": Format(0, "#,##0", " W"),
    "ratio": Format(2, "#,##0.00"),
    "tokens/s/GPU": Format(0, "#,##0", " tok/s/GPU"),
    "USD/GPU-h": Format(2, '"$"#,##0.00', currency=True),
    "USD/unit-h": Format(2, '"$"#,##0.00', currency=True),
    "billed units": _INT,
    "quarters": _INT,
    "replicas": Format(2, "#,##0.##"),
    "copies": Format(2, "#,##0.##"),
    "USD/month": Format(0, '"$"#,##0', currency=True),
    "USD/year": Format(0, '"$"#,##0', currency=True),
    "USD/quarter": Format(0, '"$"#,##0', currency=True),
    "USD one-off": Format(0, '"$"#,##0', currency=True),
    "USD/1M tokens": Format(2, '"$"#,##0.00', currency=True),
    "h/month": _INT,
    "months/year": _INT,
    "s/h": _INT,
    "bytes/GiB": _INT,
    "GiB/GPU": Format(1, "#,##0.0", " GiB"),
    # quarterly review (reportgen review)
    "USD": Format(2, '"$"#,##0.00', currency=True),
    "USD/day": Format(0, '"$"#,##0', currency=True),
    "instance-hours": Format(1, "#,##0.0", " instance-h"),
    "minutes": Format(0, "#,##0", " min"),
    "per 1k requests": Format(1, "#,##0.0", " per 1k req"),
    "USD/window": Format(0, '"$"#,##0', currency=True),
    "GPU-h": Format(0, "#,##0", " GPU-h"),
    "requests": Format(0, "#,##0", " requests"),
    "%/month": Format(1, '0.0%', percent=True),
}


def excel_format(unit: str) -> str:
    """The workbook number format for a unit (money with the active language's dollar sign)."""
    fmt = FORMATS[unit]
    return fmt.excel.replace('"$"', f'"{usd()}"') if fmt.currency else fmt.excel


def format_value(value: object, unit: str, *, with_unit: bool = False) -> str:
    """A value as the PDF shows it: rounded like the workbook, thousands separated."""
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    fmt = FORMATS[unit]
    number = float(value) / 10**fmt.scale  # type: ignore[arg-type]
    if fmt.percent:
        return f"{number * 100:,.{fmt.decimals}f}%"
    if fmt.excel.endswith("E+00"):
        return f"{number:.2e}"
    text = f"{number:,.{fmt.decimals}f}"
    if fmt.currency:
        sign = usd()
        return ("-" + sign + text[1:]) if text.startswith("-") else sign + text
    return text + (fmt.suffix if with_unit else "")
