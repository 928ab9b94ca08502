"""The quantity registry (see registry.py for the rules), in dependency order.

Modules are imported in the order a reader follows the method; that order is also the column
order of the results and the workbook's Plan sheet wherever dependencies allow.
"""

# isort: off
from reportgen.quantities import (  # noqa: F401
    inputs, memory, timing, batch, latency, breakdown, billing, fleet, queueing, band, notes,
)
from reportgen.quantities.registry import REGISTRY, Quantity, finalize, input_kind

# isort: on

finalize()

__all__ = ["REGISTRY", "Quantity", "input_kind"]
