"""The operating batch: the memory limit, the latency targets solved for B, the scheduler cap."""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, choose, equals, floor_snapped


@quantity(
    "sequences",
    "IF(ISBLANK({raw_tpot_slo_ms}),{UNLIMITED_BATCH},INT(ROUND(MIN("
    "({raw_tpot_slo_ms}/1000-{step_fixed_s})"
    "/({decode_compute_s_per_seq}+{comm_s_per_token}+{prefill_stall_s_per_seq}),"
    "({raw_tpot_slo_ms}/1000-{step_fixed_s}-{weights_read_s})"
    "/({decode_kv_read_s_per_seq}+{comm_s_per_token}+{prefill_stall_s_per_seq})),9)))",
)
def batch_limit_tpot(
    raw_tpot_slo_ms: Array,
    UNLIMITED_BATCH: float,
    step_fixed_s: Array,
    decode_compute_s_per_seq: Array,
    comm_s_per_token: Array,
    prefill_stall_s_per_seq: Array,
    weights_read_s: Array,
    decode_kv_read_s_per_seq: Array,
) -> Array:
    """Largest batch whose TPOT meets the target: both lines of the step-time maximum solved for
    B (MoE uses the all-experts weight read, an upper bound)."""
    target = raw_tpot_slo_ms / 1000 - step_fixed_s
    per_seq = comm_s_per_token + prefill_stall_s_per_seq
    limit = np.minimum(
        target / (decode_compute_s_per_seq + per_seq),
        (target - weights_read_s) / (decode_kv_read_s_per_seq + per_seq),
    )
    return np.where(np.isnan(raw_tpot_slo_ms), UNLIMITED_BATCH, floor_snapped(limit))


@quantity(
    "sequences",
    "IF(ISBLANK({raw_ttft_slo_ms}),{UNLIMITED_BATCH},INT(ROUND(MIN("
    "(({raw_ttft_slo_ms}-{prefill_ms})/1000-{step_fixed_s})"
    "/({decode_compute_s_per_seq}+{comm_s_per_token}),"
    "(({raw_ttft_slo_ms}-{prefill_ms})/1000-{step_fixed_s}-{weights_read_s})"
    "/({decode_kv_read_s_per_seq}+{comm_s_per_token})),9)))",
)
def batch_limit_ttft(
    raw_ttft_slo_ms: Array,
    UNLIMITED_BATCH: float,
    prefill_ms: Array,
    step_fixed_s: Array,
    decode_compute_s_per_seq: Array,
    comm_s_per_token: Array,
    weights_read_s: Array,
    decode_kv_read_s_per_seq: Array,
) -> Array:
    """Largest batch whose TTFT (prefill plus one decode step) meets the target."""
    target = (raw_ttft_slo_ms - prefill_ms) / 1000 - step_fixed_s
    limit = np.minimum(
        target / (decode_compute_s_per_seq + comm_s_per_token),
        (target - weights_read_s) / (decode_kv_read_s_per_seq + comm_s_per_token),
    )
    return np.where(np.isnan(raw_ttft_slo_ms), UNLIMITED_BATCH, floor_snapped(limit))


@quantity(
    "text",
    'IF({method}="tutorial",IF({batch_max_kv}<1,"weights_do_not_fit","compute"),'
    'IF({batch_max_kv}<1,"weights_do_not_fit",'
    'IF(MIN({batch_limit_tpot},{batch_limit_ttft})<1,"slo_unreachable",'
    'IF({batch_max_kv}<=MIN({batch_limit_tpot},{batch_limit_ttft},{max_batch}),"kv_memory",'
    'IF({batch_limit_tpot}<=MIN({batch_limit_ttft},{max_batch}),"tpot_slo",'
    'IF({batch_limit_ttft}<={max_batch},"ttft_slo","batch_cap"))))))',
    kind="text",
)
def bottleneck(
    method: Array,
    batch_max_kv: Array,
    batch_limit_tpot: Array,
    batch_limit_ttft: Array,
    max_batch: Array,
) -> Array:
    """What sets the batch, and so the fleet: kv_memory, tpot_slo, ttft_slo or batch_cap; or
    weights_do_not_fit / slo_unreachable when no batch works (tutorial method: compute)."""
    tutorial = equals(method, "tutorial")
    no_fit = batch_max_kv < 1
    slo = np.minimum(batch_limit_tpot, batch_limit_ttft)
    return choose(
        [
            tutorial & no_fit,
            tutorial,
            no_fit,
            slo < 1,
            batch_max_kv <= np.minimum(slo, max_batch),
            batch_limit_tpot <= np.minimum(batch_limit_ttft, max_batch),
            batch_limit_ttft <= max_batch,
        ],
        ["weights_do_not_fit", "compute", "weights_do_not_fit", "slo_unreachable",
         "kv_memory", "tpot_slo", "ttft_slo"],
        "batch_cap",
    )


@quantity(
    "flag",
    'IF(AND({method}<>"tutorial",{bottleneck}<>"weights_do_not_fit",'
    '{bottleneck}<>"slo_unreachable"),1,0)',
)
def in_plan_total(method: Array, bottleneck: Array) -> Array:
    """1 when the row is part of the plan's totals (roofline method and feasible), else 0."""
    counted = (
        ~equals(method, "tutorial")
        & ~equals(bottleneck, "weights_do_not_fit")
        & ~equals(bottleneck, "slo_unreachable")
    )
    return counted.astype(float)


@quantity(
    "sequences",
    'IF({method}="tutorial",MAX(1,INT(ROUND({TUTORIAL_KV_HEADROOM}*{batch_max_kv},9))),'
    "MAX(1,MIN({batch_max_kv},{batch_limit_tpot},{batch_limit_ttft},{max_batch})))",
)
def batch(
    method: Array,
    TUTORIAL_KV_HEADROOM: float,
    batch_max_kv: Array,
    batch_limit_tpot: Array,
    batch_limit_ttft: Array,
    max_batch: Array,
) -> Array:
    """Operating batch B* = min(B_mem, B_TPOT, B_TTFT, max_batch), at least 1 (tutorial:
    0.7 × B_mem)."""
    roofline = np.minimum(
        np.minimum(batch_max_kv, batch_limit_tpot), np.minimum(batch_limit_ttft, max_batch)
    )
    tutorial = floor_snapped(TUTORIAL_KV_HEADROOM * batch_max_kv)
    return np.maximum(1.0, np.where(equals(method, "tutorial"), tutorial, roofline))
