"""Fleet size by Little's Law, and what it costs."""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, ceil_snapped, equals


@quantity("sequences", "{peak_qps}*{response_time_s}")
def concurrency(peak_qps: Array, response_time_s: Array) -> Array:
    """Requests in flight at peak (Little's Law: C = QPS × response time)."""
    return peak_qps * response_time_s


@quantity(
    "req/s",
    "{tp}*{compute_ceiling_tokens_per_s_per_gpu}/({avg_prompt_tokens}+{avg_output_tokens})",
)
def tutorial_instance_rps(
    tp: Array,
    compute_ceiling_tokens_per_s_per_gpu: Array,
    avg_prompt_tokens: Array,
    avg_output_tokens: Array,
) -> Array:
    """The tutorial's single-instance capacity: compute ceiling / (prompt + output) tokens."""
    return tp * compute_ceiling_tokens_per_s_per_gpu / (avg_prompt_tokens + avg_output_tokens)


@quantity(
    "instances",
    'IF({method}="tutorial",ROUNDUP(ROUND({peak_qps}*{safety_factor}/{tutorial_instance_rps},9),0),'
    "IF({in_plan_total}=1,IF(ISBLANK({raw_knee_rps}),"
    "ROUNDUP(ROUND({concurrency}/{batch}*{safety_factor},9),0),"
    "ROUNDUP(ROUND({peak_qps}*{safety_factor}/{raw_knee_rps},9),0)),0))",
)
def traffic_instances(
    method: Array,
    peak_qps: Array,
    safety_factor: Array,
    tutorial_instance_rps: Array,
    in_plan_total: Array,
    concurrency: Array,
    batch: Array,
    raw_knee_rps: Array,
) -> Array:
    """Replicas the peak traffic needs with head-room: ceil(C / B* × safety), or
    ceil(QPS × safety / knee) when a knee of percentile targets is given (tutorial:
    ceil(QPS × safety / its capacity)); 0 when the scenario does not fit."""
    tutorial = ceil_snapped(peak_qps * safety_factor / tutorial_instance_rps)
    with np.errstate(divide="ignore", invalid="ignore"):
        by_knee = ceil_snapped(peak_qps * safety_factor / raw_knee_rps)
    closed = ceil_snapped(concurrency / batch * safety_factor)
    sized = np.where(np.isnan(raw_knee_rps), closed, by_knee)
    roofline = np.where(in_plan_total == 1, sized, 0.0)
    return np.where(equals(method, "tutorial"), tutorial, roofline)


@quantity("replicas", 'IF(ISBLANK({raw_min_replicas}),IF({role}="plan",2,1),{raw_min_replicas})')
def min_replicas(raw_min_replicas: Array, role: Array) -> Array:
    """Fewest replicas kept running (availability): as typed, else 2 for plan rows and 1 for
    compare rows."""
    default = np.where(role == "plan", 2.0, 1.0)
    return np.where(~np.isnan(raw_min_replicas), raw_min_replicas, default)


@quantity("replicas", "IF(ISBLANK({raw_spare_replicas}),0,{raw_spare_replicas})")
def spare_replicas(raw_spare_replicas: Array) -> Array:
    """Replicas added above traffic's need (1 = N+1)."""
    return np.where(~np.isnan(raw_spare_replicas), raw_spare_replicas, 0.0)


@quantity(
    "instances",
    'IF(AND({method}<>"tutorial",{in_plan_total}=1),'
    "MAX({traffic_instances}+{spare_replicas},{min_replicas}),{traffic_instances})",
)
def instances(method: Array, in_plan_total: Array, traffic_instances: Array,
              spare_replicas: Array, min_replicas: Array) -> Array:
    """Model replicas run: traffic's replicas plus the spares, at least min_replicas (the
    tutorial's rows: its own count)."""
    redundant = np.maximum(traffic_instances + spare_replicas, min_replicas)
    counted = ~equals(method, "tutorial") & (in_plan_total == 1)
    return np.where(counted, redundant, traffic_instances)


@quantity("instances", "{instances}-{traffic_instances}")
def redundancy_instances(instances: Array, traffic_instances: Array) -> Array:
    """Replicas run for availability alone (spares and the min_replicas floor), apart from
    the safety factor's head-room."""
    return instances - traffic_instances


@quantity("GPUs", "{instances}*{gpus_per_instance}")
def gpus(instances: Array, gpus_per_instance: Array) -> Array:
    """GPUs to buy or rent: instances × GPUs per replica (tp × pp)."""
    return instances * gpus_per_instance


@quantity(
    "nodes",
    "IF({stages_per_node}>0,ROUNDUP(ROUND({instances}*{pp}/{stages_per_node},9),0),"
    "ROUNDUP(ROUND({gpus}/{gpu__gpus_per_node},9),0))",
)
def nodes(stages_per_node: Array, instances: Array, pp: Array, gpus: Array,
          gpu__gpus_per_node: Array) -> Array:
    """Servers at the catalog's GPUs per node, replicas packed whole: ⌈instances × pp ÷
    stages per node⌉ (a replica spans nodes only with pipeline stages)."""
    packed = ceil_snapped(instances * pp / np.where(stages_per_node > 0, stages_per_node, 1.0))
    return np.where(stages_per_node > 0, packed, ceil_snapped(gpus / gpu__gpus_per_node))


@quantity("kW", "{gpus}*{gpu__tdp_w}/1000")
def power_kw(gpus: Array, gpu__tdp_w: Array) -> Array:
    """GPU board power at TDP (servers, cooling and networking not included)."""
    return gpus * gpu__tdp_w / 1000


@quantity(
    "fraction",
    'IF({instances}*IF({method}="tutorial",{tutorial_instance_rps},{instance_rps})>0,'
    '{avg_qps}/({instances}*IF({method}="tutorial",{tutorial_instance_rps},{instance_rps})),0)',
)
def utilization_at_avg_load(avg_qps: Array, instances: Array, instance_rps: Array,
                            method: Array, tutorial_instance_rps: Array) -> Array:
    """Share of the fleet's request capacity used at the average rate (the tutorial's rows:
    of the capacity its own method gives each instance, which sized them)."""
    rps = np.where(equals(method, "tutorial"), tutorial_instance_rps, instance_rps)
    capacity = instances * rps
    return np.where(capacity > 0, avg_qps / np.where(capacity > 0, capacity, 1.0), 0.0)


@quantity(
    "fraction",
    "IF({instances}*{batch_max_kv}>0,{concurrency}/({instances}*{batch_max_kv}),0)",
)
def kv_occupancy_at_peak(concurrency: Array, instances: Array, batch_max_kv: Array) -> Array:
    """Share of the fleet's KV-cache slots in use at peak (the tutorial's autoscaling signal)."""
    slots = instances * batch_max_kv
    return np.where(slots > 0, concurrency / np.where(slots > 0, slots, 1.0), 0.0)


@quantity("USD/month", "{billed_units}*{price_per_unit}*{HOURS_PER_MONTH}")
def monthly_cost(billed_units: Array, price_per_unit: Array, HOURS_PER_MONTH: float) -> Array:
    """GPU rental per month as billed: billed units (whole instances for node-hour prices,
    GPUs for GPU-hour prices) × price per unit-hour × hours per month."""
    return billed_units * price_per_unit * HOURS_PER_MONTH


def _traffic_cost_xl() -> str:
    from reportgen.quantities.billing import BILLED_UNITS_XL

    units = (BILLED_UNITS_XL.replace("INSTANCES", "{traffic_instances}")
             .replace("GPUS", "{traffic_instances}*{gpus_per_instance}"))
    return f"{{monthly_cost}}-{units}*{{price_per_unit}}*{{HOURS_PER_MONTH}}"


@quantity("USD/month", _traffic_cost_xl())
def redundancy_monthly_cost(monthly_cost: Array, price_unit: Array, tp: Array,
                            billed_unit_gpus: Array, traffic_instances: Array, pp: Array,
                            gpus_per_instance: Array, price_per_unit: Array,
                            HOURS_PER_MONTH: float) -> Array:
    """What the availability replicas (redundancy_instances) add to the monthly cost: the cost
    as billed minus the cost of traffic's replicas alone."""
    from reportgen.quantities.billing import billed_units_of

    units = billed_units_of(traffic_instances, tp, pp, traffic_instances * gpus_per_instance,
                            price_unit, billed_unit_gpus)
    return monthly_cost - units * price_per_unit * HOURS_PER_MONTH


@quantity("USD/year", "{monthly_cost}*{MONTHS_PER_YEAR}")
def annual_cost(monthly_cost: Array, MONTHS_PER_YEAR: float) -> Array:
    """GPU rental per year."""
    return monthly_cost * MONTHS_PER_YEAR


@quantity("text", "{CURRENCY}", kind="text")
def currency(CURRENCY: str) -> str:
    """Currency of every cost."""
    return CURRENCY


@quantity(
    "USD/1M tokens",
    "{monthly_cost}/{HOURS_PER_MONTH}/({avg_qps}*{avg_output_tokens}*{SECONDS_PER_HOUR})*10^6",
)
def cost_per_million_output_tokens(
    monthly_cost: Array,
    HOURS_PER_MONTH: float,
    avg_qps: Array,
    avg_output_tokens: Array,
    SECONDS_PER_HOUR: float,
) -> Array:
    """Fleet cost (as billed) per million generated tokens at the average request rate."""
    hourly = monthly_cost / HOURS_PER_MONTH
    return hourly / (avg_qps * avg_output_tokens * SECONDS_PER_HOUR) * 1e6


@quantity(
    "USD/1M tokens",
    "{monthly_cost}/{HOURS_PER_MONTH}/({avg_qps}*({avg_prompt_tokens}+{avg_output_tokens})"
    "*{SECONDS_PER_HOUR})*10^6",
)
def cost_per_million_total_tokens(
    monthly_cost: Array,
    HOURS_PER_MONTH: float,
    avg_qps: Array,
    avg_prompt_tokens: Array,
    avg_output_tokens: Array,
    SECONDS_PER_HOUR: float,
) -> Array:
    """Fleet cost (as billed) per million prompt plus output tokens at the average rate."""
    tokens = avg_qps * (avg_prompt_tokens + avg_output_tokens) * SECONDS_PER_HOUR
    return monthly_cost / HOURS_PER_MONTH / tokens * 1e6
