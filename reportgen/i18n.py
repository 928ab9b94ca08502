"""Words in the reader's language: gettext message catalogs, read with Babel.

Every label, note and sentence a reader sees is an English message id wrapped in :func:`_`
(or marked with :func:`N_` where it is defined as data and translated where it is shown). The
catalogs live in ``reportgen/locale/<lang>/LC_MESSAGES/reportgen.po`` (``reportgen.pot`` is the
template ``pybabel extract`` writes, see ``babel.cfg``); a build renders in one language,
chosen with :func:`language` around the rendering (``reportgen build --lang zh-CN``). The
engine and the results CSV stay in English: they are data, not words.

Numbers and dates follow the language too (:func:`locale_name` for Babel's formatters).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import gettext
import io
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "reportgen"
DEFAULT = "en"
# Language tag as users type it → the catalog folder (a POSIX locale name).
LANGUAGES: dict[str, str] = {"en": "en", "zh-CN": "zh_CN"}

_ENGLISH = gettext.NullTranslations()
_active: ContextVar[gettext.NullTranslations | None] = ContextVar(
    "reportgen_translations", default=None)
_tag: ContextVar[str] = ContextVar("reportgen_language", default=DEFAULT)


def N_(message: str) -> str:
    """Mark ``message`` for translation where it is defined; translate it where it is shown."""
    return message


def _(message: str) -> str:
    """``message`` in the active language (itself when it has no translation)."""
    return (_active.get() or _ENGLISH).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n`` in the active language."""
    return (_active.get() or _ENGLISH).ngettext(singular, plural, n)


def catalog_path(tag: str) -> Path:
    """The .po file of a language tag."""
    return LOCALE_DIR / LANGUAGES[tag] / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def translations(tag: str) -> gettext.NullTranslations:
    """The compiled catalog of ``tag`` (English: no catalog, messages as written)."""
    if tag == DEFAULT:
        return gettext.NullTranslations()
    from babel.messages import mofile, pofile  # only a translated build needs Babel

    with catalog_path(tag).open("rb") as po:
        catalog = pofile.read_po(po, locale=LANGUAGES[tag], domain=DOMAIN)
    compiled = io.BytesIO()
    mofile.write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


@contextlib.contextmanager
def language(tag: str) -> Iterator[None]:
    """Render in ``tag`` (a key of LANGUAGES) inside the block."""
    if tag not in LANGUAGES:
        raise ValueError(f"unknown language {tag!r}; expected one of {', '.join(LANGUAGES)}")
    active, current = _active.set(translations(tag)), _tag.set(tag)
    try:
        yield
    finally:
        _active.reset(active)
        _tag.reset(current)


def current() -> str:
    """The active language tag."""
    return _tag.get()


def locale_name() -> str:
    """The active language as a Babel locale name (en, zh_CN)."""
    return LANGUAGES[_tag.get()]


# How each language writes US dollars (CLDR's symbol for USD in the language's locale: in
# Chinese "$" alone could be any dollar).
_USD = {"en": "$", "zh-CN": "US$"}


def usd() -> str:
    """The US-dollar sign of the active language."""
    return _USD[_tag.get()]


def long_date(day: dt.date) -> str:
    """A date as the active language writes it in a document (English: ISO 8601, the form the
    workbook and file names use; Chinese: 2026年12月4日)."""
    if _tag.get() == DEFAULT:
        return day.isoformat()
    from babel.dates import format_date

    return str(format_date(day, format="long", locale=locale_name()))
