"""Percentile targets size the fleet by the knee: the simulated knee of each row that states a
P99 target becomes that row's ``knee_rps`` input, from which the engine takes its instances.

Rows simulated: those with ``ttft_p99_ms`` or ``tpot_p99_ms``, a blank ``knee_rps`` (a typed
knee, from your own load test, is used as typed), the roofline method and a configuration that
fits. The knee is simulated for the configuration the search chose for the row (the search
itself compares configurations by the closed form).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reportgen.engine import Tables
from reportgen.errors import InputError
from reportgen.simulate.knee import find_knee
from reportgen.simulate.plan_latency import row_values, targets_of
from reportgen.simulate.workload import workload_for

# Rows with percentile targets one build simulates (each a bisection of about ten runs, a second
# or less): past it the build stops with a message rather than run for minutes.
MAX_KNEE_ROWS = 200


def may_need_knee(scenarios: pd.DataFrame) -> np.ndarray:
    """Per row, whether its knee may be simulated (a P99 target and a blank knee_rps; whether
    its configuration fits is known only once it is planned)."""
    if "ttft_p99_ms" not in scenarios or "knee_rps" not in scenarios:
        return np.zeros(len(scenarios), dtype=bool)
    percentile = scenarios["ttft_p99_ms"].notna() | scenarios["tpot_p99_ms"].notna()
    return np.asarray((percentile & scenarios["knee_rps"].isna()).to_numpy(), dtype=bool)


def rows_to_size(scenarios: pd.DataFrame, results: pd.DataFrame) -> list[int]:
    """Positions of the rows whose knee the simulator must find."""
    wanted = may_need_knee(scenarios)
    if not wanted.any():
        return []
    fits = (results["in_plan_total"].to_numpy() == 1) & (results["method"].to_numpy()
                                                         == "roofline")
    return [int(i) for i in np.flatnonzero(wanted & fits)]


def simulated_knees(scenarios: pd.DataFrame, results: pd.DataFrame,
                    tables: Tables) -> tuple[pd.DataFrame, tuple[str, ...]] | None:
    """The scenarios with each percentile row's simulated knee in ``knee_rps`` and a note for
    each row whose targets no rate meets (left to the closed form); None when no row needs
    one."""
    positions = rows_to_size(scenarios, results)
    if not positions:
        return None
    if len(positions) > MAX_KNEE_ROWS:
        raise InputError(
            f"{len(positions):,} rows have P99 targets (ttft_p99_ms or tpot_p99_ms) and a blank "
            f"knee_rps; each is simulated (about a second), and a build simulates at most "
            f"{MAX_KNEE_ROWS:,}. Nothing was written. Split the file, give those rows a "
            "knee_rps from your load test, or state mean targets (ttft_slo_ms, tpot_slo_ms)."
        )
    sized = scenarios.copy()
    column = list(sized.columns).index("knee_rps")
    notes: list[str] = []
    for i in positions:
        values = row_values(scenarios, results, i)
        model = tables.models.loc[values["model"]].to_dict()
        knee = find_knee(workload_for(values, model), float(values["instance_rps"]),
                         targets_of(values)).rate_rps
        if knee > 0 and math.isfinite(knee):
            sized.iat[i, column] = knee
        else:
            notes.append(f"scenario {values['scenario']!r}: no request rate meets its P99 "
                         "targets in simulation (even a trickle misses them, or its prompts "
                         "are too long to simulate within the bound); its instances follow "
                         "the closed form. Relax the targets, choose a faster configuration "
                         "or type your load test's knee in knee_rps.")
    return sized, tuple(notes)
