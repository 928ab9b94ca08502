"""A load-test result file as a parsed document: bytes read safely, then JSON, JSON Lines, YAML
or CSV by what the text looks like (never by the file's name).

Reading goes through :func:`reportgen.inputfiles.read_input`: regular files only, at most
MAX_RESULT_BYTES.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen.errors import InputError, InputFileError
from reportgen.inputfiles import read_input

MAX_RESULT_BYTES = 256 * 2**20  # a GuideLLM sweep that keeps 10 sampled requests per run: ~5 MB


class ResultFileError(InputError):
    """A load-test result file cannot be used: every problem found, one per line."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        n = len(self.problems)
        head = (f"{n} problem{'s' if n != 1 else ''} with the load-test results; "
                "nothing was written.")
        super().__init__("\n".join([head, *("  " + p for p in self.problems)]))


def fail(source: str, what: str, expected: str, todo: str) -> ResultFileError:
    """One problem as the message shows it: where, what was found, expected, what to do."""
    return ResultFileError([f"{source}: {what}; expected {expected}. {todo}"])


def read_bytes(path: Path, *, what: str, limit: int = MAX_RESULT_BYTES) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``)."""
    try:
        data, _ = read_input(path, what=what, limit=limit,
                             too_big="Give the summary file, not per-request logs.")
    except InputFileError as err:
        raise ResultFileError([str(err)]) from None
    return data


@dataclass(frozen=True)
class Document:
    """A parsed result file: ``kind`` is "json" (one value), "jsonl" (one value per line),
    "yaml" or "csv" (rows of cells)."""

    source: str
    kind: str
    value: Any

    @property
    def records(self) -> list[Any]:
        """The top-level values: the lines of JSON Lines, else the one value."""
        return list(self.value) if self.kind == "jsonl" else [self.value]


def _text(source: str, data: bytes) -> str:
    if not data.strip():
        raise fail(source, "is empty", "a load-test result file",
                   "Was the load test interrupted before it saved its results?")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise fail(source, f"is not UTF-8 text (byte 0x{data[err.start]:02X} at offset "
                   f"{err.start:,})", "the JSON, YAML or CSV file the load-test tool wrote",
                   "Give the tool's result file itself, not an archive or a spreadsheet.") from None


def _json_lines(source: str, text: str) -> Document:
    values = []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            values.append(json.loads(line))
        except json.JSONDecodeError as err:
            last = all(not rest.strip() for rest in lines[number:])
            cut = (" (the last line is cut short: was the file still being written?)"
                   if last else "")
            raise fail(source, f"line {number} is not valid JSON ({err.msg}, column "
                       f"{err.colno}){cut}", "one complete JSON object per line",
                       "Rerun the load test, or delete the broken line.") from None
    return Document(source, "jsonl", values)


def _json(source: str, text: str) -> Document:
    try:
        return Document(source, "json", json.loads(text))
    except json.JSONDecodeError as err:
        if err.msg == "Extra data":  # several JSON values: --append-result writes JSON Lines
            return _json_lines(source, text)
        at_end = not text[err.pos:].strip()
        if at_end:
            raise fail(source, f"ends before the JSON is complete (line {err.lineno}, column "
                       f"{err.colno}: {err.msg}); the file is truncated",
                       "the complete JSON the tool wrote",
                       "The load test may have been interrupted while saving: rerun it, or "
                       "copy the file again.") from None
        raise fail(source, f"is not valid JSON at line {err.lineno}, column {err.colno} "
                   f"({err.msg})", "the JSON the tool wrote, unedited",
                   "Give the tool's original result file.") from None


def _looks_like_csv(text: str) -> bool:
    first = text.lstrip().split("\n", 1)[0]
    return first.count(",") >= 2 and not first.rstrip().endswith(":")


def _csv(source: str, text: str) -> Document:
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as err:
        raise fail(source, f"is not valid CSV ({err})", "the CSV file the tool wrote",
                   "Give the tool's original result file.") from None
    return Document(source, "csv", rows)


def _yaml(source: str, text: str) -> Document:
    import yaml

    try:
        value = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise fail(source, f"is neither JSON, CSV nor valid YAML{where} "
                   f"({getattr(err, 'problem', None) or type(err).__name__})",
                   "the JSON, YAML or CSV file a load-test tool wrote",
                   "Give the tool's original result file.") from None
    return Document(source, "yaml", value)


def parse(source: str, data: bytes) -> Document:
    """The document in ``data``, by its first characters: JSON (or JSON Lines), CSV, YAML."""
    text = _text(source, data)
    head = text.lstrip()[:1]
    if head in "{[":
        return _json(source, text)
    if _looks_like_csv(text):
        return _csv(source, text)
    return _yaml(source, text)


def load(path: Path) -> Document:
    """Read and parse the result file ``path``."""
    return parse(str(path), read_bytes(path, what="a load-test result file"))
