"""Speed figures: engine scenarios/second and `reportgen estimate` wall time on a 10,000-row CSV.

Targets (issue 2): 1,000,000 scenarios estimated in under 5 s; `reportgen estimate` on 10,000
rows in under 5 s wall, start-up included. Run: `python benchmarks/speed.py`.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reportgen.engine import estimate  # noqa: E402
from reportgen.pipeline import load, make_plan  # noqa: E402


def engine_rate(n: int) -> float:
    """Seconds to estimate n scenarios made by repeating the default inputs."""
    plan = make_plan(load(ROOT / "inputs" / "scenarios.csv"), "scenarios.csv")
    reps = -(-n // len(plan.scenarios))  # the configurations the search chose: concrete rows
    frame = pd.concat([plan.scenarios] * reps, ignore_index=True).iloc[:n]
    start = time.perf_counter()
    estimate(frame, plan.tables)
    return time.perf_counter() - start


def cli_estimate_wall(n: int) -> float:
    """Wall seconds of `python -m reportgen estimate` on an n-row CSV (start-up included)."""
    source = pd.read_csv(ROOT / "inputs" / "scenarios.csv", dtype=str, keep_default_na=False)
    reps = -(-n // len(source))
    big = pd.concat([source] * reps, ignore_index=True).iloc[:n].copy()
    big["scenario"] = [f"s{i}" for i in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.csv"
        big.to_csv(path, index=False)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "reportgen", "estimate", str(path)], cwd=ROOT,
                       check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start


def main() -> None:
    for n in (10_000, 1_000_000):
        seconds = engine_rate(n)
        print(f"engine: {n:>9,} scenarios in {seconds:6.2f} s  ({n / seconds:,.0f} scenarios/s)")
    wall = cli_estimate_wall(10_000)
    print(f"reportgen estimate: 10,000-row CSV in {wall:.2f} s wall (start-up included)")


if __name__ == "__main__":
    main()
