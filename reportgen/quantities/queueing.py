"""What sized the fleet: the closed form (mean targets), or queueing at the knee of percentile
targets (reportgen.simulate finds the knee; the Scenarios sheet holds it as an input)."""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, choose


@quantity(
    "text",
    'IF({method}="tutorial","tutorial",IF(ISBLANK({raw_knee_rps}),"closed form",'
    '"knee of the P99 targets"))',
    kind="text",
)
def sized_by(method: Array, raw_knee_rps: Array) -> Array:
    """What set the instances: the closed form (Little's Law at the operating batch, for mean
    targets), the knee of the P99 targets (queueing under random arrivals), or the tutorial's
    arithmetic."""
    return choose([method == "tutorial", np.isnan(raw_knee_rps)], ["tutorial", "closed form"],
                  "knee of the P99 targets")


@quantity("text", 'IF(ISBLANK({raw_knee_rps}),{bottleneck},"queueing")', kind="text")
def fleet_bottleneck(raw_knee_rps: Array, bottleneck: Array) -> Array:
    """What limits the fleet: queueing when the knee of the percentile targets sized it, else
    the operating batch's bottleneck."""
    return np.where(np.isnan(raw_knee_rps), bottleneck, "queueing").astype(object, copy=False)


@quantity("req/s", "IF(ISBLANK({raw_knee_rps}),0,{raw_knee_rps})")
def knee_rps_per_instance(raw_knee_rps: Array) -> Array:
    """The knee that sized the row: the highest request rate per instance meeting its P99
    targets (simulated, or typed from a load test); 0 when the closed form sized it."""
    return np.where(np.isnan(raw_knee_rps), 0.0, raw_knee_rps)
