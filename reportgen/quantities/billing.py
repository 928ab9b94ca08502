"""The price a row pays and the unit it is billed in (from the price book, or as typed), and how
its replicas pack into nodes and into the billed instances.

A replica is ``tp × pp`` GPUs: ``pp`` stages of ``tp`` GPUs, each stage inside one node. A node
of ``gpus_per_node`` GPUs holds ``⌊gpus_per_node / tp⌋`` stages, so replicas never span nodes
unless ``pp > 1``. A price quoted per ``node_hour`` bills whole instances of the price row's
GPUs (``billed_unit_gpus``) packed the same way; a price per ``gpu_hour`` (and a typed
``gpu_hour_price``) bills GPUs.
"""

from __future__ import annotations

import numpy as np

from reportgen.quantities.registry import quantity
from reportgen.xlfuncs import Array, ceil_snapped, equals, floor_snapped


def _typed(raw: Array) -> Array:
    return ~np.isnan(raw)


def _book_unless_typed(raw_gpu_hour_price: Array, book: Array, typed_text: str) -> Array:
    """The price book's text of each row, ``typed_text`` where the row typed its price (the
    book's own array when no row did: a million rows' copy is 10 ms a column)."""
    typed = _typed(raw_gpu_hour_price)
    if not typed.any():
        return book
    return np.where(typed, typed_text, book).astype(object, copy=False)


@quantity("text", 'IF(ISBLANK({raw_gpu_hour_price}),{gpu__price_basis}&"","as typed")',
          kind="text")
def price_basis(raw_gpu_hour_price: Array, gpu__price_basis: Array) -> Array:
    """Basis of the price used (on_demand, reserved_1y, reserved_3y, spot, capacity_block), or
    as typed (the row's gpu_hour_price)."""
    return _book_unless_typed(raw_gpu_hour_price, gpu__price_basis, "as typed")


@quantity("text", 'IF(ISBLANK({raw_gpu_hour_price}),{gpu__price_status}&"","as typed")',
          kind="text")
def price_status(raw_gpu_hour_price: Array, gpu__price_status: Array) -> Array:
    """current, stale (quoted more than 12 months before the plan), undated, no_price (the
    price book has none for this GPU at this basis: the row is never budgeted) or as typed."""
    return _book_unless_typed(raw_gpu_hour_price, gpu__price_status, "as typed")


@quantity("text", 'IF(ISBLANK({raw_gpu_hour_price}),{gpu__price_region}&"","")', kind="text")
def price_region(raw_gpu_hour_price: Array, gpu__price_region: Array) -> Array:
    """Region the price was quoted for (blank: the provider quotes one global price)."""
    return _book_unless_typed(raw_gpu_hour_price, gpu__price_region, "")


@quantity("text", 'IF(ISBLANK({raw_gpu_hour_price}),{gpu__price_provider}&"","")', kind="text")
def price_provider(raw_gpu_hour_price: Array, gpu__price_provider: Array) -> Array:
    """Who quotes the price (aws, a specialty cloud, a server vendor; blank: typed)."""
    return _book_unless_typed(raw_gpu_hour_price, gpu__price_provider, "")


@quantity("text", 'IF(ISBLANK({raw_gpu_hour_price}),{gpu__price_date}&"","")', kind="text")
def price_date(raw_gpu_hour_price: Array, gpu__price_date: Array) -> Array:
    """Date the price was quoted (YYYY-MM-DD or YYYY-MM; blank: undated or typed)."""
    return _book_unless_typed(raw_gpu_hour_price, gpu__price_date, "")


@quantity("text", 'IF(ISBLANK({raw_gpu_hour_price}),{gpu__price_sku}&"","")', kind="text")
def price_sku(raw_gpu_hour_price: Array, gpu__price_sku: Array) -> Array:
    """Instance type or server SKU the price is for (p5.48xlarge ...)."""
    return _book_unless_typed(raw_gpu_hour_price, gpu__price_sku, "")


@quantity("flag", 'IF({price_status}="no_price",0,1)')
def priced(price_status: Array) -> Array:
    """1 when the row has a price (from the price book or typed); rows without one are never
    budgeted."""
    return (~equals(price_status, "no_price")).astype(float)


@quantity("text", 'IF(ISBLANK({raw_gpu_hour_price}),{gpu__price_unit}&"","gpu_hour")', kind="text")
def price_unit(raw_gpu_hour_price: Array, gpu__price_unit: Array) -> Array:
    """Unit the price is quoted in: gpu_hour (one GPU) or node_hour (one instance of
    billed_unit_gpus GPUs, billed whole)."""
    return _book_unless_typed(raw_gpu_hour_price, gpu__price_unit, "gpu_hour")


@quantity("USD/unit-h", "IF(ISBLANK({raw_gpu_hour_price}),{gpu__price_usd},{raw_gpu_hour_price})")
def price_per_unit(raw_gpu_hour_price: Array, gpu__price_usd: Array) -> Array:
    """Price of one billed unit (a GPU or an instance, see price_unit) for one hour."""
    return np.where(_typed(raw_gpu_hour_price), raw_gpu_hour_price, gpu__price_usd)


@quantity("GPUs", "IF(ISBLANK({raw_gpu_hour_price}),{gpu__price_unit_gpus},1)")
def billed_unit_gpus(raw_gpu_hour_price: Array, gpu__price_unit_gpus: Array) -> Array:
    """GPUs in one billed unit (the priced instance; 1 for gpu_hour prices)."""
    return np.where(_typed(raw_gpu_hour_price), 1.0, gpu__price_unit_gpus)


def _stages_per(unit_gpus: Array, tp: Array) -> Array:
    return np.where(tp <= unit_gpus, floor_snapped(unit_gpus / tp), 0.0)


@quantity("stages",
          "IF({tp}<={gpu__gpus_per_node},INT(ROUND({gpu__gpus_per_node}/{tp},9)),0)")
def stages_per_node(tp: Array, gpu__gpus_per_node: Array) -> Array:
    """Pipeline stages (tp GPUs each) one node holds: ⌊GPUs per node / tp⌋."""
    return _stages_per(gpu__gpus_per_node, tp)


@quantity("replicas", "{stages_per_node}/{pp}")
def replicas_per_node(stages_per_node: Array, pp: Array) -> Array:
    """Replicas one node holds (below 1 when a pipelined replica spans several nodes)."""
    return stages_per_node / pp


def billed_units_of(instances: Array, tp: Array, pp: Array, gpus: Array, price_unit: Array,
                    unit_gpus: Array) -> Array:
    """Units billed for ``instances`` replicas: whole instances of ``unit_gpus`` GPUs, stages
    packed as in nodes (node_hour), else GPUs (gpu_hour)."""
    slots = _stages_per(unit_gpus, tp)
    whole = np.where(slots > 0, ceil_snapped(instances * pp / np.where(slots > 0, slots, 1.0)),
                     instances * pp * ceil_snapped(tp / unit_gpus))
    return np.where(equals(price_unit, "node_hour"), whole, gpus)


BILLED_UNITS_XL = (
    'IF({price_unit}="node_hour",IF({tp}<={billed_unit_gpus},'
    "ROUNDUP(ROUND(INSTANCES*{pp}/INT(ROUND({billed_unit_gpus}/{tp},9)),9),0),"
    "INSTANCES*{pp}*ROUNDUP(ROUND({tp}/{billed_unit_gpus},9),0)),GPUS)"
)


@quantity("billed units", BILLED_UNITS_XL.replace("INSTANCES", "{instances}")
          .replace("GPUS", "{gpus}"))
def billed_units(price_unit: Array, tp: Array, billed_unit_gpus: Array, instances: Array,
                 pp: Array, gpus: Array) -> Array:
    """Units the bill counts: whole instances for node_hour prices (replicas packed as in
    nodes; a replica larger than the instance takes several), GPUs for gpu_hour prices."""
    return billed_units_of(instances, tp, pp, gpus, price_unit, billed_unit_gpus)


@quantity("GPUs", 'IF({price_unit}="node_hour",{billed_units}*{billed_unit_gpus},{gpus})')
def billed_gpus(price_unit: Array, billed_units: Array, billed_unit_gpus: Array,
                gpus: Array) -> Array:
    """GPUs paid for: every GPU of the billed instances (≥ gpus)."""
    return np.where(equals(price_unit, "node_hour"), billed_units * billed_unit_gpus, gpus)


@quantity("GPUs", "{billed_gpus}-{gpus}")
def unused_billed_gpus(billed_gpus: Array, gpus: Array) -> Array:
    """GPUs paid for that serve no replica (the last instance's empty slots)."""
    return billed_gpus - gpus
