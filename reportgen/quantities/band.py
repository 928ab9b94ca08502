"""The error band: how wrong the plan may be, from the calibration's spread.

The efficiency table carries, per GPU family and precision, the 10th and 90th percentiles of
measured ÷ predicted throughput on the public measurements it was fitted to. A fleet sized for
throughput r × the prediction needs 1/r the instances, which gives the low and high GPU counts.
"""

from __future__ import annotations

import numpy as np

from reportgen.quantities.billing import billed_units_of
from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, ceil_snapped


@quantity(
    "GPUs",
    "IF({in_plan_total}=1,MAX(ROUNDUP(ROUND({concurrency}/{batch}*{safety_factor}"
    "/{eff__throughput_ratio_p90},9),0)+{spare_replicas},{min_replicas})*{gpus_per_instance},"
    "{gpus})",
)
def gpus_low(
    in_plan_total: Array,
    concurrency: Array,
    batch: Array,
    safety_factor: Array,
    eff__throughput_ratio_p90: Array,
    spare_replicas: Array,
    min_replicas: Array,
    gpus_per_instance: Array,
    gpus: Array,
) -> Array:
    """GPUs if real throughput is at the 90th percentile of measured ÷ predicted (same
    redundancy)."""
    replicas = ceil_snapped(concurrency / batch * safety_factor / eff__throughput_ratio_p90)
    low = np.maximum(replicas + spare_replicas, min_replicas) * gpus_per_instance
    return np.where(in_plan_total == 1, low, gpus)


@quantity(
    "GPUs",
    "IF({in_plan_total}=1,MAX(ROUNDUP(ROUND({concurrency}/{batch}*{safety_factor}"
    "/{eff__throughput_ratio_p10},9),0)+{spare_replicas},{min_replicas})*{gpus_per_instance},"
    "{gpus})",
)
def gpus_high(
    in_plan_total: Array,
    concurrency: Array,
    batch: Array,
    safety_factor: Array,
    eff__throughput_ratio_p10: Array,
    spare_replicas: Array,
    min_replicas: Array,
    gpus_per_instance: Array,
    gpus: Array,
) -> Array:
    """GPUs if real throughput is at the 10th percentile of measured ÷ predicted (same
    redundancy)."""
    replicas = ceil_snapped(concurrency / batch * safety_factor / eff__throughput_ratio_p10)
    high = np.maximum(replicas + spare_replicas, min_replicas) * gpus_per_instance
    return np.where(in_plan_total == 1, high, gpus)


_BILLED_LOW_XL = ("*{price_per_unit}*{HOURS_PER_MONTH}")


def _band_cost_xl(gpus_name: str) -> str:
    from reportgen.quantities.billing import BILLED_UNITS_XL

    instances = f"({{{gpus_name}}}/{{gpus_per_instance}})"
    units = BILLED_UNITS_XL.replace("INSTANCES", instances).replace("GPUS", f"{{{gpus_name}}}")
    return units + _BILLED_LOW_XL


@quantity("USD/month", _band_cost_xl("gpus_low"))
def monthly_cost_low(price_unit: Array, tp: Array, billed_unit_gpus: Array, gpus_low: Array,
                     gpus_per_instance: Array, pp: Array, price_per_unit: Array,
                     HOURS_PER_MONTH: float) -> Array:
    """Monthly cost (as billed) at the low end of the error band."""
    units = billed_units_of(gpus_low / gpus_per_instance, tp, pp, gpus_low, price_unit,
                            billed_unit_gpus)
    return units * price_per_unit * HOURS_PER_MONTH


@quantity("USD/month", _band_cost_xl("gpus_high"))
def monthly_cost_high(price_unit: Array, tp: Array, billed_unit_gpus: Array, gpus_high: Array,
                      gpus_per_instance: Array, pp: Array, price_per_unit: Array,
                      HOURS_PER_MONTH: float) -> Array:
    """Monthly cost (as billed) at the high end of the error band."""
    units = billed_units_of(gpus_high / gpus_per_instance, tp, pp, gpus_high, price_unit,
                            billed_unit_gpus)
    return units * price_per_unit * HOURS_PER_MONTH
