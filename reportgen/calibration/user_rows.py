"""Your efficiency rows in a plan: joined to the shipped table before the estimate (a row of the
same key replaces the shipped one), and, after it, which rows the plan's scenarios use and what
each replaced. The PDF's calibration page and the workbook's Efficiency sheet show this, only
when a scenario uses one of your rows."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from reportgen.calibration.efficiency_file import UserEfficiency, default_key, join
from reportgen.catalog import Catalogs
from reportgen.validate import ValidatedInput


@dataclass(frozen=True)
class UserCalibration:
    """The user's efficiency rows as the plan applied them."""

    user: UserEfficiency
    shipped: pd.DataFrame  # the shipped table, for the comparison with the defaults
    applied: tuple[str, ...]  # user keys that changed the table (not equal to a shipped row)
    replaced: tuple[str, ...]  # keys whose shipped row the user's row replaced
    defaults: dict[str, str]  # user key → the row scenarios would use without it
    used: tuple[str, ...] = ()  # user keys some scenario uses, in the file's order
    notes: tuple[str, ...] = ()  # how the rows were found, when a person should know

    @property
    def keys(self) -> tuple[str, ...]:
        """Every key of yours that the plan's table holds, in the file's order."""
        return self.applied

    def warnings(self) -> tuple[str, ...]:
        """What a person should know about how the rows were applied."""
        out = [*self.notes]
        out += [f"{self.user.source}: your row {k} replaces the shipped row of the same key."
                for k in self.replaced]
        unused = [k for k in self.keys if k not in self.used]
        if unused:
            rows, verb = ("rows", "apply") if len(unused) > 1 else ("row", "applies")
            out.append(
                f"{self.user.source}: {rows} {', '.join(unused)} {verb} to no scenario (a row "
                "<gpu>-<precision>-<engine> applies to scenarios on that GPU, compute precision "
                "and engine); the shipped rows were used.")
        return tuple(out)


def apply(checked: ValidatedInput, user: UserEfficiency, catalogs: Catalogs,
          notes: tuple[str, ...] = ()) -> tuple[ValidatedInput, UserCalibration]:
    """The input with the user's rows in its efficiency table."""
    shipped = checked.tables.efficiency
    table, applied, replaced = join(shipped, user)
    defaults = {k: default_key(k, shipped, catalogs) for k in applied}
    tables = dataclasses.replace(checked.tables, efficiency=table)
    inputs = (*checked.inputs, *user.files)
    return (dataclasses.replace(checked, tables=tables, inputs=inputs),
            UserCalibration(user, shipped, tuple(applied), tuple(replaced), defaults,
                            notes=notes))


def mark_used(calibration: UserCalibration, results: pd.DataFrame) -> UserCalibration:
    """The calibration with the keys the plan's counted scenarios use."""
    counted = results[results["counted"] == 1]
    keys = set(counted["efficiency_key"].astype(str))
    return dataclasses.replace(calibration, used=tuple(k for k in calibration.keys if k in keys))
