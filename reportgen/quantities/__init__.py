"""The quantity registry, loaded in dependency order (see registry.py for the rules)."""

from reportgen.quantities import (  # noqa: F401  (import order = evaluation order)
    band,
    batch,
    fleet,
    inputs,
    latency,
    memory,
    notes,
    timing,
)
from reportgen.quantities.registry import REGISTRY, Quantity, input_kind

__all__ = ["REGISTRY", "Quantity", "input_kind"]
