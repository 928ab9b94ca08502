"""AWS Cost and Usage Report lines: which count, at which cost, and what is refused."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from reportgen.errors import ActualsError
from reportgen.review.actuals.billing import read_cur

COLUMNS = ("lineItem/LineItemType", "lineItem/UsageStartDate", "lineItem/UsageEndDate",
           "lineItem/UsageAmount", "lineItem/UnblendedCost", "lineItem/CurrencyCode",
           "product/instanceType", "savingsPlan/SavingsPlanEffectiveCost",
           "reservation/EffectiveCost", "resourceTags/user:workload")


def _line(kind: str, day: int, amount: float, unblended: float, instance: str, workload: str,
          sp: str = "", ri: str = "", currency: str = "USD") -> dict[str, object]:
    return dict(zip(COLUMNS, (kind, f"2026-01-{day:02d}T00:00:00Z",
                              f"2026-01-{day + 1:02d}T00:00:00Z", amount, unblended, currency,
                              instance, sp, ri, workload), strict=True))


def _write(tmp_path: Path, lines: list[dict[str, object]], columns: tuple[str, ...] = COLUMNS
           ) -> Path:
    path = tmp_path / "cur.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(lines)
    return path


def test_usage_is_costed_at_its_effective_rate_and_the_rest_left_out(tmp_path: Path) -> None:
    """Day 1: on demand, 24 h of p5.48xlarge (8 GPUs) at $1,320.96. Day 2: Savings Plan
    covered at $652.80 effective (the unblended on-demand equivalent and its negation do not
    count). Day 3: reserved at $600 effective. Plus tax, a CPU gateway and an untagged GPU."""
    lines = [
        _line("Usage", 1, 24, 1320.96, "p5.48xlarge", "chat"),
        _line("SavingsPlanCoveredUsage", 2, 24, 1320.96, "p5.48xlarge", "chat", sp="652.80"),
        _line("SavingsPlanNegation", 2, 24, -1320.96, "p5.48xlarge", "chat"),
        _line("DiscountedUsage", 3, 24, 0.0, "p5.48xlarge", "chat", ri="600"),
        _line("Tax", 1, 0, 99.0, "", "chat"),
        _line("Usage", 1, 24, 8.57, "c7i.2xlarge", "chat"),
        _line("Usage", 1, 24, 1320.96, "p5.48xlarge", ""),
    ]
    source = read_cur(_write(tmp_path, lines))
    row = source.periods.iloc[0]
    assert row["gpu_hours"] == pytest.approx(3 * 24 * 8)
    assert row["billed_cost"] == pytest.approx(1320.96 + 652.80 + 600)
    assert row["gpu"] == "H100-SXM"
    assert source.coverage["chat"] == (row["start"], row["end"])
    assert str(row["end"]) == "2026-01-04"
    notes = " ".join(source.notes)
    assert "SavingsPlanNegation -$1,320.96" in notes and "Tax $99.00" in notes
    assert "without a workload tag, unblended $1,320.96" in notes
    assert "non-GPU instances or services, unblended $8.57" in notes


@pytest.mark.parametrize(("lines", "columns", "message"), [
    ([_line("Usage", 1, 24, 100.0, "p9.48xlarge", "chat")], COLUMNS,
     "'p9.48xlarge' looks like a GPU instance but its GPU count is unknown"),
    ([_line("Usage", 1, 24, 100.0, "p5.48xlarge", "chat", currency="EUR")], COLUMNS,
     "costs in EUR"),
    ([_line("Usage", 1, 24, 100.0, "p5.48xlarge", "chat")], COLUMNS[:-1],
     "no column resourceTags/user:workload"),
    ([_line("SavingsPlanCoveredUsage", 1, 24, 100.0, "p5.48xlarge", "chat")],
     tuple(c for c in COLUMNS if not c.startswith("savingsPlan")),
     "SavingsPlanCoveredUsage line items but no column savingsPlan/SavingsPlanEffectiveCost"),
])
def test_what_cannot_be_costed_is_refused(tmp_path: Path, lines: list[dict[str, object]],
                                          columns: tuple[str, ...], message: str) -> None:
    with pytest.raises(ActualsError, match=message):
        read_cur(_write(tmp_path, lines, columns))
