"""Bring every language's message catalog up to date with the messages the code and templates
use (reportgen.messages.catalog): new messages are added untranslated, gone ones are dropped,
translations already made are kept. Run it after changing any text a reader sees, then
translate the entries with an empty msgstr:

    .venv/bin/python scripts/update_messages.py
"""

from __future__ import annotations

import datetime as dt

from babel.messages import pofile
from babel.messages.catalog import Catalog

from reportgen.i18n import DEFAULT, LANGUAGES, catalog_path
from reportgen.messages import catalog

FIXED_DATE = dt.datetime(2026, 12, 4, tzinfo=dt.UTC)


def main() -> None:
    template = catalog()
    for tag, locale in LANGUAGES.items():
        if tag == DEFAULT:
            continue
        path = catalog_path(tag)
        if path.exists():
            with path.open("rb") as po:
                existing = pofile.read_po(po, locale=locale, domain="reportgen")
        else:
            existing = Catalog(locale=locale, domain="reportgen", project="reportgen")
        existing.update(template, no_fuzzy_matching=True)
        existing.obsolete.clear()
        existing.creation_date = existing.revision_date = FIXED_DATE  # no churn between runs
        existing.project, existing.version = "reportgen", ""
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as po:
            pofile.write_po(po, existing, width=100, sort_output=False, omit_header=False,
                            include_lineno=False)
        empty = sum(1 for m in existing if m.id and not all(
            m.string if isinstance(m.string, tuple) else (m.string,)))
        print(f"{path.name}: {len(existing)} messages, {empty} without a translation")  # noqa: T201


if __name__ == "__main__":
    main()
