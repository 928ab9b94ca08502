"""Whatever a result file holds, reading it ends in runs or in a ResultFileError with the file's
name: never another exception. Real-shaped fixtures with one field replaced by any JSON value,
and arbitrary JSON documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.loadtest import detect
from reportgen.loadtest.files import ResultFileError, parse
from reportgen.loadtest.run import checked

FIXTURES = Path(__file__).parents[1] / "loadtest" / "fixtures"
JSON_FIXTURES = sorted(p for p in FIXTURES.iterdir() if p.suffix in (".json", ".jsonl"))

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12,
)


def _read(source: str, data: bytes) -> None:
    try:
        doc = parse(source, data)
        checked(detect(doc).read(doc))
    except ResultFileError as err:
        assert all(p.startswith(source) for p in err.problems), err.problems


def _paths(value: Any, prefix: tuple[Any, ...] = (), depth: int = 4) -> list[tuple[Any, ...]]:
    """Key paths into a JSON value (dict keys, the first list items), to ``depth`` levels."""
    out = [prefix] if prefix else []
    if len(prefix) >= depth:
        return out
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k), depth)
    elif isinstance(value, list):
        for i, v in enumerate(value[:2]):
            out += _paths(v, (*prefix, i), depth)
    return out


def _documents(path: Path) -> list[Any]:
    text = path.read_text()
    return [json.loads(text)] if path.suffix == ".json" else [json.loads(x) for x in
                                                               text.splitlines() if x]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(JSON_FIXTURES), st.data(), json_values)
def test_one_field_replaced(path: Path, data: st.DataObject, replacement: Any) -> None:
    documents = _documents(path)
    target = documents[0]
    depth = data.draw(st.integers(1, 4))  # shallow paths as often as deep ones
    where = data.draw(st.sampled_from(_paths(target, depth=depth)))
    node = target
    for step in where[:-1]:
        node = node[step]
    node[where[-1]] = replacement
    text = "\n".join(json.dumps(d, allow_nan=True) for d in documents)
    _read("fuzz.json", text.encode())


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_any_json_document(value: Any) -> None:
    _read("any.json", json.dumps(value, allow_nan=True).encode())


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes(data: bytes) -> None:
    _read("bytes.bin", data)
