"""genai-perf (NVIDIA, now succeeded by AIPerf): ``profile_export_genai_perf.json`` and
``profile_export_genai_perf.csv`` in the run's artifact folder.

JSON (triton-inference-server/perf_analyzer ``genai-perf/genai_perf/export_data/``
``json_exporter.py``): metric objects at top level (``request_throughput``,
``request_latency``, ``time_to_first_token``, ``inter_token_latency``,
``output_token_throughput``, ``output_sequence_length``, ``input_sequence_length``,
``request_count`` in later versions) and ``input_config`` (the command's arguments: ``model`` as a
list, ``concurrency``, ``request_rate``, ``streaming``). CSV (``csv_exporter.py``): numbers
written with thousands separators ("1,234.56"); the CSV names no model or load.
"""

from __future__ import annotations

import math

from reportgen.loadtest import profile_export
from reportgen.loadtest.files import Document
from reportgen.loadtest.run import Run
from reportgen.loadtest.values import dig, first_text

TOOL = "genai-perf"


def _is_aiperf_csv(header: list[str]) -> bool:
    return "sum" in header or "std" in header


def detect(doc: Document) -> bool:
    if doc.kind == "csv":
        header = [c.strip().lower() for c in (doc.value[0] if doc.value else [])]
        return header[:2] == ["metric", "avg"] and not _is_aiperf_csv(header)
    value = doc.value
    return (doc.kind == "json" and isinstance(value, dict) and "aiperf_version" not in value
            and "schema_version" not in value
            and isinstance(dig(value, "time_to_first_token", "unit"), str)
            and isinstance(dig(value, "request_throughput", "avg"), int | float | str))


def read(doc: Document) -> list[Run]:
    if doc.kind == "csv":
        summary = profile_export.from_csv(doc.value)
        config: dict[str, object] = {}
    else:
        summary = profile_export.from_json(doc.value)
        config = dig(doc.value, "input_config") or {}
    return [profile_export.run(
        summary, source=doc.source, tool=TOOL, version="", label="the run",
        model=first_text(dig(config, "model"), dig(config, "formatted_model_name")), date="",
        load=profile_export.load_text(dig(config, "concurrency"), dig(config, "request_rate")),
        failed=math.nan,
    )]
