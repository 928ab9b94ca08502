"""`reportgen estimate` plans a large file in blocks of whole workloads, by a process per core:
the text is byte for byte that of the whole file planned at once, and a failure after the first
rows were written says that the output is incomplete."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen import blocks, forked
from reportgen.blocks import workload_blocks, workload_keys, write_results
from reportgen.errors import OutputError
from reportgen.pipeline import make_plan, write_results_csv
from reportgen.stamp import stamped_results
from reportgen.validate import ValidatedInput
from tests.helpers import GENERATED
from tests.scenarios import base_row, validated

DEFAULT_INPUTS = Path(__file__).resolve().parents[2] / "inputs" / "scenarios.csv"
P99 = ("ttft_p99_ms", "tpot_p99_ms", "arrival_cv")


@pytest.fixture(scope="module")
def checked() -> ValidatedInput:
    """The default inputs three times (P99 targets in the first copy only: each is a
    simulation), between two rows of one workload spelled two ways, which no block may split."""
    with DEFAULT_INPUTS.open(encoding="utf-8") as stream:
        source = [{k: v or None for k, v in row.items()} for row in csv.DictReader(stream)]
    rows: list[dict[str, object]] = [base_row(scenario="spread-a", workload="spread",
                                              tpot_slo_ms=50)]
    for copy in range(3):
        for row in source:
            rows.append({**row, "scenario": f"{row['scenario']}-{copy}",
                         "workload": f"{row['workload']}-{copy}" if row.get("workload") else None,
                         **({p: None for p in P99} if copy else {})})
    rows.append(base_row(scenario="spread-b", workload="Spread ", gpu="H200", tpot_slo_ms=50))
    return validated(rows)


def whole_text(checked: ValidatedInput) -> bytes:
    plan = make_plan(checked, "big.csv", generated=GENERATED, results_only=True)
    text = io.StringIO()
    write_results_csv(stamped_results(plan), text)
    return text.getvalue().encode("utf-8")


def test_a_workload_spread_over_the_file_makes_it_one_block(checked: ValidatedInput) -> None:
    keys = workload_keys(checked)
    assert keys[0] == keys[-1] == "spread"
    cut = workload_blocks(keys, 4, blocks.may_need_knee(checked.scenarios))
    assert cut == [blocks.Block(0, len(keys), first=True)]
    out = io.BytesIO()
    write_results(checked, "big.csv", out, generated=GENERATED, rows=4, workers=0)
    assert out.getvalue() == whole_text(checked)


@pytest.mark.parametrize("workers", [0, 2])
def test_blocks_write_the_whole_plans_text(checked: ValidatedInput, workers: int) -> None:
    """Without the two spread rows the file is cut into many blocks, the P99 rows' alone; the
    text, the digest in every row included, is the whole plan's."""
    if workers and not forked.can_fork():
        pytest.skip("no fork on this platform")
    inner = slice(1, len(checked.scenarios) - 1)
    middle = replace(checked, scenarios=checked.scenarios.iloc[inner].reset_index(drop=True),
                     specs=None if checked.specs is None
                     else checked.specs.iloc[inner].reset_index(drop=True))
    knee = blocks.may_need_knee(middle.scenarios)
    cut = workload_blocks(workload_keys(middle), 5, knee)
    assert len(cut) >= 5 and any(b.first for b in cut)
    assert all(knee[b.start:b.stop].any() == b.first for b in cut)
    out = io.BytesIO()
    done: list[int] = []  # rows out after each block: the command's progress
    write_results(middle, "big.csv", out, generated=GENERATED, rows=5, workers=workers,
                  written=done.append)
    assert out.getvalue() == whole_text(middle)
    assert done == [b.stop for b in cut]


def test_a_failure_after_the_first_rows_says_the_output_is_incomplete(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rows = validated([base_row(scenario=f"s{i}") for i in range(6)])
    planned = blocks._planned

    def failing(start: int, stop: int) -> tuple[bytes, np.ndarray, tuple[str, ...]]:
        if start >= 4:
            raise MemoryError("out of memory")
        return planned(start, stop)

    monkeypatch.setattr(blocks, "_planned", failing)
    out = io.BytesIO()
    stopped = r"stopped after 4 of 6 rows: out of memory\..*incomplete"
    with pytest.raises(OutputError, match=stopped):
        write_results(rows, "six.csv", out, generated=GENERATED, rows=2, workers=0)
    assert out.getvalue().count(b"\n") == 5  # the header and the first four rows


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=40), st.integers(1, 8), st.data())
def test_blocks_cover_the_rows_in_order_and_split_no_workload(
        keys: list[int], rows: int, data: st.DataObject) -> None:
    n = len(keys)
    first = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    cut = workload_blocks(np.array(keys), rows, first)
    if not n:
        assert cut == []
        return
    assert [b.start for b in cut] == [0, *(b.stop for b in cut[:-1])] and cut[-1].stop == n
    block_of = np.concatenate([np.full(b.stop - b.start, i) for i, b in enumerate(cut)])
    for key in set(keys):  # a workload in one block
        assert len(set(block_of[np.array(keys) == key].tolist())) == 1
    for i, b in enumerate(cut):
        assert b.first == bool(first[b.start:b.stop].any())
        if not b.first and i < len(cut) - 1 and not cut[i + 1].first:
            assert b.stop - b.start >= rows  # only the last, or one before a first, is short
        if b.first:  # as short as the workloads allow: a workload crosses every inner cut
            for end in range(b.start + 1, b.stop):
                assert set(keys[b.start:end]) & set(keys[end:])


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path: Path) -> None:
    """`reportgen estimate big.csv | head`: the reader goes away after a few rows; the command
    stops with the shell's code for it (141), without a message or a traceback."""
    import subprocess
    import sys

    from reportgen.cli import EXIT_BROKEN_PIPE

    with DEFAULT_INPUTS.open(encoding="utf-8") as stream:
        header, *rows = stream.read().splitlines()
    names = header.split(",").index("scenario")
    lines = [header]
    for copy in range(20):  # ~500 KB of results: more than a pipe holds
        for row in rows:
            cells = next(csv.reader([row]))
            cells[names] = f"{cells[names]}-{copy}"
            lines.append(",".join(f'"{c}"' if "," in c else c for c in cells))
    path = tmp_path / "many.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with subprocess.Popen([sys.executable, "-m", "reportgen", "estimate", str(path)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          cwd=Path(__file__).resolve().parents[2]) as child:
        assert child.stdout is not None and child.stderr is not None
        assert child.stdout.read(1000).startswith(b"scenario,")
        child.stdout.close()
        assert child.wait(timeout=120) == EXIT_BROKEN_PIPE
        assert child.stderr.read() == b""
