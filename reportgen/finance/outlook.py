"""The budgeted fleet over a day and over quarters: peak-sized against autoscaled replica-hours,
the commitment mix (a reserved baseline plus on-demand burst) that costs least, and the
quarterly ramp under each workload's growth.

Pure: the plan's results (one row per scenario, registry columns and ``counted``), the price
book and the daily profiles in; tables out. The hourly rates come from
:func:`reportgen.finance.demand.workload_rates`; replicas scale with the rate because the
operating batch does not depend on it (Little's Law: concurrency ∝ rate), and every hour is
billed the way the plan is (:func:`reportgen.quantities.billing.billed_units_of`).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from reportgen.finance.demand import HOURS, profile_for, workload_rates
from reportgen.finance.prices import PriceBook
from reportgen.i18n import _
from reportgen.quantities.billing import billed_units_of
from reportgen.units import CONSTANTS
from reportgen.xlfuncs import ceil_snapped

HOURS_PER_MONTH = float(CONSTANTS["HOURS_PER_MONTH"].value)
COMMIT_BASIS = "reserved_1y"
DAY_COLUMNS: tuple[str, ...] = (
    "scenario", "gpu", "shape", "peak_replicas", "peak_replica_hours_per_day",
    "autoscaled_replica_hours_per_day", "peak_monthly_cost", "autoscaled_monthly_cost",
    "autoscale_saving_monthly_cost", "reserved_units", "mix_monthly_cost",
    "mix_saving_monthly_cost", "mix_note",
)


def _units(row: pd.Series, replicas: np.ndarray) -> np.ndarray:
    tp, pp = float(row["tp"]), float(row["pp"])
    gpus = replicas * tp * pp
    return np.asarray(billed_units_of(replicas, np.full_like(replicas, tp),
                                      np.full_like(replicas, pp), gpus,
                                      np.full(replicas.shape, str(row["price_unit"]),
                                              dtype=object),
                                      np.full_like(replicas, float(row["billed_unit_gpus"]))))


def replicas_per_rps(row: pd.Series) -> float:
    """Traffic replicas (before rounding up) per request/s of the row's rate, as the plan sized
    it: by its knee when percentile targets set one (safety ÷ knee), else by the closed form
    (concurrency ÷ batch × safety at the peak rate)."""
    safety = float(row["safety_factor"])
    knee = float(row["knee_rps_per_instance"])
    if knee > 0:
        return safety / knee
    return float(row["concurrency"]) / float(row["batch"]) * safety / float(row["peak_qps"])


def hourly_replicas(row: pd.Series, profile: np.ndarray | None) -> np.ndarray:
    """Replicas the row runs each hour when its fleet follows the day's traffic: traffic's
    replicas at that hour's rate (same batch, or knee, and safety factor), plus the spares,
    never below min_replicas."""
    rates = workload_rates(float(row["avg_qps"]), float(row["peak_qps"]), profile)
    traffic = ceil_snapped(replicas_per_rps(row) * rates)
    return np.maximum(traffic + float(row["spare_replicas"]), float(row["min_replicas"]))


def _price(book: PriceBook | None, gpu: str, basis: str) -> pd.Series | None:
    if book is None:
        return None
    rows = book.rows[(book.rows["gpu"] == gpu) & (book.rows["basis"] == basis)]
    return None if rows.empty else rows.iloc[0]


def best_mix(units: np.ndarray, on_demand: float, reserved: float) -> tuple[float, float]:
    """The reserved baseline (whole units, every hour) and hourly cost that minimise reserved
    baseline + on-demand burst for this day of billed units."""
    best = (0.0, float(units.mean()) * on_demand)
    for level in sorted(set(units.tolist())):
        cost = level * reserved + float(np.maximum(units - level, 0).mean()) * on_demand
        if cost < best[1] - 1e-9:
            best = (float(level), cost)
    return best


def day_fleet(results: pd.DataFrame, book: PriceBook | None,
              profiles: Mapping[str, np.ndarray] | None = None) -> pd.DataFrame:
    """Per budgeted row: peak-sized against autoscaled replica-hours and monthly cost, and the
    cheapest reserved-plus-on-demand mix when the price book has a reserved_1y price for the
    same GPU and unit as the row's on-demand price."""
    out = []
    for _row, row in results[results["counted"] == 1].iterrows():
        profile = profile_for(profiles or {}, str(row["workload"]))
        replicas = hourly_replicas(row, profile)
        units = _units(row, replicas)
        price = float(row["price_per_unit"])
        autoscaled = float(units.mean()) * price * HOURS_PER_MONTH
        peak = float(row["monthly_cost"])
        record = {
            "scenario": row["scenario"], "gpu": row["gpu"],
            "shape": _("your profile") if profile is not None else
                     _("peak {peak} / average {average} req/s").format(
                         peak=f"{float(row['peak_qps']):g}", average=f"{float(row['avg_qps']):g}"),
            "peak_replicas": float(row["instances"]),
            "peak_replica_hours_per_day": float(row["instances"]) * HOURS,
            "autoscaled_replica_hours_per_day": float(replicas.sum()),
            "peak_monthly_cost": peak, "autoscaled_monthly_cost": autoscaled,
            "autoscale_saving_monthly_cost": peak - autoscaled,
            "reserved_units": math.nan, "mix_monthly_cost": math.nan,
            "mix_saving_monthly_cost": math.nan, "mix_note": "",
        }
        committed = _price(book, str(row["gpu"]), COMMIT_BASIS)
        if str(row["price_basis"]) != "on_demand":
            record["mix_note"] = _("the plan is priced {basis}, not on demand").format(
                basis=row["price_basis"])
        elif committed is None:
            record["mix_note"] = _("no {basis} price in the price book").format(
                basis=COMMIT_BASIS)
        elif (str(committed["unit"]) != str(row["price_unit"])
              or float(committed["gpus_per_unit"]) != float(row["billed_unit_gpus"])):
            record["mix_note"] = _("the {basis} price is for another unit").format(
                basis=COMMIT_BASIS)
        else:
            level, hourly = best_mix(units, price, float(committed["price"]))
            record.update(reserved_units=level, mix_monthly_cost=hourly * HOURS_PER_MONTH,
                          mix_saving_monthly_cost=peak - hourly * HOURS_PER_MONTH,
                          mix_note=_("{units} × {unit} reserved at {price} USD/h, the rest on "
                                     "demand").format(units=f"{level:g}",
                                                      unit=committed["sku"] or "GPU",
                                                      price=f"{float(committed['price']):g}"))
        out.append(record)
    return pd.DataFrame(out, columns=list(DAY_COLUMNS))


def quarter_label(start: dt.date, q: int) -> str:
    """Calendar quarter ``q`` quarters after the one holding ``start`` (Q3 2027)."""
    index = (start.month - 1) // 3 + q
    return f"Q{index % 4 + 1} {start.year + index // 4}"


def quarterly(results: pd.DataFrame, start: dt.date) -> pd.DataFrame:
    """The budgeted fleet quarter by quarter: each row's peak rate grows by its
    growth_per_quarter, its replicas follow (same batch, or the same knee for a row sized by
    one; same safety factor and redundancy), billed as the plan is; summed per quarter over
    horizon_quarters (the longest row's)."""
    counted = results[results["counted"] == 1]
    horizon = int(counted["horizon_quarters"].max()) if len(counted) else 0
    rows = []
    for q in range(horizon):
        gpus = nodes = cost = 0.0
        for _row, row in counted.iterrows():
            growth = (1 + float(row["growth_per_quarter"])) ** q
            rate = float(row["peak_qps"]) * growth
            replicas = max(float(ceil_snapped(np.asarray(replicas_per_rps(row) * rate)))
                           + float(row["spare_replicas"]), float(row["min_replicas"]))
            units = float(_units(row, np.array([replicas]))[0])
            per_node = float(row["stages_per_node"])
            pp = float(row["pp"])
            gpus += replicas * float(row["gpus_per_instance"])
            if per_node > 0:
                nodes += math.ceil(round(replicas * pp / per_node, 9))
            else:  # a stage wider than a node: as many nodes per GPU as the plan row has
                nodes += math.ceil(round(replicas * float(row["nodes"])
                                         / float(row["instances"]), 9))
            cost += units * float(row["price_per_unit"]) * HOURS_PER_MONTH
        rows.append({"quarter": quarter_label(start, q), "gpus": gpus, "nodes": nodes,
                     "monthly_cost": cost, "quarter_cost": cost * 3})
    return pd.DataFrame(rows, columns=["quarter", "gpus", "nodes", "monthly_cost",
                                       "quarter_cost"])
