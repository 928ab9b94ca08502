"""How one GPU's memory and one request's time are spent at the operating batch (for the
report's memory bar and timing table), and the tutorial's batching-gain curve for comparison."""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array


@quantity(
    "GiB",
    'IF(OR({method}="tutorial",{engine}="sglang"),0,{ACTIVATION_RESERVE_GIB})',
)
def activation_reserve_gib_per_gpu(
    method: Array, engine: Array, ACTIVATION_RESERVE_GIB: float
) -> Array:
    """Memory per GPU kept for activations and runtime outside the KV budget (none in SGLang's
    and the tutorial's definitions of the budget)."""
    none = (method == "tutorial") | (engine == "sglang")
    return np.where(none, 0.0, ACTIVATION_RESERVE_GIB)


@quantity("GiB", "{batch}*{kv_stored_gib_per_seq}/{gpus_per_instance}")
def kv_gib_per_gpu_at_batch(
    batch: Array, kv_stored_gib_per_seq: Array, gpus_per_instance: Array
) -> Array:
    """KV cache each GPU holds when the replica runs the operating batch (each stage caches
    its own layers of every sequence; copies kept on several GPUs counted on each)."""
    return batch * kv_stored_gib_per_seq / gpus_per_instance


@quantity(
    "GiB",
    "{gpu_memory_gib}-{weights_gib_per_gpu}-{activation_reserve_gib_per_gpu}"
    "-{kv_gib_per_gpu_at_batch}",
)
def free_gib_per_gpu(
    gpu_memory_gib: Array,
    weights_gib_per_gpu: Array,
    activation_reserve_gib_per_gpu: Array,
    kv_gib_per_gpu_at_batch: Array,
) -> Array:
    """Memory of one GPU left over at the operating batch (the engine's margin plus KV slots
    the batch does not use; negative when the weights do not fit)."""
    return gpu_memory_gib - weights_gib_per_gpu - activation_reserve_gib_per_gpu - (
        kv_gib_per_gpu_at_batch
    )


@quantity("s", "{avg_output_tokens}*{tpot_ms}/1000")
def decode_s_per_request(avg_output_tokens: Array, tpot_ms: Array) -> Array:
    """Time a request spends producing its output tokens (output tokens × TPOT)."""
    return avg_output_tokens * tpot_ms / 1000


@quantity("×", "2*{batch}/({batch}+1)")
def tutorial_batching_gain(batch: Array) -> Array:
    """The tutorial's batching gain 2B/(B+1) at the operating batch, shown beside the roofline's
    for comparison (it never exceeds 2×)."""
    return 2 * batch / (batch + 1)
