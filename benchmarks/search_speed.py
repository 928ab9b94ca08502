"""Speed of the configuration search: many workloads, every catalog GPU, every tensor (and, when
the schema has it, pipeline) parallelism, several precisions and every serving engine.

Target: 1,000 workloads × every catalog GPU × TP 1–8 × PP 1, 2, 4 × four precision pairs ×
three engines in under 10 s on a 2-core machine, memory bounded (the candidates are estimated in
chunks and only the best few per row are kept). Prints candidates, seconds, candidates/s and
the peak resident memory of this process.

Run: `python benchmarks/search_speed.py [--workloads 1000] [--pp ""]`.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reportgen import schema  # noqa: E402
from reportgen.readers import RawTable  # noqa: E402
from reportgen.search import search  # noqa: E402
from reportgen.validate import validate  # noqa: E402

MODELS = ("Llama-3.1-8B", "Llama-3.1-70B", "Qwen2.5-32B", "Mixtral-8x7B", "Qwen3-30B-A3B")


def workloads(n: int, pp: str = "auto") -> RawTable:
    """``n`` rows that search everything: gpu auto, tp blank, pp auto (every pipeline depth
    planned, not only when nothing single-node fits; ``pp=""``: blank, as most plans leave
    it), two weight and two KV precisions, every engine."""
    header = ["scenario", "model", "gpu", "peak_qps", "avg_prompt_tokens", "avg_output_tokens",
              "pp", "weight_dtype", "kv_dtype", "engine", "tpot_slo_ms", "ttft_slo_ms"]
    rows = []
    for i in range(n):
        rows.append((i + 2, [f"w{i:05d}", MODELS[i % len(MODELS)], "auto", 5 + i % 200,
                             300 + 37 * (i % 50), 100 + 11 * (i % 40), pp, "bf16|fp8",
                             "bf16|fp8", "auto", 30 + i % 50, 500 + 10 * (i % 200)]))
    return RawTable("bench.csv", header, rows, "0" * 64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", type=int, default=1000)
    parser.add_argument("--pp", default="auto", help='"auto" (default) or "" (blank: more '
                        "stages only for rows nothing single-node fits)")
    args = parser.parse_args()
    checked = validate(workloads(args.workloads, args.pp))
    assert checked.specs is not None
    start = time.perf_counter()
    cpu = time.process_time()
    found = search(checked.scenarios, checked.specs, checked.tables)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    candidates = int(found.evaluated.sum())
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    dims = ", ".join(c for c in ("gpu", "tp", "pp", "weight_dtype", "kv_dtype", "engine")
                     if c in schema.BY_NAME)
    print(f"search: {args.workloads:,} workloads over {dims}")
    print(f"  {candidates:,} candidates ({candidates / args.workloads:,.0f} per workload) in "
          f"{wall:.2f} s wall, {cpu:.2f} s CPU ({candidates / wall:,.0f} candidates/s)")
    print(f"  kept {len(found.kept):,} candidates; peak resident memory {peak_mib:,.0f} MiB")


if __name__ == "__main__":
    main()
