"""Text as a person sees it: invisible characters made visible in messages, and the identity of
a name (what makes two names "the same" to a reader).

Invisible characters are the C0/C1 control characters and the Unicode "format" characters
(category Cf): zero-width spaces and joiners, the byte-order mark, the soft hyphen, and the
bidirectional controls that make text display in another order than it is stored.
"""

from __future__ import annotations

import re
import unicodedata

# Shown escaped in messages: controls as \xNN, format characters as \uNNNN.
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_FORMAT = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]"
)
_INVISIBLE = re.compile(f"{_CONTROLS.pattern[:-1]}{_FORMAT.pattern[1:]}")
# Embeddings, overrides and isolates: they reorder what is displayed (a name that reads
# "report.txt" may be stored as "txt.troper"); refused in text cells.
BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
_SPACES = re.compile(r"\s+")


_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    if ch in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, limit: int = 60) -> str:
    """``text`` safe to echo: invisible characters escaped, at most ``limit`` characters."""
    if not text.isascii() or _CONTROLS.search(text):
        text = _INVISIBLE.sub(_escape, text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def has_invisible(text: str) -> bool:
    """Whether ``text`` holds a character a reader cannot see (other than plain spaces)."""
    return bool(_INVISIBLE.search(text))


def describe_invisible(text: str) -> str:
    """The invisible characters in ``text``, named: "U+200B ZERO WIDTH SPACE, U+000A (a line
    break)"; "" when there are none."""
    seen: dict[str, None] = {}
    for ch in _INVISIBLE.findall(text):
        seen.setdefault(ch)
    return ", ".join(_name(ch) for ch in seen)


def _name(ch: str) -> str:
    code = f"U+{ord(ch):04X}"
    if ch in "\n\r":
        return f"{code} (a line break)"
    if ch == "\t":
        return f"{code} (a tab)"
    return f"{code} {unicodedata.name(ch, 'control character')}"


def identity(name: str) -> str:
    """What two names must share to be the same name to a reader: Unicode normal form (NFC),
    no invisible characters, runs of spaces as one, case ignored."""
    if name.isascii() and not _CONTROLS.search(name):
        return " ".join(name.split()).casefold() if "  " in name else name.strip().casefold()
    text = _INVISIBLE.sub("", unicodedata.normalize("NFC", name))
    return _SPACES.sub(" ", text).strip().casefold()
