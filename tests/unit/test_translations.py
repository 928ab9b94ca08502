"""Every message a reader may see (reportgen.messages.catalog: what the code and templates mark
for translation, and the quantities', input columns' and constants' own texts) has a translation
in every language's catalog, and each translation keeps the message's {placeholders}, so a
label that lacks one fails here, not in front of a reader."""

from __future__ import annotations

import re

import pytest
from babel.messages import pofile

from reportgen import i18n
from reportgen.messages import catalog

PLACEHOLDER = re.compile(r"\{[a-z_]*\}")
TRANSLATED = [tag for tag in i18n.LANGUAGES if tag != i18n.DEFAULT]


@pytest.fixture(scope="module")
def messages() -> list[str | tuple[str, str]]:
    return [m.id for m in catalog() if m.id]


@pytest.mark.parametrize("tag", TRANSLATED)
def test_every_message_is_translated(tag: str, messages: list[str | tuple[str, str]]) -> None:
    with i18n.catalog_path(tag).open("rb") as po:
        translated = pofile.read_po(po, locale=i18n.LANGUAGES[tag])
    missing, broken = [], []
    for msgid in messages:
        entry = translated.get(msgid)
        strings = () if entry is None else (
            entry.string if isinstance(entry.string, tuple) else (entry.string,))
        if not strings or not all(strings):
            missing.append(msgid)
            continue
        sources = (msgid,) if isinstance(msgid, str) else msgid
        wanted = {p for source in sources for p in PLACEHOLDER.findall(source)}
        for text in strings:
            if set(PLACEHOLDER.findall(text)) != wanted:
                broken.append((msgid, text))
    assert missing == [], (f"{len(missing)} messages have no {tag} translation (run "
                           f"scripts/update_messages.py, then translate): {missing[:10]}")
    assert broken == [], f"translations that change the placeholders: {broken[:10]}"


@pytest.mark.parametrize("tag", TRANSLATED)
def test_a_translated_build_speaks_its_language(tag: str) -> None:
    from reportgen.labels import label

    with i18n.language(tag):
        assert label("monthly_cost") != "Monthly cost (USD)"
        assert i18n.current() == tag
    assert label("monthly_cost") == "Monthly cost (USD)"  # English again outside the block


def test_decisions_rebuilt_in_the_reader_s_language_match_the_results_in_english() -> None:
    """The Decisions page words each row's decision at render time (so a translated report
    says it in its language); in English that is exactly the results' ``decision`` column."""
    from reportgen.choose import decision_sentences
    from tests.helpers import build_plan
    from tests.scenarios import base_row

    plan = build_plan([
        base_row(scenario="a", gpu="H100|H200", workload="w"),
        base_row(scenario="b", gpu="L40S", workload="w"),
        base_row(scenario="c", method="tutorial"),
    ])
    assert decision_sentences(plan.results, plan.search) == plan.results["decision"].tolist()
    for tag in TRANSLATED:
        with i18n.language(tag):
            translated = decision_sentences(plan.results, plan.search)
        assert translated != plan.results["decision"].tolist()
