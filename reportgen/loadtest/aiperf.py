"""AIPerf (NVIDIA's successor to genai-perf): ``profile_export_aiperf.json`` and
``profile_export_aiperf.csv``.

JSON (ai-dynamo/aiperf ``src/aiperf/exporters/metrics_json_exporter.py``,
``aiperf/common/models/export_models.py``): ``schema_version``, ``aiperf_version``, metric
objects at top level as genai-perf wrote them (plus ``request_count``, ``error_request_count``,
``benchmark_duration``), ``start_time`` (ISO), ``was_cancelled``, ``is_complete`` (a run that is
not complete is refused), ``input_config.endpoint.model_names`` and
``input_config.loadgen.concurrency``/``request_rate``. CSV (``metrics_csv_exporter.py``):
``Metric,avg,min,max,sum,p1,…,p99,std`` then ``Metric,Value``; numbers as "%.2f".
"""

from __future__ import annotations

from reportgen.loadtest import profile_export
from reportgen.loadtest.files import Document, fail
from reportgen.loadtest.run import Run
from reportgen.loadtest.values import dig, first_text, text_date

TOOL = "AIPerf"


def detect(doc: Document) -> bool:
    if doc.kind == "csv":
        header = [c.strip().lower() for c in (doc.value[0] if doc.value else [])]
        return header[:2] == ["metric", "avg"] and ("sum" in header or "std" in header)
    value = doc.value
    return (doc.kind == "json" and isinstance(value, dict)
            and ("aiperf_version" in value or "schema_version" in value)
            and isinstance(dig(value, "request_throughput", "avg"), int | float | str))


def _model(config: object) -> str:
    items = dig(config, "models", "items")
    names = [dig(item, "name") for item in items] if isinstance(items, list) else []
    return first_text(dig(config, "endpoint", "model_names"), names, dig(config, "model_names"),
                      dig(config, "model"))


def read(doc: Document) -> list[Run]:
    if doc.kind == "csv":
        summary = profile_export.from_csv(doc.value)
        config: object = {}
        version = date = ""
    else:
        value = doc.value
        if value.get("is_complete") is False or value.get("was_cancelled") is True:
            reason = value.get("incomplete_reason") or "cancelled"
            raise fail(doc.source, f"AIPerf marks this run as not complete ({reason})",
                       "a complete run", "Rerun the load test to the end.")
        summary = profile_export.from_json(value)
        config = value.get("input_config") or {}
        version = first_text(value.get("aiperf_version"))
        date = text_date(value.get("start_time"))
    errors = profile_export.value(summary, "error_request_count")
    return [profile_export.run(
        summary, source=doc.source, tool=TOOL, version=version, label="the run",
        model=_model(config), date=date,
        load=profile_export.load_text(dig(config, "loadgen", "concurrency"),
                                      dig(config, "loadgen", "request_rate")),
        failed=errors if errors == errors else 0.0,
    )]
