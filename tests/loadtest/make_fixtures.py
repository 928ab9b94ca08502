"""Regenerate the result-file fixtures (python -m tests.loadtest.make_fixtures): each tool's
file shape (tests/loadtest/writers.py) with the figures of a Llama-3.1-8B stack on one H100 at
fp8, spread by a seeded ±8 % so that no run sits exactly on the model."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

from tests.loadtest import writers as w
from tests.loadtest.synthetic import KNOWN, stack, truth

FIXTURES = Path(__file__).parent / "fixtures"
SHAPES = ((1000, 200, 1), (1000, 200, 16), (1000, 200, 64))


def figures() -> list[w.Figures]:
    rng = random.Random(13)
    return [dataclasses.replace(f, ttft_ms=round(f.ttft_ms * rng.uniform(0.92, 1.08), 4),
                                tpot_ms=round(f.tpot_ms * rng.uniform(0.92, 1.08), 4),
                                completed=[200, 600, 1500][i], failed=[0, 2, 5][i])
            for i, f in enumerate(truth(stack(), SHAPES, KNOWN))]


def main() -> None:
    figs = figures()
    one = figs[1]
    FIXTURES.mkdir(exist_ok=True)
    metadata = {"gpu": "H100", "tp": "1", "weight_dtype": "fp8", "kv_dtype": "fp8",
                "engine": "vllm", "engine_version": "0.9.1"}
    files = {
        "vllm_serve.json": json.dumps(w.vllm_record(one)),
        "vllm_serve_append.jsonl": w.vllm_jsonl(figs),
        "vllm_benchmark_serving_legacy.jsonl": w.vllm_jsonl(figs, legacy=True,
                                                            metadata=metadata),
        "sglang_bench_serving.jsonl": w.sglang_jsonl(figs),
        "guidellm_benchmarks.json": w.guidellm_json(figs, labels={"gpu": "H100", "tp": "1"}),
        "guidellm_benchmarks.yaml": w.guidellm_yaml(figs),
        "guidellm_benchmarks.csv": w.guidellm_csv(figs),
        "guidellm_0.3_benchmarks.json": json.dumps(w.guidellm_v03_report(figs)),
        "profile_export_genai_perf.json": json.dumps(w.genai_perf_summary(one), indent=2),
        "profile_export_genai_perf.csv": w.genai_perf_csv(one),
        "profile_export_aiperf.json": json.dumps(w.aiperf_summary(one), indent=2),
        "profile_export_aiperf.csv": w.aiperf_csv(one),
        "llmperf_summary.json": w.llmperf_json(one),
    }
    for name, text in files.items():
        (FIXTURES / name).write_text(text if text.endswith("\n") else text + "\n",
                                     encoding="utf-8")


if __name__ == "__main__":
    main()
