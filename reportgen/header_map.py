"""Which column of a scenario file is which reportgen column.

A header cell names a column when, case and spaces aside (``Peak QPS`` is ``peak_qps``), it is a
column name. Any other header is either

* **misspelt**: close to a column (``peak-qps``, ``tpot_ms``, ``peak_qps`` with a zero-width
  space, ``peak_qps (req/s)``, a common synonym such as ``batch_size``): an error quoting the
  header as written, invisible characters made visible, with the column it probably means. A
  misspelt optional column would otherwise drop its values without a word (a latency target
  ignored is a smaller fleet);
* **unrelated** (``comment``, ``owner``): ignored with a warning, summarised when there are many.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field

from reportgen import schema
from reportgen.errors import Issue
from reportgen.visible import describe_invisible, has_invisible, visible

WARNINGS_LISTED = 5  # unrelated columns named one by one; more are summarised
_KNOWN = tuple(c.name for c in schema.COLUMNS)
_INVISIBLE_OR_FORMAT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u200b-\u200f"
                                  "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")
_NOT_ALNUM = re.compile(r"[^0-9a-z]+")
_UNIT = re.compile(r"[(\[{\n\r].*$", re.DOTALL)  # "peak_qps (req/s)", "peak_qps\nreq/s"
# What people write for a column in other tools (vLLM flags, load-test reports, spreadsheets).
SYNONYMS: dict[str, str] = {
    "qps": "peak_qps", "rps": "peak_qps", "requests_per_second": "peak_qps",
    "prompt_tokens": "avg_prompt_tokens", "input_tokens": "avg_prompt_tokens",
    "input_len": "avg_prompt_tokens", "isl": "avg_prompt_tokens",
    "output_tokens": "avg_output_tokens", "output_len": "avg_output_tokens",
    "osl": "avg_output_tokens",
    "tensor_parallel": "tp", "tensor_parallel_size": "tp", "tp_size": "tp",
    "dtype": "weight_dtype", "precision": "weight_dtype", "quantization": "weight_dtype",
    "kv_cache_dtype": "kv_dtype",
    "batch_size": "max_batch", "max_num_seqs": "max_batch", "max_batch_size": "max_batch",
    "ttft": "ttft_slo_ms", "ttft_ms": "ttft_slo_ms", "tpot": "tpot_slo_ms",
    "tpot_ms": "tpot_slo_ms", "itl": "tpot_slo_ms", "itl_ms": "tpot_slo_ms",
    "price": "gpu_hour_price", "gpu_price": "gpu_hour_price", "price_per_gpu_hour":
    "gpu_hour_price",
    "name": "scenario", "scenario_name": "scenario", "model_name": "model",
    "gpu_type": "gpu", "gpu_name": "gpu", "accelerator": "gpu",
}


@dataclass
class HeaderMap:
    """Header position of each reportgen column, and what is wrong with the header."""

    positions: dict[str, int] = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def column_letter(index: int) -> str:
    """The spreadsheet name of a 0-based column position: 0 → A, 27 → AB."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def _key(cell: str) -> str:
    """The column name a header cell spells when case and spaces are ignored."""
    return cell.strip().lower().replace(" ", "_")


def _tokens(text: str) -> str:
    """Lower-case words joined by "_": "Peak-QPS\u200b" → "peak_qps"."""
    text = unicodedata.normalize("NFKC", _INVISIBLE_OR_FORMAT.sub("", text)).lower()
    return _NOT_ALNUM.sub("_", text).strip("_")


def related_columns(cell: str) -> list[str]:
    """The reportgen columns a header cell that is not one probably means (best first); [] when
    it is clearly about something else."""
    whole = _tokens(cell)
    head = _tokens(_UNIT.sub("", cell))
    for candidate in (whole, head):
        if candidate in _KNOWN:
            return [candidate]
        if candidate in SYNONYMS:
            return [SYNONYMS[candidate]]
    if head:
        words = set(head.split("_"))
        within = [k for k in _KNOWN if words <= set(k.split("_"))]
        if within:
            return sorted(within, key=len)[:2]
    return difflib.get_close_matches(head or whole, _KNOWN, n=1, cutoff=0.75)


def _or(names: list[str]) -> str:
    return " or ".join(f'"{n}"' for n in names)


def map_header(header: list[str], source: str) -> HeaderMap:
    """Match header cells to reportgen columns; every problem as an Issue on row 1."""
    result = HeaderMap()
    unrelated: list[str] = []
    meant: dict[str, str] = {}  # a column → the misspelt header that probably means it
    for i, cell in enumerate(header):
        key = _key(cell)
        if not key:
            continue
        if key in _KNOWN:
            if key in result.positions:
                result.issues.append(Issue(1, key, "the column appears twice", "each column once",
                                           hint="delete one of them"))
            else:
                result.positions[key] = i
            continue
        related = related_columns(cell)
        if not related:
            unrelated.append(cell)
            continue
        for name in related:
            meant.setdefault(name, cell)
        invisible = describe_invisible(cell)
        found = f'the header "{visible(cell)}" is not a reportgen column'
        if invisible:
            found += f" (it holds {invisible})"
        result.issues.append(Issue(
            1, column_letter(i), found, "a column name from `reportgen columns`",
            hint=f"did you mean {_or(related)}? Rename the header"
            + (", or delete the invisible characters" if has_invisible(cell) else "")))
    missing = [c for c in schema.REQUIRED if c not in result.positions and c not in meant]
    if missing:
        spelt = {_tokens(cell): cell for cell in unrelated}
        guesses = {c: difflib.get_close_matches(c, list(spelt), n=1, cutoff=0.6)
                   for c in missing}
        hint = "; ".join(f'for {c}, did you mean "{visible(spelt[g[0]])}"?'
                         for c, g in guesses.items() if g)
        result.issues.append(Issue(
            1, None, "missing required column" + ("s " if len(missing) > 1 else " ")
            + ", ".join(missing), "a header row with at least " + ", ".join(schema.REQUIRED),
            hint=hint or "column names are case-insensitive; see `reportgen columns`"))
    result.warnings = _unrelated_warnings(unrelated, source)
    return result


def _unrelated_warnings(unrelated: list[str], source: str) -> list[str]:
    quoted = [f'"{visible(cell)}"' for cell in unrelated]
    if len(quoted) <= WARNINGS_LISTED:
        return [f"{source}: column {q} is not a reportgen column and is ignored" for q in quoted]
    return [f"{source}: {len(quoted):,} columns are not reportgen columns and are ignored, "
            f"the first {WARNINGS_LISTED}: {', '.join(quoted[:WARNINGS_LISTED])}"]
