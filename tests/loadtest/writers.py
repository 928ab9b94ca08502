"""Result files in each tool's own shape, written from run figures. The shapes follow the tools'
writers (named per function); the numbers are ours."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import uuid
from collections.abc import Sequence
from typing import Any

import yaml

from tests.loadtest.synthetic import Figures


def _stamp(f: Figures) -> str:
    return dt.datetime.fromtimestamp(f.start, tz=dt.UTC).strftime("%Y%m%d-%H%M%S")


# --- vLLM and SGLang ------------------------------------------------------------------------------


def vllm_record(f: Figures, *, legacy: bool = False, metadata: dict[str, str] | None = None
                ) -> dict[str, Any]:
    """vllm-project/vllm vllm/benchmarks/serve.py `main_async` + `benchmark` result (write
    order), default --percentile-metrics ttft,tpot,itl and --metric-percentiles 99, without
    --save-detailed; legacy=True: benchmarks/benchmark_serving.py (mid-2025)."""
    out: dict[str, Any] = {"date": _stamp(f)}
    if not legacy:
        out.update(endpoint_type="openai-chat", backend="openai-chat", label=None)
    else:
        out["backend"] = "vllm"
    model = f"meta-llama/{f.model}-Instruct"
    out.update(model_id=model, tokenizer_id=model, num_prompts=f.completed + f.failed)
    out.update(metadata or {})
    out.update(request_rate="inf", burstiness=1.0, max_concurrency=int(f.concurrency),
               duration=f.duration_s, completed=f.completed)
    if not legacy:
        out["failed"] = f.failed
    out.update(total_input_tokens=int(f.prompt_tokens * f.completed),
               total_output_tokens=int(f.output_tokens * f.completed),
               request_throughput=f.rate)
    out["request_goodput:" if legacy else "request_goodput"] = None
    out.update(output_throughput=f.output_rate,
               total_token_throughput=f.rate * (f.prompt_tokens + f.output_tokens))
    if not legacy:
        out.update(latencies=[f.e2e_ms / 1000] * f.completed,
                   queue_times=[0.0] * f.completed,
                   max_output_tokens_per_s=round(f.output_rate * 1.08),
                   max_concurrent_requests=int(f.concurrency), rtfx=0.0)
    for metric, mean, p99 in (("ttft", f.ttft_ms, f.ttft_p99_ms), ("tpot", f.tpot_ms,
                                                                   f.tpot_p99_ms),
                              ("itl", f.tpot_ms * 1.01, f.tpot_p99_ms * 1.3)):
        out.update({f"mean_{metric}_ms": mean, f"median_{metric}_ms": mean * 0.97,
                    f"std_{metric}_ms": mean * 0.12, f"p99_{metric}_ms": p99})
    return out


def vllm_jsonl(figures: Sequence[Figures], **kw: Any) -> str:
    """--append-result: each run appended as "\\n" + JSON to the same file."""
    return "\n".join(json.dumps(vllm_record(f, **kw)) for f in figures)


def sglang_record(f: Figures) -> dict[str, Any]:
    """sgl-project/sglang python/sglang/bench_serving.py `benchmark` result dict (one JSON
    line appended per run to --output-file)."""
    return {
        "backend": "sglang", "dataset_name": "random", "request_rate": float("inf"),
        "max_concurrency": int(f.concurrency), "sharegpt_output_len": None,
        "random_input_len": int(f.prompt_tokens), "random_output_len": int(f.output_tokens),
        "random_range_ratio": 1.0, "duration": f.duration_s, "completed": f.completed,
        "total_input_tokens": int(f.prompt_tokens * f.completed),
        "total_output_tokens": int(f.output_tokens * f.completed),
        "total_output_tokens_retokenized": int(f.output_tokens * f.completed) - 3,
        "request_throughput": f.rate, "input_throughput": f.rate * f.prompt_tokens,
        "output_throughput": f.output_rate, "mean_e2e_latency_ms": f.e2e_ms,
        "median_e2e_latency_ms": f.e2e_ms * 0.99, "std_e2e_latency_ms": f.e2e_ms * 0.05,
        "p99_e2e_latency_ms": f.e2e_ms * 1.2, "mean_ttft_ms": f.ttft_ms,
        "median_ttft_ms": f.ttft_ms * 0.96, "std_ttft_ms": f.ttft_ms * 0.2,
        "p99_ttft_ms": f.ttft_p99_ms, "mean_tpot_ms": f.tpot_ms,
        "median_tpot_ms": f.tpot_ms * 0.99, "std_tpot_ms": f.tpot_ms * 0.05,
        "p99_tpot_ms": f.tpot_p99_ms, "mean_itl_ms": f.tpot_ms * 1.01,
        "median_itl_ms": f.tpot_ms * 0.95, "std_itl_ms": f.tpot_ms * 0.3,
        "p95_itl_ms": f.tpot_ms * 1.4, "p99_itl_ms": f.tpot_ms * 2.1,
        "concurrency": f.concurrency, "accept_length": None,
    }


def sglang_jsonl(figures: Sequence[Figures]) -> str:
    return "".join(json.dumps(sglang_record(f)) + "\n" for f in figures)


# --- GuideLLM -------------------------------------------------------------------------------------

_PCT = ("p001", "p01", "p05", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p999")


def _distribution(mean: float, p99: float | None = None, count: int = 400) -> dict[str, Any]:
    p99 = mean * 1.2 if p99 is None else p99
    spread = {"p001": 0.7, "p01": 0.75, "p05": 0.82, "p10": 0.88, "p25": 0.95, "p50": 0.99,
              "p75": 1.04, "p90": 1.1, "p95": 1.14}
    percentiles = {k: mean * spread[k] for k in spread}
    percentiles.update(p99=p99, p999=p99 * 1.05)
    return {"mean": mean, "median": mean * 0.99, "mode": mean * 0.98,
            "variance": (mean * 0.1) ** 2, "std_dev": mean * 0.1, "min": mean * 0.6,
            "max": p99 * 1.1, "count": count, "total_sum": mean * count,
            "percentiles": {k: percentiles[k] for k in _PCT}, "pdf": None, "mean_ci": None,
            "percentile_cis": None}


def _empty() -> dict[str, Any]:
    zero = {"mean": 0.0, "median": 0.0, "mode": 0.0, "variance": 0.0, "std_dev": 0.0,
            "min": 0.0, "max": 0.0, "count": 0, "total_sum": 0.0,
            "percentiles": {k: 0.0 for k in _PCT}, "pdf": None, "mean_ci": None,
            "percentile_cis": None}
    return zero


def _status(mean: float, p99: float | None = None) -> dict[str, Any]:
    successful = _distribution(mean, p99)
    return {"successful": successful, "errored": _empty(), "incomplete": _empty(),
            "total": successful}


def guidellm_benchmark(f: Figures, index: int) -> dict[str, Any]:
    """vllm-project/guidellm src/guidellm/benchmark/schemas/generative/benchmark.py
    (GenerativeBenchmark: config, scheduler_state, scheduler_metrics, metrics, requests and
    the computed start/end/duration fields) and metrics.py (GenerativeMetrics)."""
    run_id = str(uuid.UUID(int=index))
    end = f.start + f.duration_s
    return {
        "type_": "generative_benchmark",
        "config": {
            "id_": str(uuid.UUID(int=1000 + index)), "run_id": run_id, "run_index": index,
            "strategy": {"type_": "concurrent", "streams": int(f.concurrency),
                         "startup_duration": 0.0},
            "constraints": {"max_seconds": {"type_": "max_duration", "max_duration": 120}},
            "sample_requests": 10, "warmup": None, "cooldown": None,
            "prefer_response_metrics": True, "profile": {"type_": "concurrent"},
            "requests": {"data": ["prompt_tokens=512,output_tokens=256"]},
            "backend": {"type_": "openai_http", "target": "http://localhost:8000"},
            "environment": {"platform": "Linux"},
        },
        "scheduler_state": {"node_id": 0, "num_processes": 8, "start_time": f.start,
                            "end_time": end, "created_requests": f.completed,
                            "processed_requests": f.completed,
                            "successful_requests": f.completed, "errored_requests": f.failed,
                            "cancelled_requests": 0},
        "scheduler_metrics": {
            "start_time": f.start, "request_start_time": f.start, "measure_start_time": f.start,
            "measure_end_time": end, "request_end_time": end, "end_time": end,
            "requests_made": {"successful": f.completed, "incomplete": 0,
                              "errored": f.failed, "total": f.completed + f.failed},
            "queued_time_avg": 0.0004, "resolve_start_delay_avg": 0.0001,
            "resolve_targeted_start_delay_avg": 0.0002, "request_start_delay_avg": 0.0001,
            "request_targeted_start_delay_avg": 0.0003,
            "request_time_avg": f.e2e_ms / 1000, "resolve_end_delay_avg": 0.0001,
            "resolve_time_avg": f.e2e_ms / 1000, "finalized_delay_avg": 0.0001,
            "processed_delay_avg": 0.0001,
        },
        "metrics": {
            "request_totals": {"successful": f.completed, "incomplete": 0, "errored": f.failed,
                               "total": f.completed + f.failed},
            "requests_per_second": _status(f.rate),
            "request_concurrency": _status(f.concurrency),
            "request_latency": _status(f.e2e_ms / 1000),
            "prompt_token_count": _status(f.prompt_tokens),
            "output_token_count": _status(f.output_tokens),
            "total_token_count": _status(f.prompt_tokens + f.output_tokens),
            "time_to_first_token_ms": _status(f.ttft_ms, f.ttft_p99_ms),
            "time_per_output_token_ms": _status(f.e2e_ms / f.output_tokens),
            "inter_token_latency_ms": _status(f.tpot_ms, f.tpot_p99_ms),
            "output_tokens_per_second": _status(f.output_rate),
            "tokens_per_second": _status(f.rate * (f.prompt_tokens + f.output_tokens)),
        },
        "requests": {"successful": [], "incomplete": [], "errored": [], "total": None},
        "start_time": f.start, "end_time": end, "duration": f.duration_s,
        "warmup_duration": 0.0, "cooldown_duration": 0.0,
    }


def guidellm_report(figures: Sequence[Figures], labels: dict[str, str] | None = None
                    ) -> dict[str, Any]:
    """src/guidellm/benchmark/schemas/generative/report.py: args (BenchmarkGenerativeTextArgs
    serialised) and benchmarks, with the 0.7+ metadata and config.metadata.labels."""
    return {
        "metadata": {"version": 2, "guidellm_version": "0.8.1", "python_version": "3.12.3",
                     "platform": "Linux-6.8.0-x86_64"},
        "config": {"metadata": {"labels": labels or {}}},
        "args": {"target": "http://localhost:8000", "data": ["prompt_tokens=512,output_tokens=256"],
                 "profile": "concurrent",
                 "rate": [float(f.concurrency) for f in figures], "backend": "openai_http",
                 "backend_kwargs": None, "model": f"meta-llama/{figures[0].model}-Instruct",
                 "processor": None, "random_seed": 42, "output_formats": ["json", "csv"],
                 "max_seconds": 120, "max_requests": None},
        "benchmarks": [guidellm_benchmark(f, i) for i, f in enumerate(figures)],
    }


def guidellm_json(figures: Sequence[Figures], **kw: Any) -> str:
    """report.py save_file: json.dumps without indent."""
    return json.dumps(guidellm_report(figures, **kw))


def guidellm_yaml(figures: Sequence[Figures], **kw: Any) -> str:
    return yaml.safe_dump(guidellm_report(figures, **kw))


def guidellm_csv(figures: Sequence[Figures]) -> str:
    """src/guidellm/benchmark/outputs/csv.py: three header rows (group, field, statistic) and a
    row per benchmark; statuses with nothing in them are left out."""
    columns: list[tuple[str, str, str]] = []
    rows: list[list[Any]] = []
    report = guidellm_report(figures)
    for b in report["benchmarks"]:
        head: list[tuple[str, str, str]] = []
        row: list[Any] = []

        def add(group: str, name: str, value: Any, unit: str = "", h: list = head,
                r: list = row) -> None:
            h.append((group, name, unit))
            r.append(value)

        def dist(group: str, unit: str, d: dict[str, Any], h: list = head, r: list = row) -> None:
            s = d["successful"]
            p = s["percentiles"]
            for stat, value in (("Mean", s["mean"]), ("Median", s["median"]),
                                ("Std Dev", s["std_dev"]),
                                ("Percentiles", f"[{s['min']}, {p['p001']}, {p['p01']}, "
                                 f"{p['p05']}, {p['p10']}, {p['p25']}, {p['p75']}, {p['p90']}, "
                                 f"{p['p95']}, {p['p99']}, {s['max']}]")):
                h.append((group, f"Successful {unit}", stat))
                r.append(value)

        cfg, m, sm = b["config"], b["metrics"], b["scheduler_metrics"]
        add("Run Info", "Run ID", cfg["run_id"])
        add("Run Info", "Run Index", cfg["run_index"])
        add("Run Info", "Profile", json.dumps(cfg["profile"]))
        add("Run Info", "Requests", json.dumps(cfg["requests"]))
        add("Run Info", "Backend", json.dumps(cfg["backend"]))
        add("Run Info", "Environment", json.dumps(cfg["environment"]))
        add("Benchmark", "Type", b["type_"])
        add("Benchmark", "ID", cfg["id_"])
        add("Benchmark", "Strategy", cfg["strategy"]["type_"])
        add("Benchmark", "Constraints", json.dumps(cfg["constraints"]))
        for name, key in (("Start Time", "start_time"), ("Request Start Time",
                          "request_start_time"), ("Measure Start Time", "measure_start_time"),
                          ("Measure End Time", "measure_end_time"),
                          ("Request End Time", "request_end_time"), ("End Time", "end_time")):
            add("Timings", name, dt.datetime.fromtimestamp(sm[key], tz=dt.UTC)
                .strftime("%Y-%m-%d %H:%M:%S"))
        add("Timings", "Duration", b["duration"], "Sec")
        add("Timings", "Warmup", 0.0, "Sec")
        add("Timings", "Cooldown", 0.0, "Sec")
        for status in ("successful", "incomplete", "errored", "total"):
            add("Request Counts", status.capitalize(), m["request_totals"][status])
        dist("Request Latency", "Sec", m["request_latency"])
        dist("Time to First Token", "ms", m["time_to_first_token_ms"])
        dist("Time per Output Token", "ms", m["time_per_output_token_ms"])
        dist("Inter Token Latency", "ms", m["inter_token_latency_ms"])
        dist("Server Throughput", "Requests/Sec", m["requests_per_second"])
        dist("Server Throughput", "Concurrency", m["request_concurrency"])
        dist("Token Metrics", "Input Tokens", m["prompt_token_count"])
        dist("Token Metrics", "Output Tokens", m["output_token_count"])
        dist("Token Metrics", "Total Tokens", m["total_token_count"])
        dist("Token Throughput", "Output Tokens/Sec", m["output_tokens_per_second"])
        dist("Token Throughput", "Total Tokens/Sec", m["tokens_per_second"])
        add("Runtime Info", "Metadata", json.dumps(report["metadata"]))
        add("Runtime Info", "Arguments", json.dumps(report["args"]))
        columns = columns or head
        rows.append(row)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for level in range(3):
        writer.writerow([c[level] for c in columns])
    writer.writerows(rows)
    return buffer.getvalue()


# --- genai-perf and AIPerf ------------------------------------------------------------------------


def _stats(mean: float, p99: float, unit: str, keys: Sequence[str]) -> dict[str, Any]:
    scale = {"p1": 0.7, "p5": 0.78, "p10": 0.85, "p25": 0.93, "p50": 0.99, "p75": 1.05,
             "p90": 1.1, "p95": 1.15, "min": 0.6}
    out: dict[str, Any] = {"unit": unit, "avg": mean}
    for key in keys:
        if key == "p99":
            out[key] = p99
        elif key == "max":
            out[key] = p99 * 1.1
        elif key == "std":
            out[key] = mean * 0.1
        elif key in scale:
            out[key] = mean * scale[key]
    return out


_GENAI_KEYS = ("p25", "p50", "p75", "p90", "p95", "p99", "min", "max", "std")


def genai_perf_summary(f: Figures) -> dict[str, Any]:
    """triton-inference-server/perf_analyzer genai-perf/genai_perf/export_data/json_exporter.py
    (stats merged with input_config = the command's arguments), as GenAI-Perf of the 25.02 SDK
    container writes it (perf_analyzer issue 298 shows one)."""
    k = _GENAI_KEYS
    return {
        "request_throughput": {"unit": "requests/sec", "avg": f.rate},
        "request_latency": _stats(f.e2e_ms, f.e2e_ms * 1.15, "ms", k),
        "time_to_first_token": _stats(f.ttft_ms, f.ttft_p99_ms, "ms", k),
        "time_to_second_token": _stats(f.tpot_ms, f.tpot_p99_ms * 1.5, "ms", k),
        "inter_token_latency": _stats(f.tpot_ms, f.tpot_p99_ms, "ms", k),
        "output_token_throughput": {"unit": "tokens/sec", "avg": f.output_rate},
        "output_token_throughput_per_request": _stats(1000 / f.tpot_ms, 1000 / f.tpot_ms * 1.1,
                                                      "tokens/sec", k),
        "output_sequence_length": _stats(f.output_tokens, f.output_tokens, "tokens", k),
        "input_sequence_length": _stats(f.prompt_tokens, f.prompt_tokens, "tokens", k),
        "input_config": {
            "subcommand": "profile", "model": [f"meta-llama/{f.model}-Instruct"],
            "model_selection_strategy": "round_robin", "backend": "tensorrtllm",
            "endpoint": None, "endpoint_type": "chat", "service_kind": "openai",
            "streaming": True, "u": "localhost:8000", "num_dataset_entries": 100,
            "output_tokens_mean": int(f.output_tokens), "output_tokens_stddev": 0,
            "synthetic_input_tokens_mean": int(f.prompt_tokens),
            "synthetic_input_tokens_stddev": 0, "concurrency": int(f.concurrency),
            "measurement_interval": 10000, "request_rate": None, "stability_percentage": 999,
            "artifact_dir": f"artifacts/{f.model}-openai-chat-concurrency{int(f.concurrency)}",
            "profile_export_file": "profile_export.json", "tokenizer": "hf-internal-testing/"
            "llama-tokenizer", "formatted_model_name": f.model, "extra_inputs": {},
        },
    }


def _csv_block(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[list[str]]:
    return [list(header), *[list(r) for r in rows]]


def genai_perf_csv(f: Figures) -> str:
    """genai-perf/genai_perf/export_data/csv_exporter.py: request metrics (values "{:,.2f}",
    names title-cased with the unit, none for tokens), a blank row, system metrics."""
    summary = genai_perf_summary(f)
    header = ["Metric", "avg", "min", "max", "p99", "p95", "p90", "p75", "p50", "p25"]
    request = []
    for name in ("time_to_first_token", "time_to_second_token", "inter_token_latency",
                 "request_latency", "output_sequence_length", "input_sequence_length"):
        metric = summary[name]
        label = name.replace("_", " ").title() + (f" ({metric['unit']})"
                                                  if metric["unit"] != "tokens" else "")
        request.append([label, *(f"{metric[s]:,.2f}" for s in header[1:])])
    system = [["Output Token Throughput (tokens/sec)", f"{f.output_rate:.2f}"],
              ["Request Throughput (requests/sec)", f"{f.rate:.2f}"]]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerows(_csv_block(header, request))
    writer.writerow([])
    writer.writerows(_csv_block(["Metric", "Value"], system))
    return buffer.getvalue()


_AIPERF_KEYS = ("p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max", "std")


def aiperf_summary(f: Figures) -> dict[str, Any]:
    """ai-dynamo/aiperf src/aiperf/exporters/metrics_json_exporter.py (JsonExportData, schema
    1.4: schema_version, aiperf_version, benchmark_id, metric objects at top level, input_config,
    was_cancelled, error_summary, start_time, end_time; AIPerf 0.13.0)."""
    k = _AIPERF_KEYS
    start = dt.datetime.fromtimestamp(f.start, tz=dt.UTC).replace(tzinfo=None)
    end = start + dt.timedelta(seconds=f.duration_s)

    def counted(mean: float, p99: float, unit: str) -> dict[str, Any]:
        return {**_stats(mean, p99, unit, k), "count": f.completed, "sum": mean * f.completed}

    return {
        "schema_version": "1.4", "aiperf_version": "0.13.0",
        "benchmark_id": str(uuid.UUID(int=int(f.concurrency))),
        "request_throughput": {"unit": "requests/sec", "avg": f.rate},
        "request_latency": counted(f.e2e_ms, f.e2e_ms * 1.15, "ms"),
        "request_count": {"unit": "requests", "avg": float(f.completed)},
        "time_to_first_token": counted(f.ttft_ms, f.ttft_p99_ms, "ms"),
        "time_to_second_token": counted(f.tpot_ms, f.tpot_p99_ms * 1.5, "ms"),
        "inter_token_latency": counted(f.tpot_ms, f.tpot_p99_ms, "ms"),
        "inter_chunk_latency": counted(f.tpot_ms * 1.02, f.tpot_p99_ms * 1.4, "ms"),
        "output_token_throughput": {"unit": "tokens/sec", "avg": f.output_rate},
        "output_token_throughput_per_user": counted(1000 / f.tpot_ms, 1100 / f.tpot_ms,
                                                    "tokens/sec/user"),
        "output_sequence_length": counted(f.output_tokens, f.output_tokens, "tokens"),
        "input_sequence_length": counted(f.prompt_tokens, f.prompt_tokens, "tokens"),
        "benchmark_duration": {"unit": "sec", "avg": f.duration_s},
        "total_output_tokens": {"unit": "tokens", "avg": f.output_tokens * f.completed},
        "total_isl": {"unit": "tokens", "avg": f.prompt_tokens * f.completed},
        "input_config": {
            "endpoint": {"model_names": [f"meta-llama/{f.model}-Instruct"], "type": "chat",
                         "streaming": True, "urls": ["http://localhost:8000"]},
            "loadgen": {"concurrency": int(f.concurrency), "request_count": f.completed},
            "input": {"prompt": {"input_tokens": {"mean": int(f.prompt_tokens)},
                                 "output_tokens": {"mean": int(f.output_tokens)}}},
        },
        "was_cancelled": False, "is_complete": True, "error_summary": [],
        "start_time": start.isoformat(), "end_time": end.isoformat(),
    }


def aiperf_csv(f: Figures) -> str:
    """src/aiperf/exporters/metrics_csv_exporter.py: "Metric" + STAT_KEYS rows sorted by tag,
    numbers "%.2f", a blank row, then "Metric,Value" rows (unit left out for requests)."""
    summary = aiperf_summary(f)
    stat_keys = ["avg", "min", "max", "sum", *_AIPERF_KEYS[:9], "std"]
    headers = {"inter_token_latency": "Inter Token Latency", "request_latency": "Request Latency",
               "time_to_first_token": "Time to First Token",
               "time_to_second_token": "Time to Second Token",
               "output_sequence_length": "Output Sequence Length",
               "input_sequence_length": "Input Sequence Length"}
    request = []
    for tag in sorted(headers):
        metric = summary[tag]
        request.append([f"{headers[tag]} ({metric['unit']})",
                        *(f"{metric[s]:.2f}" if s in metric else "" for s in stat_keys)])
    system = [["Benchmark Duration (sec)", f"{f.duration_s:.2f}"],
              ["Output Token Throughput (tokens/sec)", f"{f.output_rate:.2f}"],
              ["Request Count", f"{f.completed}"],
              ["Request Throughput (requests/sec)", f"{f.rate:.2f}"]]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerows(_csv_block(["Metric", *stat_keys], request))
    writer.writerow([])
    writer.writerows(_csv_block(["Metric", "Value"], system))
    return buffer.getvalue()


# --- llmperf -------------------------------------------------------------------------------------


def llmperf_summary(f: Figures) -> dict[str, Any]:
    """ray-project/llmperf token_benchmark_ray.py `metrics_summary` flattened by
    src/llmperf/utils.py `LLMPerfResults.to_dict` (the shape of the repository's own
    benchmarks/results/.../*_summary.json)."""
    out: dict[str, Any] = {
        "version": "2023-08-31",
        "name": f"meta-llama-{f.model}-Instruct_{int(f.prompt_tokens)}_{int(f.output_tokens)}"
        "_summary",
        "model": f"meta-llama/{f.model}-Instruct", "mean_input_tokens": int(f.prompt_tokens),
        "stddev_input_tokens": 0, "mean_output_tokens": int(f.output_tokens),
        "stddev_output_tokens": 0, "num_concurrent_requests": int(f.concurrency),
    }
    itl = f.e2e_ms / f.output_tokens / 1000  # llmperf: (TTFT + the gaps) ÷ output tokens
    metrics = {
        "inter_token_latency_s": (itl, itl * 1.1),
        "ttft_s": (f.ttft_ms / 1000, f.ttft_p99_ms / 1000),
        "end_to_end_latency_s": (f.e2e_ms / 1000, f.e2e_ms * 1.15 / 1000),
        "request_output_throughput_token_per_s": (f.output_tokens / (f.e2e_ms / 1000),
                                                  1.1 * f.output_tokens / (f.e2e_ms / 1000)),
        "number_input_tokens": (f.prompt_tokens, f.prompt_tokens),
        "number_output_tokens": (f.output_tokens, f.output_tokens),
    }
    for name, (mean, p99) in metrics.items():
        for q, scale in (("p25", 0.95), ("p50", 0.99), ("p75", 1.03), ("p90", 1.07),
                         ("p95", 1.09)):
            out[f"results_{name}_quantiles_{q}"] = mean * scale
        out[f"results_{name}_quantiles_p99"] = p99
        out[f"results_{name}_mean"] = mean
        minimum, maximum = mean * 0.8, p99 * 1.02
        if name.startswith("number_"):  # llmperf writes these two as strings
            out[f"results_{name}_min"], out[f"results_{name}_max"] = (str(int(minimum)),
                                                                      str(int(maximum)))
        else:
            out[f"results_{name}_min"], out[f"results_{name}_max"] = minimum, maximum
        out[f"results_{name}_stddev"] = mean * 0.05
    out.update({
        "results_num_requests_started": f.completed + f.failed,
        "results_error_rate": f.failed / (f.completed + f.failed),
        "results_number_errors": f.failed, "results_error_code_frequency": "{}",
        "results_mean_output_throughput_token_per_s": f.output_rate,
        "results_num_completed_requests": f.completed,
        "results_num_completed_requests_per_min": f.rate * 60,
        "timestamp": int(f.start),
    })
    return out


def llmperf_json(f: Figures) -> str:
    """LLMPerfResults written with json.dump(indent=4)."""
    return json.dumps(llmperf_summary(f), indent=4)


def guidellm_v03_report(figures: Sequence[Figures]) -> dict[str, Any]:
    """The GuideLLM 0.3 layout (neuralmagic/guidellm tests/unit/entrypoints/assets/
    benchmarks_stripped.json): args, run_stats, worker (with backend_model), request_loader,
    metrics with cumulative_distribution_function, request_totals at benchmark level."""
    benchmarks = []
    for i, f in enumerate(figures):
        modern = guidellm_benchmark(f, i)
        metrics = {}
        for name in ("requests_per_second", "request_concurrency", "request_latency",
                     "prompt_token_count", "output_token_count", "time_to_first_token_ms",
                     "time_per_output_token_ms", "inter_token_latency_ms",
                     "output_tokens_per_second", "tokens_per_second"):
            status = modern["metrics"][name]
            metrics[name] = {
                k: {**{x: y for x, y in d.items() if x not in ("pdf", "mean_ci",
                                                                 "percentile_cis")},
                    "percentiles": {p: v for p, v in d["percentiles"].items() if p != "p50"},
                    "cumulative_distribution_function": None}
                for k, d in status.items()
            }
        benchmarks.append({
            "type_": "generative_benchmark", "id_": modern["config"]["id_"],
            "run_id": modern["config"]["run_id"],
            "args": {"profile": {"type_": "concurrent", "streams": [int(f.concurrency)]},
                     "strategy_index": i,
                     "strategy": {"type_": "concurrent", "streams": int(f.concurrency)},
                     "max_number": None, "max_duration": 120.0},
            "run_stats": {"start_time": f.start, "end_time": f.start + f.duration_s,
                          "requests_made": {"successful": f.completed, "errored": f.failed,
                                            "incomplete": 0, "total": f.completed + f.failed},
                          "status": "success", "termination_reason": "max_seconds_reached"},
            "worker": {"type_": "generative_requests_worker", "backend_type": "openai_http",
                       "backend_target": "http://localhost:8000",
                       "backend_model": f"meta-llama/{f.model}-Instruct"},
            "request_loader": {"type_": "generative_request_loader",
                               "data": f"prompt_tokens={int(f.prompt_tokens)},output_tokens="
                               f"{int(f.output_tokens)}"},
            "extras": {}, "metrics": metrics,
            "start_time": f.start, "end_time": f.start + f.duration_s,
            "request_totals": {"successful": f.completed, "errored": f.failed, "incomplete": 0,
                               "total": f.completed + f.failed},
            "request_samples": None,
            "requests": {"successful": [], "errored": [], "incomplete": [], "total": None},
            "duration": f.duration_s,
        })
    return {"benchmarks": benchmarks}
