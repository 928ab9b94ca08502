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


def test_notes_and_levers_rebuilt_in_the_reader_s_language_match_the_results_in_english() -> None:
    """Each row's notes and each lever's change and configuration are worded again for the
    report (so a translated report says them in its language); in English they are exactly the
    results' ``notes`` and the lever table's words. The rows say every sentence of the notes
    and every kind of lever; translated, no row keeps its English words."""
    import pandas as pd

    from reportgen.levers import in_words, with_levers
    from reportgen.quantities.notes import _NOTES
    from reportgen.render.context.scenario import notes_worded
    from tests.helpers import build_plan
    from tests.parity.conftest import PARITY_ROWS
    from tests.scenarios import base_row

    plan = with_levers(build_plan([*PARITY_ROWS, base_row(
        scenario="tutorial 405B", model="Llama-3.1-405B", gpu="L40S", method="tutorial")]))
    assert plan.levers is not None
    english = plan.results["notes"].tolist()
    assert notes_worded(plan) == english
    pd.testing.assert_frame_equal(in_words(plan, i18n._), plan.levers)
    said = " ".join(english)
    assert [text for _condition, text in _NOTES if text not in said] == []
    assert all(part in said for part in ("routed experts in", "on 2 nodes", "in one node",
                                         "Efficiencies calibrated on"))
    kinds = {lever.split(":")[0] for lever in plan.levers["lever"]}
    assert kinds >= {"next_tp", "next_pp", "gpu", "fp8_weights", "fp8_kv", "prefix_cache_30",
                     "tpot_target_looser", "safety_factor", "max_context_halved"}
    for tag in TRANSLATED:
        with i18n.language(tag):
            notes = notes_worded(plan)
            levers = in_words(plan, i18n._)
        assert all(t != e for t, e in zip(notes, english, strict=True) if e)
        assert all(t != e for t, e in zip(levers["change"], plan.levers["change"], strict=True))
        assert all(t != e for t, e in zip(levers["configuration"], plan.levers["configuration"],
                                          strict=True))
