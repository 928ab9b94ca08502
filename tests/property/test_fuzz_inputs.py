"""Fuzzing the scenario readers and validation through the command line (Hypothesis).

Whatever bytes or cells a scenario file holds, `reportgen build --format csv` ends with exit 0
(results written) or exit 2 (a message on stderr, nothing written): never exit 1 (a bug) and
never a traceback.
"""

from __future__ import annotations

import csv
import io
import math
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen import schema
from reportgen.cli import main
from tests.corpus.xlsx import table_bytes

FUZZ = settings(max_examples=200, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

VALID_HEADER = ["scenario", "model", "gpu", "peak_qps", "avg_qps", "avg_prompt_tokens",
                "avg_output_tokens", "max_prompt_tokens", "max_output_tokens", "tp",
                "weight_dtype", "kv_dtype", "ttft_slo_ms", "tpot_slo_ms", "prefix_cache_hit_rate",
                "gpu_hour_price", "engine", "method"]
VALID_ROWS = [
    ["chat", "Llama-3.1-70B", "H100", "200", "60", "1500", "800", "", "", "", "bf16", "bf16",
     "2000", "50", "", "", "vllm", "roofline"],
    ["rag", "Qwen2.5-32B", "H200", "8", "3", "12000", "400", "16000", "1000", "2", "fp8", "fp8",
     "3000", "50", "0.5", "4.5", "tensorrt-llm", "roofline"],
    ["moe", "Mixtral-8x7B", "MI300X", "40", "", "1000", "500", "", "", "", "bf16", "bf16", "", "",
     "", "", "sglang", "tutorial"],
]


def _csv(header: list[str], rows: list[list[str]], delimiter: str = ",") -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


VALID_CSV = _csv(VALID_HEADER, VALID_ROWS)
TALLY: dict[str, dict[int, int]] = {}


def _build(data: bytes, capsys: pytest.CaptureFixture[str], test: str,
           suffix: str = ".csv") -> None:
    """Run a build on ``data``; assert it ends as a user would want (exit 0 or 2, no bug)."""
    capsys.readouterr()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"fuzz{suffix}"
        path.write_bytes(data)
        out = Path(folder) / "out"
        code = main(["build", str(path), "--out", str(out), "--format", "csv"])
        captured = capsys.readouterr()
        TALLY.setdefault(test, {}).setdefault(code, 0)
        TALLY[test][code] += 1
        assert code in (0, 2), captured.err
        assert "Traceback" not in captured.err + captured.out
        assert "internal error" not in captured.err
        if code == 2:
            assert captured.err.startswith("reportgen: ")
            assert not out.exists() or not any(out.iterdir())
        else:
            assert (out / "fuzz-results.csv").stat().st_size > 0


def test_the_valid_file_builds(capsys: pytest.CaptureFixture[str]) -> None:
    _build(VALID_CSV.encode(), capsys, "valid")
    assert TALLY["valid"] == {0: 1}


@FUZZ
@given(st.binary(max_size=2000))
def test_random_bytes(capsys: pytest.CaptureFixture[str], data: bytes) -> None:
    _build(data, capsys, "random bytes")


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_after_a_valid_header(capsys: pytest.CaptureFixture[str],
                                           data: bytes) -> None:
    _build(VALID_CSV.split("\n", 1)[0].encode() + b"\n" + data, capsys, "bytes after header")


# --- mutations of a valid file -------------------------------------------------------------------

HUGE = st.sampled_from(["1e308", "1e309", "-1e308", "9" * 400, "1" + "0" * 30, "-0.0", "0",
                        "nan", "inf", "-inf", "1,5", "1.000,5", "1 000", "½", "١٢٣", "1e-320"])
TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
CELL = st.one_of(TEXT, HUGE, st.sampled_from(["", '"', '""', ";", ",", "\t", "\n", "\r\n", "=1+1",
                                                "%", "sep=;", "\ufeff"]))
MUTATION = st.one_of(
    st.tuples(st.just("replace"), st.integers(0, 3), st.integers(0, 17), CELL),
    st.tuples(st.just("delete"), st.integers(0, 3), st.integers(0, 17)),
    st.tuples(st.just("duplicate"), st.integers(0, 3), st.integers(0, 17)),
    st.tuples(st.just("delimiter"), st.integers(0, 3), st.sampled_from([";", "\t", "|", " "])),
    st.tuples(st.just("drop line"), st.integers(0, 3)),
    st.tuples(st.just("copy line"), st.integers(0, 3)),
    st.tuples(st.just("insert"), st.integers(0, 2000), TEXT),
)


def _mutate(text: str, mutations: list[tuple[object, ...]]) -> str:
    lines = text.rstrip("\n").split("\n")
    for kind, *args in mutations:
        if kind == "insert":
            at, extra = args
            joined = "\n".join(lines)
            at = int(at) % (len(joined) + 1)  # type: ignore[call-overload]
            lines = (joined[:at] + str(extra) + joined[at:]).split("\n")
            continue
        if not lines:
            break
        line = int(args[0]) % len(lines)  # type: ignore[call-overload]
        cells = lines[line].split(",")
        if kind == "replace":
            cells[int(args[1]) % len(cells)] = str(args[2])  # type: ignore[call-overload]
        elif kind == "delete":
            del cells[int(args[1]) % len(cells)]  # type: ignore[call-overload]
        elif kind == "duplicate":
            i = int(args[1]) % len(cells)  # type: ignore[call-overload]
            cells.insert(i, cells[i])
        elif kind == "delimiter":
            cells = [",".join(cells).replace(",", str(args[1]))]
        elif kind == "drop line":
            del lines[line]
            continue
        elif kind == "copy line":
            lines.insert(line, lines[line])
            continue
        lines[line] = ",".join(cells)
    return "\n".join(lines) + "\n"


@FUZZ
@given(st.lists(MUTATION, min_size=1, max_size=6), st.sampled_from([",", ";"]),
       st.sampled_from(["utf-8", "utf-8-sig"]))
def test_mutations_of_a_valid_file(capsys: pytest.CaptureFixture[str],
                                   mutations: list[tuple[object, ...]], delimiter: str,
                                   encoding: str) -> None:
    text = _mutate(VALID_CSV, mutations)
    if delimiter == ";":
        text = text.replace(",", ";")
    _build(text.encode(encoding), capsys, "mutations")


# --- every column set to drawn values ----------------------------------------------------------

FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 0.0, 1e308, -1e308, 5e-324, 1e30]),
)


def _in_range(column: schema.Column) -> st.SearchStrategy[object]:
    """Plausible values of a column, so that many examples reach the engine."""
    if column.choices:
        return st.sampled_from(column.choices)
    if column.name == "model":
        return st.sampled_from(["Llama-3.1-8B", "Qwen3-30B-A3B", "DeepSeek-V3", "gpt-oss-20b",
                                "meta-llama/Llama-3.1-70B-Instruct"])
    if column.name == "gpu":
        return st.sampled_from(["H100", "L4", "MI300X", "B200", "a100 80gb"])
    low = column.minimum if column.minimum is not None else 0.0
    high = column.maximum if column.maximum is not None else 1e6
    if column.integer:
        return st.integers(math.ceil(low), int(min(high, 1e6)))
    return st.floats(low, high, exclude_min=column.above_minimum)


def _value(column: schema.Column) -> st.SearchStrategy[object]:
    """Mostly plausible values (so the engine sees odd but valid inputs), often junk."""
    junk = st.one_of(st.none(), FLOATS, st.integers(-(10**20), 10**20), TEXT)
    plausible = _in_range(column)
    return st.integers(0, 15).flatmap(lambda k: junk if k == 0 else plausible)


COLUMN_VALUES = st.fixed_dictionaries(
    {c.name: st.lists(_value(c), min_size=3, max_size=3) for c in schema.COLUMNS
     if c.name not in ("scenario",)}
)
PERTURBED = st.lists(st.sampled_from([c.name for c in schema.COLUMNS if c.name != "scenario"]),
                     min_size=1, max_size=4, unique=True)


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _table(values: dict[str, list[object]], perturbed: list[str]
           ) -> tuple[list[str], list[list[object]]]:
    """The valid 3-row table with the ``perturbed`` columns set to the drawn values."""
    header = list(VALID_HEADER) + [c for c in perturbed if c not in VALID_HEADER]
    rows: list[list[object]] = []
    for r, base in enumerate(VALID_ROWS):
        row: list[object] = [*base, *([""] * (len(header) - len(base)))]
        for column in perturbed:
            row[header.index(column)] = values[column][r]
        rows.append(row)
    return header, rows


EVERY_COLUMN = settings(FUZZ, max_examples=30)


@pytest.mark.parametrize("column", [c.name for c in schema.COLUMNS if c.name != "scenario"])
@EVERY_COLUMN
@given(values=COLUMN_VALUES)
def test_each_column_set_to_drawn_values(capsys: pytest.CaptureFixture[str], column: str,
                                         values: dict[str, list[object]]) -> None:
    header, rows = _table(values, [column])
    text = _csv(header, [[_cell_text(v) for v in row] for row in rows])
    _build(text.encode(), capsys, "one column (csv)")


@FUZZ
@given(COLUMN_VALUES, PERTURBED)
def test_drawn_cell_values_csv(capsys: pytest.CaptureFixture[str],
                               values: dict[str, list[object]], perturbed: list[str]) -> None:
    header, rows = _table(values, perturbed)
    text = _csv(header, [[_cell_text(v) for v in row] for row in rows])
    _build(text.encode(), capsys, "cell values (csv)")


@FUZZ
@given(COLUMN_VALUES, PERTURBED)
def test_drawn_cell_values_xlsx(capsys: pytest.CaptureFixture[str],
                                values: dict[str, list[object]], perturbed: list[str]) -> None:
    header, rows = _table(values, perturbed)

    def typed(value: object) -> str | int | float | None:
        if value is None or isinstance(value, int | float | str):
            return value if not isinstance(value, float) or math.isfinite(value) else repr(value)
        return str(value)

    # A spreadsheet stores numbers as numbers: keep the drawn ints and floats typed.
    cells = [[typed(v) for v in row] for row in rows]
    clean = [[v.encode("utf-8", "replace").decode() if isinstance(v, str) else v for v in row]
             for row in cells]
    _build(table_bytes([header, *clean]), capsys, "cell values (xlsx)", suffix=".xlsx")
