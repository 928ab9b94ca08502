"""Input figures: what reading and validating costs, and how long the worst inputs take.

Prints, each the best of --repeat runs (wall seconds, peak resident memory of the process):
  1. read + validate of a 100,000-row CSV (the defaults repeated), and of the same as XLSX;
  2. `reportgen estimate` of that CSV end to end (start-up, read, validate, engine, results CSV);
  3. the worst XLSX within the limits: MAX_XLSX_CELLS cells in ten columns, shared strings at
     their count and size limits: time and memory to read it, and `reportgen validate` on it;
  4. workbooks over the limits: a 390 MiB shared-strings part, and more shared strings than
     allowed: time to refuse;
  5. a named pipe and /dev/zero given as the scenario file: time to refuse.

Run: `python benchmarks/inputs.py` (about 5 minutes; --quick skips 3 and 4). Every figure is
measured in a fresh process. On a shared machine the figures are noisy: compare within a run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reportgen import xlsx_input  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
COLUMNS = ("scenario", "model", "gpu", "peak_qps", "avg_prompt_tokens", "avg_output_tokens",
           "avg_qps", "max_prompt_tokens", "max_output_tokens", "ttft_slo_ms")


def _measure(command: list[str], stdout: int | None = subprocess.DEVNULL
             ) -> tuple[float, float, int, str]:
    """Wall seconds, peak resident MiB, exit code and stderr of ``command``."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=ROOT, env=ENV, stdout=stdout, stderr=subprocess.PIPE,
                             text=True)
    assert child.stderr is not None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, child.returncode, err


def _best(runs: int, command: list[str]) -> tuple[float, float, int, str]:
    results = [_measure(command) for _ in range(runs)]
    return min(results, key=lambda r: r[0])


def _stage_times(path: Path, runs: int, checkout: Path = ROOT) -> dict[str, float]:
    """Seconds of read and validate (best of ``runs``) in a fresh process, and its peak MiB;
    ``checkout``: the reportgen source tree to measure (another one gives a baseline)."""
    code = (
        "import json, resource, sys, time\n"
        "from pathlib import Path\n"
        "from reportgen.readers import read_table\n"
        "from reportgen.validate import validate\n"
        "from reportgen.catalog import load_catalogs\n"
        "load_catalogs()\n"
        "best = {}\n"
        f"for _ in range({runs}):\n"
        "    t0 = time.perf_counter(); table = read_table(Path(sys.argv[1]))\n"
        "    t1 = time.perf_counter(); validate(table, base_dir=Path(sys.argv[1]).parent)\n"
        "    t2 = time.perf_counter(); del table\n"
        "    for k, v in (('read', t1 - t0), ('validate', t2 - t1)):\n"
        "        best[k] = min(best.get(k, v), v)\n"
        "best['peak_mib'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
        "print(json.dumps(best))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], cwd=checkout,
                          env={**ENV, "PYTHONPATH": str(checkout)}, capture_output=True,
                          text=True)
    if done.returncode:
        raise RuntimeError(f"measuring {path.name} failed:\n{done.stderr[-2000:]}")
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def _scenarios_csv(folder: Path, n: int) -> Path:
    import pandas as pd

    source = pd.read_csv(ROOT / "inputs" / "scenarios.csv", dtype=str, keep_default_na=False)
    big = pd.concat([source] * -(-n // len(source)), ignore_index=True).iloc[:n].copy()
    big["scenario"] = [f"s{i}" for i in range(n)]
    path = folder / f"scenarios-{n}.csv"
    big.to_csv(path, index=False)
    return path


def _as_xlsx(csv_path: Path) -> Path:
    import openpyxl
    import pandas as pd

    frame = pd.read_csv(csv_path, dtype=str, keep_default_na=False)
    book = openpyxl.Workbook(write_only=True)
    sheet = book.create_sheet("Scenarios")
    sheet.append(list(frame.columns))
    for row in frame.itertuples(index=False):
        sheet.append([_number_or_text(v) for v in row])
    path = csv_path.with_suffix(".xlsx")
    book.save(path)
    return path


def _number_or_text(text: str) -> object:
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        return text


# --- workbooks at and over the limits -----------------------------------------------------------


def _package(path: Path, parts: dict[str, bytes], streamed: dict[str, object]) -> None:
    """A workbook with one sheet and shared strings; ``streamed`` parts are written from
    iterables of bytes (so that a part of hundreds of MiB never sits in memory)."""
    rels = ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/'
            'package/2006/relationships">{}</Relationships>')
    rel = ('<Relationship Id="{}" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
           'relationships/{}" Target="{}"/>')
    basic = {
        "[Content_Types].xml": b'<?xml version="1.0"?><Types xmlns="http://schemas.'
                               b'openxmlformats.org/package/2006/content-types"/>',
        "_rels/.rels": rels.format(rel.format("rId1", "officeDocument", "xl/workbook.xml")
                                   ).encode(),
        "xl/workbook.xml": (f'<?xml version="1.0"?><workbook xmlns="{NS}" xmlns:r="http://'
                            'schemas.openxmlformats.org/officeDocument/2006/relationships">'
                            '<sheets><sheet name="Scenarios" sheetId="1" r:id="rId1"/>'
                            "</sheets></workbook>").encode(),
        "xl/_rels/workbook.xml.rels": rels.format(
            rel.format("rId1", "worksheet", "worksheets/sheet1.xml")
            + rel.format("rId2", "sharedStrings", "sharedStrings.xml")).encode(),
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name, data in {**basic, **parts}.items():
            archive.writestr(name, data)
        for name, chunks in streamed.items():
            with archive.open(name, "w", force_zip64=True) as part:
                for chunk in chunks:  # type: ignore[attr-defined]
                    part.write(chunk)


def _worst_workbook(path: Path) -> tuple[int, int]:
    """A workbook within every limit but at them: MAX_XLSX_CELLS cells in 10 columns, all
    shared strings allowed, the shared-strings part just under its size limit. Returns
    (scenarios, shared strings)."""
    width = len(COLUMNS)
    rows = xlsx_input.MAX_XLSX_CELLS // width - 1
    count = xlsx_input.MAX_XLSX_SHARED_STRINGS
    fixed = [*COLUMNS, "Llama-3.1-8B", "H100"]
    names = count - len(fixed)  # the scenario names: unique strings
    used = rows
    # each <si><t>scenario-NNNNNNN</t></si> is 32 bytes; the unused ones are padded to fill
    pad = (xlsx_input.MAX_XLSX_SHARED_STRINGS_BYTES - 1000 - 32 * count) // max(1, names - used)

    def strings() -> object:
        yield f'<?xml version="1.0"?><sst xmlns="{NS}" count="{count}">'.encode()
        yield "".join(f"<si><t>{t}</t></si>" for t in fixed).encode()
        block: list[str] = []
        for i in range(names):
            block.append(f"<si><t>scenario-{i:07d}{'' if i < used else 'x' * pad}</t></si>")
            if len(block) == 10_000:
                yield "".join(block).encode()
                block = []
        yield ("".join(block) + "</sst>").encode()

    def sheet() -> object:
        yield f'<?xml version="1.0"?><worksheet xmlns="{NS}"><sheetData><row r="1">'.encode()
        yield "".join(f'<c t="s"><v>{j}</v></c>' for j in range(width)).encode() + b"</row>"
        block: list[str] = []
        for i in range(rows):
            n = i + 2
            block.append(
                f'<row r="{n}"><c t="s"><v>{len(fixed) + i}</v></c><c t="s"><v>10</v></c>'
                f'<c t="s"><v>11</v></c><c><v>{1 + i % 97}</v></c><c><v>{100 + i % 3000}</v></c>'
                f'<c><v>{50 + i % 700}</v></c><c><v>{(1 + i % 97) / 2}</v></c><c><v>8000</v></c>'
                f"<c><v>2000</v></c><c><v>{500 + i % 9}</v></c></row>")
            if len(block) == 10_000:
                yield "".join(block).encode()
                block = []
        yield ("".join(block) + "</sheetData></worksheet>").encode()

    _package(path, {}, {"xl/sharedStrings.xml": strings(), "xl/worksheets/sheet1.xml": sheet()})
    return rows, count


def _shared_strings_bomb(path: Path, mib: int, item: bytes = b"<si><t>x</t></si>") -> None:
    chunk = item * (2**20 // len(item))

    def strings() -> object:
        yield f'<?xml version="1.0"?><sst xmlns="{NS}">'.encode()
        for _ in range(mib):
            yield chunk
        yield b"</sst>"

    sheet = (f'<?xml version="1.0"?><worksheet xmlns="{NS}"><sheetData><row r="1">'
             '<c t="s"><v>0</v></c></row></sheetData></worksheet>').encode()
    _package(path, {"xl/worksheets/sheet1.xml": sheet}, {"xl/sharedStrings.xml": strings()})


def _reportgen(*args: str) -> list[str]:
    return [sys.executable, "-m", "reportgen", *args]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="skip the workbooks at the limits")
    parser.add_argument("--baseline", type=Path, help="another reportgen checkout (e.g. main) "
                        "whose read + validate is measured alternately with this one")
    options = parser.parse_args()
    n, runs = options.rows, options.repeat
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        csv_path = _scenarios_csv(folder, n)
        stages = _stage_times(csv_path, runs)
        print(f"read + validate, {n:,}-row CSV: read {stages['read']:.2f} s, validate "
              f"{stages['validate']:.2f} s (best of {runs}); peak {stages['peak_mib']:,.0f} MiB")
        if options.baseline:
            ours, theirs = [], []
            for _ in range(runs):  # alternately, so that both see the same load
                ours.append(_stage_times(csv_path, 1))
                theirs.append(_stage_times(csv_path, 1, options.baseline))
            for label, runs_of in (("this checkout", ours), (str(options.baseline), theirs)):
                read = min(r["read"] for r in runs_of)
                check = min(r["validate"] for r in runs_of)
                peak = min(r["peak_mib"] for r in runs_of)
                print(f"  {label}: read {read:.2f} s + validate {check:.2f} s = "
                      f"{read + check:.2f} s; peak {peak:,.0f} MiB")
        xlsx_path = _as_xlsx(csv_path)
        stages = _stage_times(xlsx_path, 1)
        print(f"read + validate, {n:,}-row XLSX ({xlsx_path.stat().st_size / 2**20:.1f} MiB): "
              f"read {stages['read']:.2f} s, validate {stages['validate']:.2f} s; peak "
              f"{stages['peak_mib']:,.0f} MiB")
        wall, peak, code, err = _best(runs, _reportgen("estimate", str(csv_path)))
        assert code == 0, err
        print(f"reportgen estimate, {n:,}-row CSV: {wall:.2f} s wall end to end (best of "
              f"{runs}); peak {peak:,.0f} MiB")
        if not options.quick:
            worst = folder / "worst.xlsx"
            rows, count = _worst_workbook(worst)
            size = sum(i.file_size for i in zipfile.ZipFile(worst).infolist()) / 2**20
            stages = _stage_times(worst, 1)
            print(f"worst XLSX within the limits ({rows:,} rows, {rows * len(COLUMNS) + 10:,} "
                  f"cells, {count:,} shared strings, {size:,.0f} MiB expanded): read "
                  f"{stages['read']:.1f} s, validate {stages['validate']:.1f} s; peak "
                  f"{stages['peak_mib']:,.0f} MiB")
            wall, peak, code, err = _measure(_reportgen("validate", str(worst)))
            print(f"  reportgen validate on it: exit {code}, {wall:.1f} s wall, peak "
                  f"{peak:,.0f} MiB")
            bomb = folder / "bomb.xlsx"
            _shared_strings_bomb(bomb, 390)
            wall, peak, code, err = _measure(_reportgen("validate", str(bomb)))
            print(f"390 MiB shared-strings bomb: exit {code} in {wall:.2f} s wall, peak "
                  f"{peak:,.0f} MiB: {err.strip()[:110]}...")
            many = folder / "many.xlsx"
            mib = -(-xlsx_input.MAX_XLSX_SHARED_STRINGS * 12 // 10 * 17 // 2**20)
            _shared_strings_bomb(many, mib)  # 20% more 17-byte strings than allowed
            wall, peak, code, err = _measure(_reportgen("validate", str(many)))
            print(f"{mib * 2**20 // 17:,} shared strings in {mib} MiB: exit {code} in {wall:.2f} s "
                  f"wall, peak {peak:,.0f} MiB: {err.strip()[:100]}...")
        pipe = folder / "pipe.csv"
        os.mkfifo(pipe)
        (folder / "zero.csv").symlink_to("/dev/zero")
        for special in (pipe, folder / "zero.csv"):
            wall, _, code, err = _measure(_reportgen("validate", str(special)))
            code_only = ("import time; from pathlib import Path; from reportgen.readers import "
                         "read_table\nt = time.perf_counter()\ntry: read_table(Path("
                         f"{str(special)!r}))\nexcept Exception: pass\n"
                         "print(time.perf_counter() - t)")
            inner = subprocess.run([sys.executable, "-c", code_only], cwd=ROOT, env=ENV,
                                   capture_output=True, text=True, timeout=60)
            print(f"{special.name} ({'named pipe' if special == pipe else '/dev/zero'}): exit "
                  f"{code} in {wall:.2f} s wall with start-up, refused in "
                  f"{float(inner.stdout) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
