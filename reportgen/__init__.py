"""reportgen: how many GPUs an LLM service needs, what they cost, and why.

Scenario files (CSV/XLSX) in; an Excel budget workbook with live formulas, a PDF report and a
results CSV out. The engine is a roofline model of LLM serving (see docs/method.md), vectorised over
scenarios and defined once per quantity in the registry (reportgen.quantities).
"""

__version__ = "0.1.0"

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# Where each public name lives. Imported on first use, so that the command line starts without
# pandas and the engine (`reportgen --help` needs neither).
_HOME = {
    "RESULT_COLUMNS": "engine", "Tables": "engine", "estimate": "engine",
    "InputError": "errors", "OutputError": "errors", "ReportgenError": "errors",
    "ScenarioFileError": "errors", "ScenarioValidationError": "errors",
    "OUTPUT_COLUMNS": "pipeline", "BuildOptions": "pipeline", "BuildResult": "pipeline",
    "build": "pipeline", "load": "pipeline", "make_plan": "pipeline",
    "Plan": "plan", "Provenance": "plan",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'reportgen' has no attribute {name!r}")
    value = getattr(import_module(f"reportgen.{home}"), name)
    globals()[name] = value
    return value


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
