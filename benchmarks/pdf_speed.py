"""Seconds to write the PDF report for 5, 20 and 100 scenarios, imports included.

Each size runs in a fresh Python process (so the imports of pandas, matplotlib and WeasyPrint
are counted), validates and estimates the scenarios as `reportgen build` does, renders the
report and writes it to a temporary folder. Target: 20 scenarios in under 15 s.

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
from reportgen.pipeline import make_plan
from reportgen.readers import RawTable
from reportgen.render import pdf
from reportgen.validate import validate

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
header = list(dict.fromkeys(k for row in rows for k in row))
table = RawTable("bench.csv", header,
                 [(i + 2, [row.get(k) for k in header]) for i, row in enumerate(rows)], "0" * 64)
plan = make_plan(validate(table), "bench.csv", "Benchmark", dt.date(2026, 1, 1))
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
