"""Where the time goes: wall seconds and peak resident memory of every stage of `reportgen build`
for 11 (the default inputs), 200 and 2,000 scenarios; the engine on 1,000,000 scenarios;
`reportgen estimate` end to end on 100,000 and 1,000,000 rows; `reportgen --help`.

Each size runs in a fresh process. The stages are those of `reportgen build`: read, validate,
plan (the configuration search, the engine, the choice), levers, results CSV, workbook, and the
PDF split into view, templates and charts (the report's view model and its HTML, while worker
processes draw the charts with matplotlib) and layout and write (WeasyPrint, in parts laid out
by a worker per core and joined). The PDF's memory is that of a second command writing the PDF
alone, its workers included. The
scenario files repeat the default inputs (inputs/scenarios.csv) with distinct scenario and
workload names (P99 targets only in the first copy: each is simulated, at most 200 a build);
the PDF is limited to 200 scenarios, so the 2,000 run stops at the workbook. A stage's peak is
the process's peak resident memory during that stage (Linux: the high-water mark is reset
before each stage). A whole command's peak (`--help`, `estimate`, `build`) is that of the
process and the workers it forks together: their summed proportional set size, sampled every
0.1 s (pages a worker shares with its parent count once).

Targets (the README's figures): `reportgen --help` < 0.3 s; estimate 100,000 rows < 4 s and
1,000,000 rows < 30 s within 1.5 GiB; engine 1,000,000 < 2 s; the default report's PDF < 3 s;
200 scenarios' PDF < 40 s and < 600 MB.

Run: `make bench` or `python benchmarks/speed.py [--quick]` (--quick: no 2,000-scenario build and
no 1,000,000-row estimate). On a shared machine the figures are noisy; compare within a run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_INPUT = ROOT / "inputs" / "scenarios.csv"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
MAX_PDF_SCENARIOS = 200
MIB = 2**20


def scenarios_csv(folder: Path, n: int) -> Path:
    """The default inputs repeated to ``n`` rows, scenario and workload names made distinct."""
    import numpy as np
    import pandas as pd

    source = pd.read_csv(DEFAULT_INPUT, dtype=str, keep_default_na=False)
    reps = -(-n // len(source))
    big = pd.concat([source] * reps, ignore_index=True).iloc[:n].copy()
    copy = [str(i // len(source)) for i in range(n)]
    big["scenario"] = [f"{name}-{k}" for name, k in zip(big["scenario"], copy, strict=True)]
    if "workload" in big:
        big["workload"] = [f"{w}-{k}" if w else "" for w, k in
                           zip(big["workload"], copy, strict=True)]
    # P99 targets are sized by a simulated knee (about a second a row, at most 200 rows a
    # build): only the first copy keeps them, the others keep their mean targets.
    later = np.asarray(copy) != "0"
    for column in ("ttft_p99_ms", "tpot_p99_ms", "arrival_cv"):
        if column in big:
            big.loc[later, column] = ""
    path = folder / f"scenarios-{n}.csv"
    big.to_csv(path, index=False)
    return path


# --- in the child process ---------------------------------------------------------------------


def _reset_peak() -> None:
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _peak_mib() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _stages(path: Path, out: Path) -> list[tuple[str, float, float]]:
    """(stage, wall seconds, peak MiB) of every stage of a build of ``path`` into ``out``."""
    figures: list[tuple[str, float, float]] = []

    def timed(name: str, work: Callable[[], Any]) -> Any:
        _reset_peak()
        start = time.perf_counter()
        value = work()
        figures.append((name, time.perf_counter() - start, _peak_mib()))
        return value

    start = time.perf_counter()
    import reportgen.cli  # noqa: F401  (what every command pays first)

    figures.append(("imports (cli)", time.perf_counter() - start, _peak_mib()))
    from reportgen.catalog import load_catalogs
    from reportgen.pipeline import make_plan, write_results_csv
    from reportgen.readers import read_table
    from reportgen.stamp import stamped_results
    from reportgen.validate import validate

    timed("imports (engine)", load_catalogs)
    table = timed("read", lambda: read_table(path))
    checked = timed("validate", lambda: validate(table, base_dir=path.parent))
    plan = timed("plan (search, engine, choice)", lambda: make_plan(checked, path.name))
    from reportgen.levers import with_levers

    plan = timed("levers", lambda: with_levers(plan))
    timed("results CSV", lambda: write_results_csv(stamped_results(plan), out / "results.csv"))
    from reportgen.render.workbook import write_workbook

    timed("workbook", lambda: write_workbook(plan, out / "plan.xlsx"))
    if len(plan.scenarios) > MAX_PDF_SCENARIOS:
        return figures
    from weasyprint import HTML

    from reportgen import forked
    from reportgen.render import charts, pdf

    timed("PDF imports", lambda: HTML(string="<p>warm-up</p>").render())
    html = timed(f"PDF view, templates and charts ({charts.worker_count()} chart workers)",
                 lambda: pdf.render_html(plan))
    steps: list[str] = []
    data = timed(f"PDF layout and write ({forked.worker_count()} workers)",
                 lambda: pdf.html_to_pdf(html, progress=steps.append))
    (out / "report.pdf").write_bytes(data)
    figures.append((f"PDF: {steps[-1].removeprefix('writing ')}", 0.0, 0.0))
    return figures


def _engine(n: int) -> tuple[float, float]:
    """Seconds and peak MiB of the engine alone on ``n`` scenarios (the default inputs, as the
    search chose them, repeated)."""
    import pandas as pd

    from reportgen.engine import estimate
    from reportgen.pipeline import load, make_plan

    plan = make_plan(load(DEFAULT_INPUT), DEFAULT_INPUT.name)
    reps = -(-n // len(plan.scenarios))
    frame = pd.concat([plan.scenarios] * reps, ignore_index=True).iloc[:n]
    best = float("inf")
    _reset_peak()
    for _ in range(2):
        start = time.perf_counter()
        estimate(frame, plan.tables)
        best = min(best, time.perf_counter() - start)
    return best, _peak_mib()


# --- in the parent process --------------------------------------------------------------------


def _child(*args: str) -> Any:
    done = subprocess.run([sys.executable, __file__, *args], cwd=ROOT, env=ENV,
                          capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"benchmark child {args} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux /proc)."""
    found = [pid]
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                found += _tree(int(child))
    return found


def _pss_kib(pid: int) -> int:
    """The proportional set size of ``pid`` (pages shared with its workers counted once over
    them all), KiB; 0 once it has ended."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    return 0


def _process(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak MiB of ``command`` (its output discarded): the memory of the
    process and of every worker it started, together (their summed proportional set size,
    sampled every 0.1 s, where Linux says it), or the process's own peak if larger."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:  # a file, not a pipe: nobody has to read it meanwhile
        child = subprocess.Popen(command, cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL,
                                 stderr=err)
        together = 0
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            together = max(together, sum(map(_pss_kib, _tree(child.pid))))
            time.sleep(0.1)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode:
            err.seek(0)
            raise RuntimeError(f"{' '.join(command)} failed: {err.read().decode()[-2000:]}")
    return time.perf_counter() - start, max(together, usage.ru_maxrss) / 1024


def _best(runs: int, command: list[str]) -> tuple[float, float]:
    return min((_process(command) for _ in range(runs)), key=lambda r: r[0])


def _verdict(value: float, target: float) -> str:
    return "ok" if value < target else f"OVER (target < {target:g})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="skip the 2,000-scenario build and the 1,000,000-row estimate")
    parser.add_argument("--sizes", type=int, nargs="*", help="build sizes (default 11 200 2000)")
    parser.add_argument("--stages-child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--engine-child", type=int, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.stages_child:
        path, out = map(Path, options.stages_child)
        print(json.dumps(_stages(path, out)))
        return 0
    if options.engine_child:
        print(json.dumps(_engine(options.engine_child)))
        return 0
    over = False
    reportgen = [sys.executable, "-m", "reportgen"]
    wall, peak = _best(3, [*reportgen, "--help"])
    over |= wall >= 0.3
    print(f"reportgen --help: {wall:.2f} s wall, peak {peak:,.0f} MiB  {_verdict(wall, 0.3)}")
    seconds, peak = _child("--engine-child", "1000000")
    over |= seconds >= 2
    print(f"engine, 1,000,000 scenarios: {seconds:.2f} s, peak {peak:,.0f} MiB  "
          f"{_verdict(seconds, 2)}")
    sizes = options.sizes or ((11, 200) if options.quick else (11, 200, 2000))
    estimates = (100_000,) if options.quick else (100_000, 1_000_000)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for n in estimates:
            path = scenarios_csv(folder, n)
            wall, peak = _best(1 if n > 100_000 else 3, [*reportgen, "estimate", str(path)])
            target = 4.0 if n <= 100_000 else 30.0
            ok = wall < target and peak < 1.5 * 1024
            over |= not ok
            print(f"reportgen estimate, {n:,} rows: {wall:.2f} s wall, peak {peak:,.0f} MiB  "
                  f"{'ok' if ok else f'OVER (target < {target:g} s, < 1,536 MiB)'}")
        for n in sizes:
            path = DEFAULT_INPUT if n == 11 else scenarios_csv(folder, n)
            out = folder / f"out-{n}"
            out.mkdir()
            figures = _child("--stages-child", str(path), str(out))
            pdf_peak = 0.0
            if n <= MAX_PDF_SCENARIOS:
                # as a person runs it: the workbook is written by a second process beside the PDF
                whole, peak = _best(1, [*reportgen, "build", str(path), "--out",
                                        str(folder / f"whole-{n}")])
                print(f"\nreportgen build, {n:,} scenarios, every output, one command: "
                      f"{whole:.2f} s wall, peak {peak:,.0f} MiB")
                # the PDF's memory: the process and its workers together
                whole, pdf_peak = _best(1, [*reportgen, "build", str(path), "--format", "pdf",
                                            "--out", str(folder / f"pdf-{n}")])
                print(f"reportgen build, {n:,} scenarios, the PDF alone, one command: "
                      f"{whole:.2f} s wall, peak {pdf_peak:,.0f} MiB (workers included)")
            print(f"\nreportgen build, {n:,} scenarios ({path.name}), stage by stage:")
            pdf_total = 0.0
            for stage, seconds, peak in figures:
                if stage.startswith("PDF: "):
                    print(f"  {stage}")
                    continue
                print(f"  {stage:<32} {seconds:7.2f} s   peak {peak:7,.0f} MiB")
                if stage.startswith("PDF ") and stage != "PDF imports":
                    pdf_total += seconds
            if pdf_total:
                target = 3.0 if n == 11 else 40.0 if n == 200 else None
                verdict = ""
                if target is not None:
                    ok = pdf_total < target and (n != 200 or pdf_peak < 600)
                    over |= not ok
                    verdict = "ok" if ok else f"OVER (target < {target:g} s" + (
                        ", < 600 MiB)" if n == 200 else ")")
                print(f"  {'PDF total (imports excluded)':<32} {pdf_total:7.2f} s   peak "
                      f"{pdf_peak:7,.0f} MiB (the PDF alone, workers included)  {verdict}")
    print("\nevery figure at or under its target" if not over else
          "\nsome figures are over their targets (marked OVER)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
