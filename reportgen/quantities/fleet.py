"""Fleet size by Little's Law, and what it costs."""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, ceil_snapped


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
def instances(
    method: Array,
    peak_qps: Array,
    safety_factor: Array,
    tutorial_instance_rps: Array,
    in_plan_total: Array,
    concurrency: Array,
    batch: Array,
    raw_knee_rps: Array,
) -> Array:
    """Model replicas: ceil(C / B* × safety), or ceil(QPS × safety / knee) when a knee of
    percentile targets is given (tutorial: ceil(QPS × safety / its capacity)); 0 when the
    scenario does not fit."""
    tutorial = ceil_snapped(peak_qps * safety_factor / tutorial_instance_rps)
    with np.errstate(divide="ignore", invalid="ignore"):
        by_knee = ceil_snapped(peak_qps * safety_factor / raw_knee_rps)
    closed = ceil_snapped(concurrency / batch * safety_factor)
    sized = np.where(np.isnan(raw_knee_rps), closed, by_knee)
    roofline = np.where(in_plan_total == 1, sized, 0.0)
    return np.where(method == "tutorial", tutorial, roofline)


@quantity("GPUs", "{instances}*{gpus_per_instance}")
def gpus(instances: Array, gpus_per_instance: Array) -> Array:
    """GPUs to buy or rent: instances × GPUs per replica (tp × pp)."""
    return instances * gpus_per_instance


@quantity("nodes", "ROUNDUP(ROUND({gpus}/{gpu__gpus_per_node},9),0)")
def nodes(gpus: Array, gpu__gpus_per_node: Array) -> Array:
    """Servers at the catalog's GPUs per node (a replica of more GPUs than a node spans whole
    nodes: tp × pp is a multiple of the node's GPUs)."""
    return ceil_snapped(gpus / gpu__gpus_per_node)


@quantity("kW", "{gpus}*{gpu__tdp_w}/1000")
def power_kw(gpus: Array, gpu__tdp_w: Array) -> Array:
    """GPU board power at TDP (servers, cooling and networking not included)."""
    return gpus * gpu__tdp_w / 1000


@quantity(
    "fraction",
    "IF({instances}>0,{avg_qps}/({instances}*{instance_rps}),0)",
)
def utilization_at_avg_load(avg_qps: Array, instances: Array, instance_rps: Array) -> Array:
    """Share of the fleet's request capacity used at the average rate."""
    capacity = instances * instance_rps
    return np.where(instances > 0, avg_qps / np.where(capacity > 0, capacity, 1.0), 0.0)


@quantity(
    "fraction",
    "IF({instances}*{batch_max_kv}>0,{concurrency}/({instances}*{batch_max_kv}),0)",
)
def kv_occupancy_at_peak(concurrency: Array, instances: Array, batch_max_kv: Array) -> Array:
    """Share of the fleet's KV-cache slots in use at peak (the tutorial's autoscaling signal)."""
    slots = instances * batch_max_kv
    return np.where(slots > 0, concurrency / np.where(slots > 0, slots, 1.0), 0.0)


@quantity("USD/month", "{gpus}*{gpu_hour_price}*{HOURS_PER_MONTH}")
def monthly_cost(gpus: Array, gpu_hour_price: Array, HOURS_PER_MONTH: float) -> Array:
    """GPU rental per month: GPUs × price × hours per month."""
    return gpus * gpu_hour_price * HOURS_PER_MONTH


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
    "{gpus}*{gpu_hour_price}/({avg_qps}*{avg_output_tokens}*{SECONDS_PER_HOUR})*10^6",
)
def cost_per_million_output_tokens(
    gpus: Array,
    gpu_hour_price: Array,
    avg_qps: Array,
    avg_output_tokens: Array,
    SECONDS_PER_HOUR: float,
) -> Array:
    """Fleet cost per million generated tokens at the average request rate."""
    return gpus * gpu_hour_price / (avg_qps * avg_output_tokens * SECONDS_PER_HOUR) * 1e6


@quantity(
    "USD/1M tokens",
    "{gpus}*{gpu_hour_price}/({avg_qps}*({avg_prompt_tokens}+{avg_output_tokens})"
    "*{SECONDS_PER_HOUR})*10^6",
)
def cost_per_million_total_tokens(
    gpus: Array,
    gpu_hour_price: Array,
    avg_qps: Array,
    avg_prompt_tokens: Array,
    avg_output_tokens: Array,
    SECONDS_PER_HOUR: float,
) -> Array:
    """Fleet cost per million prompt plus output tokens at the average request rate."""
    tokens = avg_qps * (avg_prompt_tokens + avg_output_tokens) * SECONDS_PER_HOUR
    return gpus * gpu_hour_price / tokens * 1e6
