"""The load-test calibration's round trip, printed: the engine at known efficiencies → what each
tool would report for a sweep of runs, in that tool's own file format → `reportgen calibrate` →
the efficiencies it recovers, and their error against the known ones.

    python benchmarks/calibration_roundtrip.py        # every format (about a minute)

The writers of the tools' formats and the sweep are the test suite's
(tests/loadtest/writers.py, tests/loadtest/synthetic.py); tests/loadtest/test_roundtrip.py holds
the same round trip to a 2 % bound.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from reportgen.calibration.loadtest_fit import PARAMETERS  # noqa: E402
from reportgen.pipeline import CalibrateOptions, calibrate  # noqa: E402
from tests.loadtest.synthetic import KNOWN, SHAPES, stack, truth  # noqa: E402
from tests.loadtest.test_roundtrip import FORMATS, STACK_FLAGS  # noqa: E402


def main() -> int:
    figures = truth(stack(), SHAPES, KNOWN)
    print("known: " + ", ".join(f"{n} {KNOWN[n]:g}" for n in PARAMETERS))
    print(f"sweep: {len(SHAPES)} runs of Llama-3.1-8B, fp8, 1×H100-SXM, vLLM "
          "(prompt/output tokens, requests in flight): "
          + "; ".join(f"{p}/{o}, {c}" for p, o, c in SHAPES))
    header = f"{'format':<17}" + "".join(f"{n:>18}" for n in PARAMETERS) + f"{'worst':>9}{'s':>6}"
    print(header)
    worst_all = 0.0
    for name, (write, extra) in FORMATS.items():
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            results = write(folder, figures)
            out = folder / "out" / "efficiency.csv"
            start = time.perf_counter()
            calibrate(CalibrateOptions(tuple(results), out, stack={**STACK_FLAGS, **extra}))
            seconds = time.perf_counter() - start
            row = pd.read_csv(out).iloc[0]
        errors = {n: float(row[n]) / KNOWN[n] - 1 for n in PARAMETERS}
        worst = max(abs(e) for e in errors.values())
        worst_all = max(worst_all, worst)
        cells = "".join(f"{float(row[n]):>9.4f} ({errors[n] * 100:+5.2f}%)" for n in PARAMETERS)
        print(f"{name:<17}{cells}{worst * 100:>8.2f}%{seconds:>6.1f}")
    print(f"largest error over every format and efficiency: {worst_all * 100:.2f} %")
    return 0 if worst_all <= 0.02 else 1


if __name__ == "__main__":
    raise SystemExit(main())
