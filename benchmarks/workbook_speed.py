"""How long the budget workbook takes: writing it for 20 and 500 scenarios (target: 500 in under
10 s), and LibreOffice's full recalculation of the 20-scenario workbook (skipped without soffice).

Run from the repository root:  python benchmarks/workbook_speed.py
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
import tempfile
import time
import zipfile
from pathlib import Path

from reportgen.pipeline import make_plan
from reportgen.plan import Plan
from reportgen.readers import RawTable
from reportgen.render.workbook import write_workbook
from reportgen.validate import validate

TEMPLATES = (
    {"model": "Llama-3.1-70B", "gpu": "H100-SXM", "avg_prompt_tokens": 2000,
     "avg_output_tokens": 500},
    {"model": "Llama-3.1-8B", "gpu": "L40S", "avg_prompt_tokens": 1000, "avg_output_tokens": 300,
     "tpot_slo_ms": 30},
    {"model": "Mixtral-8x7B", "gpu": "H200-SXM", "avg_prompt_tokens": 1500,
     "avg_output_tokens": 400, "engine": "tensorrt-llm"},
    {"model": "DeepSeek-V3", "gpu": "H200-SXM", "avg_prompt_tokens": 2000,
     "avg_output_tokens": 800, "weight_dtype": "fp8", "tp": 8},
    {"model": "Qwen3-30B-A3B", "gpu": "H100-SXM", "avg_prompt_tokens": 3000,
     "avg_output_tokens": 600, "weight_dtype": "fp8", "ttft_slo_ms": 800},
)
WORKBOOK_RUNS = 3


def plan_of(n: int) -> Plan:
    """A validated, estimated plan of ``n`` scenarios cycling through TEMPLATES."""
    rows = [{"scenario": f"s{i:04d}", "peak_qps": 5 + i % 40, **TEMPLATES[i % len(TEMPLATES)]}
            for i in range(n)]
    header = sorted({k for row in rows for k in row}, key=lambda k: (k != "scenario", k))
    table = RawTable("bench.csv", header, [(i + 2, [row.get(k) for k in header])
                                           for i, row in enumerate(rows)], "0" * 64)
    return make_plan(validate(table), "bench.csv", "Benchmark", dt.date(2026, 1, 1))


def time_write(n: int, out: Path) -> float:
    """Best of WORKBOOK_RUNS wall-clock times of write_workbook for ``n`` scenarios."""
    plan = plan_of(n)
    best = float("inf")
    for _ in range(WORKBOOK_RUNS):
        start = time.perf_counter()
        write_workbook(plan, out)
        best = min(best, time.perf_counter() - start)
    return best


def without_cached_values(src: Path, dst: Path) -> None:
    """Copy of the workbook with formula cells' cached values removed (LibreOffice then
    computes every formula on load)."""
    cached = re.compile(
        r'(<c r="[A-Z]+[0-9]+"[^>]*?)(?: t="(?:str|e|b)")?(>)(<f>[^<]*</f>)<v>[^<]*</v>'
    )
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.startswith("xl/worksheets/sheet"):
                data = cached.sub(r"\1\2\3", data.decode()).encode()
            zout.writestr(info, data)


def time_libreoffice(workbook: Path, tmp: Path) -> float | None:
    """Wall-clock seconds of one headless LibreOffice recalculation (fresh profile)."""
    binary = shutil.which("soffice")
    if binary is None:
        return None
    bare = tmp / "bare" / workbook.name
    bare.parent.mkdir()
    without_cached_values(workbook, bare)
    start = time.perf_counter()
    subprocess.run(
        [binary, f"-env:UserInstallation={(tmp / 'profile').as_uri()}", "--headless",
         "--norestore", "--convert-to", "xlsx", "--outdir", str(tmp / "lo"), str(bare)],
        check=True, capture_output=True, timeout=300,
    )
    elapsed = time.perf_counter() - start
    if not (tmp / "lo" / workbook.name).exists():
        raise RuntimeError("LibreOffice did not write its output")
    return elapsed


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        small = tmp / "w20.xlsx"
        for n, path in ((20, small), (500, tmp / "w500.xlsx")):
            seconds = time_write(n, path)
            size = path.stat().st_size / 1024
            print(f"write_workbook, {n:>3} scenarios: {seconds:6.2f} s  ({size:,.0f} KiB)")
        lo = time_libreoffice(small, tmp)
        if lo is None:
            print("LibreOffice recalculation, 20 scenarios: skipped (soffice not installed)")
        else:
            print(f"LibreOffice recalculation, 20 scenarios: {lo:6.2f} s (incl. start-up)")


if __name__ == "__main__":
    main()
