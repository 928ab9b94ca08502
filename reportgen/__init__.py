"""reportgen: how many GPUs an LLM service needs, what they cost, and why.

Scenario files (CSV/XLSX) in; an Excel budget workbook with live formulas, a PDF report and a
results CSV out. The engine is a roofline model of LLM serving (see MODEL.md), vectorised over
scenarios and defined once per quantity in the registry (reportgen.quantities).
"""

__version__ = "0.1.0"

from reportgen.engine import RESULT_COLUMNS, Tables, estimate
from reportgen.errors import (
    InputError,
    OutputError,
    ReportgenError,
    ScenarioFileError,
    ScenarioValidationError,
)
from reportgen.pipeline import (
    OUTPUT_COLUMNS,
    BuildOptions,
    BuildResult,
    build,
    load,
    make_plan,
)
from reportgen.plan import Plan, Provenance

__all__ = [
    "OUTPUT_COLUMNS",
    "RESULT_COLUMNS",
    "BuildOptions",
    "BuildResult",
    "InputError",
    "OutputError",
    "Plan",
    "Provenance",
    "ReportgenError",
    "ScenarioFileError",
    "ScenarioValidationError",
    "Tables",
    "__version__",
    "build",
    "estimate",
    "load",
    "make_plan",
]
