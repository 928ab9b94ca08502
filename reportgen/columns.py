"""The columns of a plan's results table: every quantity of the registry, then the decision
columns of :mod:`reportgen.choose`, each with its unit and meaning."""

from __future__ import annotations

from reportgen.choose import DECISION_COLUMNS, DECISION_DOCS, DECISION_UNITS
from reportgen.engine import RESULT_COLUMNS
from reportgen.quantities import REGISTRY

OUTPUT_COLUMNS: tuple[str, ...] = (*RESULT_COLUMNS, *DECISION_COLUMNS)


def unit_of(name: str) -> str:
    """The unit of a results column."""
    return REGISTRY[name].unit if name in REGISTRY else DECISION_UNITS[name]


def doc_of(name: str) -> str:
    """The meaning of a results column, in one line."""
    return REGISTRY[name].doc if name in REGISTRY else DECISION_DOCS[name]
