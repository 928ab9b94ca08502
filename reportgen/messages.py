"""Every message a reader may see, collected for the translators: what ``_()``, ``N_()`` and
``ngettext()`` mark in the package and the report templates (Babel's extractors), plus the texts
that are data rather than code: each quantity's meaning (workbook notes, the formula annex),
each input column's help (Scenarios notes) and each constant's meaning and source (Assumptions).

``python scripts/update_messages.py`` writes them into every language's catalog, keeping the
translations already there; ``tests/unit/test_translations.py`` fails while any lacks one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent
TEMPLATES = ROOT / "templates"
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
_METHODS = {
    "python": [("**.py", "python")],
    "jinja2": [("**.j2", "jinja2")],
}


def _marked(folder: Path, method: str) -> Iterator[tuple[str | tuple[str, str], str]]:
    for name, line, message, _comments, _context in extract_from_dir(
            str(folder), _METHODS[method], keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
            options_map={"**.j2": {"extensions": "jinja2.ext.do"}}):
        text = message if isinstance(message, str) else tuple(message)
        yield text, f"{folder.name}/{name}:{line}"  # type: ignore[misc]


def _data_texts() -> Iterator[tuple[str, str]]:
    from reportgen import schema
    from reportgen.choose import GUARDS
    from reportgen.quantities import REGISTRY
    from reportgen.render.workbook import TABLE_EDITS
    from reportgen.simulate.plan_latency import DAY_TABLE_COLUMNS, LATENCY_COLUMNS
    from reportgen.units import CONSTANTS

    for q in REGISTRY.values():
        yield q.doc, f"quantity {q.name}"
    for column in schema.COLUMNS:
        yield column.help, f"input column {column.name}"
    for constant in CONSTANTS.values():
        yield constant.doc, f"constant {constant.name}"
        yield constant.source, f"constant {constant.name} (source)"
    for name, (_unit, meaning) in {**LATENCY_COLUMNS, **DAY_TABLE_COLUMNS}.items():
        yield meaning, f"simulated column {name}"
    for name, _template, note in GUARDS:
        yield note, f"Plan column {name}"
    for table, (edits, _derived) in TABLE_EDITS.items():
        for name, note in edits.items():
            yield note, f"{table} table column {name}"


def catalog() -> Catalog:
    """The template catalog: every message, where it comes from."""
    out = Catalog(project="reportgen", domain="reportgen", charset="utf-8")
    for folder, method in ((PACKAGE, "python"), (TEMPLATES, "jinja2")):
        for text, where in _marked(folder, method):
            out.add(text, locations=[(where, 0)])
    for text, where in _data_texts():
        if text:
            out.add(text, locations=[(where, 0)])
    return out
