"""The error band: how wrong the plan may be, from the calibration's spread.

The efficiency table carries, per GPU family and precision, the 10th and 90th percentiles of
measured ÷ predicted throughput on the public measurements it was fitted to, for dense models
(throughput_ratio_*) and for mixture-of-experts models (moe_ratio_*), and the engine those
measurements ran on. A plan takes its model class's band, widened by
UNCALIBRATED_ENGINE_WIDENING each side when its engine is not the calibrated one. A fleet sized
for throughput r × the prediction needs 1/r the instances, which gives the low and high GPU
counts.
"""

from __future__ import annotations

import numpy as np

from reportgen.quantities.billing import billed_units_of
from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, ceil_snapped

_CALIBRATED_ENGINE_XL = 'OR({eff__engine}="",{eff__engine}={engine})'


def _calibrated_engine(eff__engine: Array, engine: Array) -> Array:
    return (eff__engine == "") | (eff__engine == engine)


@quantity(
    "×",
    "IF({expert_params_b}>0,{eff__moe_ratio_p10},{eff__throughput_ratio_p10})"
    f"*IF({_CALIBRATED_ENGINE_XL},1,1-{{UNCALIBRATED_ENGINE_WIDENING}})",
)
def band_ratio_p10(
    expert_params_b: Array, eff__moe_ratio_p10: Array, eff__throughput_ratio_p10: Array,
    eff__engine: Array, engine: Array, UNCALIBRATED_ENGINE_WIDENING: float,
) -> Array:
    """Low end of the error band, as measured ÷ predicted throughput: the 10th percentile of
    the calibration rows of the scenario's model class (dense or mixture-of-experts), lowered
    by UNCALIBRATED_ENGINE_WIDENING when its engine is not the one they ran on."""
    ratio = np.where(expert_params_b > 0, eff__moe_ratio_p10, eff__throughput_ratio_p10)
    return ratio * np.where(_calibrated_engine(eff__engine, engine), 1.0,
                            1 - UNCALIBRATED_ENGINE_WIDENING)


@quantity(
    "×",
    "IF({expert_params_b}>0,{eff__moe_ratio_p90},{eff__throughput_ratio_p90})"
    f"*IF({_CALIBRATED_ENGINE_XL},1,1+{{UNCALIBRATED_ENGINE_WIDENING}})",
)
def band_ratio_p90(
    expert_params_b: Array, eff__moe_ratio_p90: Array, eff__throughput_ratio_p90: Array,
    eff__engine: Array, engine: Array, UNCALIBRATED_ENGINE_WIDENING: float,
) -> Array:
    """High end of the error band, as measured ÷ predicted throughput: the 90th percentile of
    the calibration rows of the scenario's model class, raised by UNCALIBRATED_ENGINE_WIDENING
    when its engine is not the one they ran on."""
    ratio = np.where(expert_params_b > 0, eff__moe_ratio_p90, eff__throughput_ratio_p90)
    return ratio * np.where(_calibrated_engine(eff__engine, engine), 1.0,
                            1 + UNCALIBRATED_ENGINE_WIDENING)


@quantity(
    "GPUs",
    "IF({in_plan_total}=1,MAX(ROUNDUP(ROUND({concurrency}/{batch}*{safety_factor}"
    "/{band_ratio_p90},9),0)+{spare_replicas},{min_replicas})*{gpus_per_instance},"
    "{gpus})",
)
def gpus_low(
    in_plan_total: Array,
    concurrency: Array,
    batch: Array,
    safety_factor: Array,
    band_ratio_p90: Array,
    spare_replicas: Array,
    min_replicas: Array,
    gpus_per_instance: Array,
    gpus: Array,
) -> Array:
    """GPUs if real throughput is at the high end of the error band (same redundancy)."""
    replicas = ceil_snapped(concurrency / batch * safety_factor / band_ratio_p90)
    low = np.maximum(replicas + spare_replicas, min_replicas) * gpus_per_instance
    return np.where(in_plan_total == 1, low, gpus)


@quantity(
    "GPUs",
    "IF({in_plan_total}=1,MAX(ROUNDUP(ROUND({concurrency}/{batch}*{safety_factor}"
    "/{band_ratio_p10},9),0)+{spare_replicas},{min_replicas})*{gpus_per_instance},"
    "{gpus})",
)
def gpus_high(
    in_plan_total: Array,
    concurrency: Array,
    batch: Array,
    safety_factor: Array,
    band_ratio_p10: Array,
    spare_replicas: Array,
    min_replicas: Array,
    gpus_per_instance: Array,
    gpus: Array,
) -> Array:
    """GPUs if real throughput is at the low end of the error band (same redundancy)."""
    replicas = ceil_snapped(concurrency / batch * safety_factor / band_ratio_p10)
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
