"""Bring every language's message catalog up to date with the messages the code and templates
use (reportgen.messages.catalog): new messages are added untranslated, gone ones are dropped,
translations already made are kept. Run it after changing any text a reader sees, then
translate the entries with an empty msgstr:

    .venv/bin/python scripts/update_messages.py
    .venv/bin/python scripts/update_messages.py --lang zh-CN --from translated.po ...

``--from`` takes translations from other PO files (a translator's work on part of the
messages) into the language's catalog, for the messages the catalog has.
"""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from babel.messages import pofile
from babel.messages.catalog import Catalog

from reportgen.i18n import DEFAULT, LANGUAGES, catalog_path
from reportgen.messages import catalog

FIXED_DATE = dt.datetime(2026, 12, 4, tzinfo=dt.UTC)


def _take(existing: Catalog, sources: list[Path]) -> int:
    taken = 0
    for source in sources:
        with source.open("rb") as po:
            done = pofile.read_po(po)
        for message in done:
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            target = existing.get(message.id) if message.id else None
            if target is None or not strings[0]:
                continue
            if isinstance(target.id, tuple):  # a plural: the language's own number of forms
                forms = [s or strings[0] for s in strings[: existing.num_plurals]]
                target.string = tuple(forms + [strings[-1]] * (existing.num_plurals - len(forms)))
            else:
                target.string = strings[0]
            target.flags.discard("fuzzy")
            taken += 1
    return taken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=[t for t in LANGUAGES if t != DEFAULT])
    parser.add_argument("--from", dest="sources", nargs="*", type=Path, default=[])
    args = parser.parse_args()
    template = catalog()
    for tag, locale in LANGUAGES.items():
        if tag == DEFAULT or (args.lang and tag != args.lang):
            continue
        path = catalog_path(tag)
        if path.exists():
            with path.open("rb") as po:
                existing = pofile.read_po(po, locale=locale, domain="reportgen")
        else:
            existing = Catalog(locale=locale, domain="reportgen", project="reportgen")
        existing.update(template, no_fuzzy_matching=True)
        existing.obsolete.clear()
        if args.sources:
            print(f"{_take(existing, args.sources)} translations taken")  # noqa: T201
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
