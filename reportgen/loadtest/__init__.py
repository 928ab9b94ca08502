"""Load-test results from the tools people run against their serving stack, read into one typed
record per run (:class:`Run`, units normalised) whatever tool wrote them.

One small module per tool maps that tool's file onto :class:`Run`: :mod:`.vllm` (``vllm bench
serve``), :mod:`.sglang` (``bench_serving``), :mod:`.guidellm`, :mod:`.genai_perf`,
:mod:`.aiperf` and :mod:`.llmperf`. The format is recognised by the document's structure, never
by the file's name (:func:`read_results`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from reportgen.loadtest import aiperf, files, genai_perf, guidellm, llmperf, sglang, vllm
from reportgen.loadtest.files import Document, ResultFileError
from reportgen.loadtest.run import RUN_COLUMNS, UNITS, Run, checked, runs_frame

__all__ = ["READERS", "RUN_COLUMNS", "UNITS", "ResultFileError", "Run", "detect", "read_file",
           "read_results", "runs_frame"]

READERS: tuple[ModuleType, ...] = (vllm, sglang, guidellm, aiperf, genai_perf, llmperf)
EXPECTED = (
    "the results of vllm bench serve (--save-result JSON, or JSON Lines from --append-result), "
    "SGLang bench_serving (--output-file JSON Lines), GuideLLM (benchmarks.json, .yaml or "
    ".csv), genai-perf or AIPerf (profile_export_genai_perf.json/.csv, "
    "profile_export_aiperf.json/.csv) or llmperf (*_summary.json)"
)

# Files of the same tools that hold something else, and the file to give instead.
_NEAR_MISSES: tuple[tuple[Callable[[Document], bool], str], ...] = (
    (lambda d: d.kind in ("json", "jsonl") and all(isinstance(r, dict) and "metrics" in r
                                                   and "metadata" in r for r in d.records),
     "AIPerf's per-request log (profile_export.jsonl); give profile_export_aiperf.json from "
     "the same folder"),
    (lambda d: d.kind == "json" and isinstance(d.value, list) and bool(d.value)
     and isinstance(d.value[0], dict) and "ttft_s" in d.value[0],
     "llmperf's individual responses; give the *_summary.json written beside it"),
    (lambda d: d.kind == "json" and isinstance(d.value, dict) and "experiments" in d.value,
     "perf_analyzer's raw per-request export (profile_export.json); give "
     "profile_export_genai_perf.json from the same folder"),
    (lambda d: d.kind == "json" and isinstance(d.value, list) and bool(d.value)
     and isinstance(d.value[0], dict) and "benchmark" in d.value[0] and "model" in d.value[0],
     "vLLM's PyTorch benchmark records (*.pytorch.json); give the result JSON written beside "
     "it"),
)


def _shape(doc: Document) -> str:
    value = doc.value
    if doc.kind == "csv":
        first = ",".join(value[0][:6]) if value else ""
        return f"a CSV file whose first row is {first!r}"
    if doc.kind == "jsonl":
        value = doc.records[0] if doc.records else {}
    if isinstance(value, dict):
        keys = ", ".join(list(map(str, value))[:8])
        return f"a {doc.kind.upper()} object with keys {keys or '(none)'}"
    return f"a {doc.kind.upper()} {type(value).__name__}"


def detect(doc: Document) -> ModuleType:
    """The reader whose structure the document has; ResultFileError if none or several."""
    found = [reader for reader in READERS if reader.detect(doc)]
    if len(found) == 1:
        return found[0]
    for test, what in _NEAR_MISSES:
        if test(doc):
            raise files.fail(doc.source, f"is {what.split(';')[0]}", EXPECTED,
                             what.split("; ", 1)[1].capitalize() + ".")
    if found:
        tools = " and ".join(r.TOOL for r in found)
        raise files.fail(doc.source, f"matches the formats of {tools} at once", EXPECTED,
                         "Give the file as the tool wrote it.")
    raise files.fail(doc.source, f"is not a load-test result reportgen recognises "
                     f"({_shape(doc)})", EXPECTED,
                     "Give one of those files; docs/calibration.md shows how to run each tool.")


def _one_model(source: str, runs: Sequence[Run]) -> None:
    models: dict[str, list[str]] = {}
    for run in runs:
        if run.model:
            models.setdefault(run.model, []).append(run.label)
    if len(models) > 1:
        listed = "; ".join(f"{m!r} ({', '.join(labels[:3])}{' …' if len(labels) > 3 else ''})"
                           for m, labels in models.items())
        raise files.fail(source, f"mixes models: {listed}", "one model per result file",
                         "Split the file so that each holds the runs of one model (for JSON "
                         "Lines, one line per run).")


def read_file(path: Path) -> list[Run]:
    """The runs of one result file (every run checked usable)."""
    doc = files.load(path)
    runs: list[Run] = detect(doc).read(doc)
    if not runs:
        raise files.fail(doc.source, "holds no runs", "at least one run", "Rerun the load test.")
    _one_model(doc.source, runs)
    return checked(runs)


def read_results(paths: Sequence[Path]) -> list[Run]:
    """The runs of every file; one ResultFileError listing the problems of all files."""
    runs: list[Run] = []
    problems: list[str] = []
    for path in paths:
        try:
            runs += read_file(path)
        except ResultFileError as err:
            problems += err.problems
    if problems:
        raise ResultFileError(problems)
    return runs
