"""Seconds to write the PDF report for 5, 20 and 100 scenarios, imports included.

Each size runs in a fresh Python process (so the imports of pandas, matplotlib and WeasyPrint
are counted), builds the plan by hand from the shipped catalogs, renders the report and writes
it to a temporary folder. Target: 20 scenarios in under 15 s.

    python benchmarks/pdf_speed.py            # 5, 20, 100
    python benchmarks/pdf_speed.py 20         # one size
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = (5, 20, 100)
TARGET = {20: 15.0}

# Runs in the child process: everything from the first import to the PDF on disk.
CHILD = r"""
import time
start = time.perf_counter()
import datetime as dt, sys, tempfile
from pathlib import Path
import numpy as np
import pandas as pd
from reportgen import engine, schema
from reportgen.catalog import load_catalogs
from reportgen.plan import Plan, Provenance
from reportgen.render import pdf

BASE = [
    dict(model="Llama-3.1-70B", gpu="H100-SXM", peak_qps=200, avg_prompt_tokens=1500,
         avg_output_tokens=800, avg_qps=80),
    dict(model="Llama-3.1-8B", gpu="L40S", peak_qps=50, avg_prompt_tokens=800,
         avg_output_tokens=300, tpot_slo_ms=30, ttft_slo_ms=800),
    dict(model="Llama-3.1-405B", gpu="H200-SXM", peak_qps=5, avg_prompt_tokens=6000,
         avg_output_tokens=400, weight_dtype="fp8", kv_dtype="fp8", tpot_slo_ms=60),
    dict(model="Mixtral-8x7B", gpu="H100-SXM", peak_qps=20, avg_prompt_tokens=1000,
         avg_output_tokens=300, max_batch=64),
    dict(model="Llama-3.1-70B", gpu="H100-SXM", peak_qps=100, avg_prompt_tokens=1024,
         avg_output_tokens=512, method="tutorial", params_b=70, kv_heads=64),
    dict(model="Llama-3.1-70B", gpu="H100-SXM", peak_qps=100, avg_prompt_tokens=1024,
         avg_output_tokens=512),
    dict(model="DeepSeek-V3", gpu="MI300X", peak_qps=10, avg_prompt_tokens=2000,
         avg_output_tokens=500, weight_dtype="fp8", tpot_slo_ms=50),
    dict(model="Llama-3.1-405B", gpu="L4", peak_qps=1, avg_prompt_tokens=1000,
         avg_output_tokens=200),
]
n = int(sys.argv[1])
rows = [dict(BASE[i % len(BASE)], scenario=f"Scenario {i + 1}") for i in range(n)]
frame = pd.DataFrame(rows)
for column in schema.COLUMNS:
    if column.name not in frame:
        frame[column.name] = np.nan if column.type == "number" else ""
for name in schema.NUMBER_COLUMNS:
    frame[name] = frame[name].astype(float)
for name in schema.TEXT_COLUMNS:
    frame[name] = frame[name].fillna("").astype(object)
for name, default in dict(weight_dtype="bf16", kv_dtype="bf16", engine="vllm",
                          method="roofline").items():
    frame[name] = frame[name].replace("", default)
catalogs = load_catalogs()
efficiency = pd.read_csv(Path(engine.__file__).parent / "data" / "efficiency.csv").set_index("key")
tables = engine.Tables(catalogs.gpus, catalogs.models, efficiency)
results = engine.estimate(frame, tables)
plan = Plan(frame, tables, results,
            Provenance("Benchmark", "bench.csv", "0" * 64, dt.date(2026, 1, 1), "bench"))
with tempfile.TemporaryDirectory() as folder:
    target = Path(folder) / "report.pdf"
    pdf.write_pdf(plan, target)
    size = target.stat().st_size
print(f"{time.perf_counter() - start:.2f} {size}")
"""


def run(n: int) -> tuple[float, float, int]:
    """(wall seconds of the child process, seconds it measured itself, PDF bytes)."""
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(n)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)},
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - began
    inner, size = done.stdout.split()
    return wall, float(inner), int(size)


def main(argv: list[str]) -> int:
    sizes = tuple(int(a) for a in argv) or SIZES
    failed = False
    for n in sizes:
        wall, inner, size = run(n)
        target = TARGET.get(n)
        verdict = "" if target is None else (" ok" if wall < target else f" SLOW (> {target:g} s)")
        failed |= target is not None and wall >= target
        print(f"{n:>4} scenarios: {wall:6.2f} s wall ({inner:.2f} s in process), "
              f"{size / 1e6:.2f} MB{verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
