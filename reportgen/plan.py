"""The data every renderer receives: validated inputs, the tables they were read against, the
results, and where they came from."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from reportgen.engine import Tables
from reportgen.i18n import N_, _
from reportgen.search import Search

if TYPE_CHECKING:
    from collections.abc import Mapping

    import numpy as np

    from reportgen.calibration.user_rows import UserCalibration
    from reportgen.finance.prices import PriceBook
    from reportgen.simulate.plan_latency import LatencyUnderLoad


DEFAULT_TITLE = N_("GPU capacity and budget plan")  # when the build is given no --title


@dataclass(frozen=True)
class Provenance:
    """Where a plan came from, stamped on every output."""

    title: str
    input_name: str
    input_sha256: str
    generated: dt.date
    version: str
    # Canonical digests of the validated inputs and of the reference data (constants, GPU, model
    # and efficiency tables): recomputable from an output, so edits are detected (digest.py).
    inputs_digest: str = ""
    reference_digest: str = ""

    def shown_title(self) -> str:
        """The title as a reader sees it: the default title in the active language."""
        return _(self.title) if self.title == DEFAULT_TITLE else self.title


@dataclass(frozen=True)
class Plan:
    """A validated scenario set, the configuration chosen for each row, and its estimate.

    ``scenarios`` has every schema column, one row per input row, blanks as NaN (numbers) or ""
    (text), model and GPU as catalog names, and the searched columns set to the configuration
    the search chose for the row: the engine's input. ``typed`` is the same rows as the user
    typed them and ``specs`` what they searched (see validate.ValidatedInput; ``typed`` equals
    ``scenarios`` outside the searched columns). ``tables`` holds the GPU, model and efficiency
    rows lookups read (shipped catalog plus any model or GPU defined by the input);
    ``results`` has one column per quantity, in registry order, then the decision columns
    (choose.DECISION_COLUMNS); ``search`` keeps each row's best candidates; ``levers`` lists
    what each budgeted (or unfit) row's single changes would cost (levers.LEVER_COLUMNS) —
    computed for the reports (levers.with_levers), not for a results table.
    """

    scenarios: pd.DataFrame
    tables: Tables
    results: pd.DataFrame
    provenance: Provenance
    typed: pd.DataFrame
    specs: pd.DataFrame
    search: Search
    levers: pd.DataFrame | None = None
    calibration: UserCalibration | None = None  # your efficiency rows, when a file gave some
    # Latency under load of the budgeted rows and their day under each scaling policy,
    # simulated for the reports (simulate.plan_latency.with_latency), not for a results table.
    latency: LatencyUnderLoad | None = None
    simulation_notes: tuple[str, ...] = ()  # rows whose P99 targets no simulated rate meets
    prices: PriceBook | None = None  # the price book the GPUs were priced from
    profiles: Mapping[str, np.ndarray] | None = None  # daily demand profiles by workload
