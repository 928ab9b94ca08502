"""Every column a reader sees in the workbook has a label in plain words (with its unit where it
has one), and the machine name stays beside it."""

from __future__ import annotations

from reportgen import schema
from reportgen.engine import RESULT_COLUMNS
from reportgen.labels import LABELS, label
from reportgen.render.plan_sheet import EXTRA_COLUMNS
from reportgen.render.summary_sheet import PER_SCENARIO, SUPPORT_LINES, TOTALS


def test_every_scenario_input_and_plan_column_has_a_label() -> None:
    names = [c.name for c in schema.COLUMNS] + list(RESULT_COLUMNS) + list(EXTRA_COLUMNS)
    names += [*TOTALS, *PER_SCENARIO, *(name for name, _, _ in SUPPORT_LINES)]
    assert [n for n in names if n not in LABELS] == []


def test_labels_are_words_not_machine_names() -> None:
    for name, text in LABELS.items():
        assert text != name and "_" not in text, (name, text)
        assert text[0].isupper(), (name, text)


def test_a_name_without_a_label_shows_as_itself() -> None:
    assert label("no_such_column") == "no_such_column"
    assert label("monthly_cost") == "Monthly cost (USD)"
