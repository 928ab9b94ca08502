"""The error band: how wrong the plan may be, from the calibration's spread.

The efficiency table carries, per GPU family and precision, the 10th and 90th percentiles of
measured ÷ predicted throughput on the public measurements it was fitted to. A fleet sized for
throughput r × the prediction needs 1/r the instances, which gives the low and high GPU counts.
"""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, ceil_snapped


@quantity(
    "GPUs",
    "IF({in_plan_total}=1,ROUNDUP(ROUND({concurrency}/{batch}*{safety_factor}"
    "/{eff__throughput_ratio_p90},9),0)*{gpus_per_instance},{gpus})",
)
def gpus_low(
    in_plan_total: Array,
    concurrency: Array,
    batch: Array,
    safety_factor: Array,
    eff__throughput_ratio_p90: Array,
    gpus_per_instance: Array,
    gpus: Array,
) -> Array:
    """GPUs if real throughput is at the 90th percentile of measured ÷ predicted."""
    low = (ceil_snapped(concurrency / batch * safety_factor / eff__throughput_ratio_p90)
           * gpus_per_instance)
    return np.where(in_plan_total == 1, low, gpus)


@quantity(
    "GPUs",
    "IF({in_plan_total}=1,ROUNDUP(ROUND({concurrency}/{batch}*{safety_factor}"
    "/{eff__throughput_ratio_p10},9),0)*{gpus_per_instance},{gpus})",
)
def gpus_high(
    in_plan_total: Array,
    concurrency: Array,
    batch: Array,
    safety_factor: Array,
    eff__throughput_ratio_p10: Array,
    gpus_per_instance: Array,
    gpus: Array,
) -> Array:
    """GPUs if real throughput is at the 10th percentile of measured ÷ predicted."""
    high = (ceil_snapped(concurrency / batch * safety_factor / eff__throughput_ratio_p10)
            * gpus_per_instance)
    return np.where(in_plan_total == 1, high, gpus)


@quantity("USD/month", "{gpus_low}*{gpu_hour_price}*{HOURS_PER_MONTH}")
def monthly_cost_low(gpus_low: Array, gpu_hour_price: Array, HOURS_PER_MONTH: float) -> Array:
    """Monthly cost at the low end of the error band."""
    return gpus_low * gpu_hour_price * HOURS_PER_MONTH


@quantity("USD/month", "{gpus_high}*{gpu_hour_price}*{HOURS_PER_MONTH}")
def monthly_cost_high(gpus_high: Array, gpu_hour_price: Array, HOURS_PER_MONTH: float) -> Array:
    """Monthly cost at the high end of the error band."""
    return gpus_high * gpu_hour_price * HOURS_PER_MONTH
