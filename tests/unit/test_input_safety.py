"""Never lose the user's file, never hang, never crash on input: one test per class of failure.

* an output that would replace an input (the same path, a symbolic or hard link, standard
  output redirected into it) is refused and the input is left byte for byte as it was;
* a named pipe, a device, a socket or a folder given as the input or as a config.json is
  refused by its kind within a second (nothing is opened that could block);
* config.json files are models by what they are: two files in two folders are two models, one
  file written two ways is one;
* numbers in a config.json are checked like columns: non-finite, overflowing, fractional or
  boolean values are refused naming the field and the file;
* XLSX limits on shared strings and cells stop a hostile workbook early.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from reportgen import xlsx_input
from reportgen.cli import main
from reportgen.pipeline import load
from tests.corpus.cases import GOOD, HEADER, NAMES
from tests.corpus.xlsx import sheet_xml, table_bytes, workbook_bytes

ROOT = Path(__file__).resolve().parents[2]
LLAMA_8B = {  # Hugging Face meta-llama/Llama-3.1-8B config.json (architecture fields)
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
}
LLAMA_70B = {**LLAMA_8B, "hidden_size": 8192, "intermediate_size": 28672,
             "num_attention_heads": 64, "num_hidden_layers": 80}
ROW = "Llama-3.1-8B,H100,10,1000,200"


def _scenarios(path: Path, *models: str) -> Path:
    lines = [",".join(NAMES)] + [f"s{i},{m},H100,10,1000,200" for i, m in enumerate(models)]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def _config(path: Path, config: dict[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config), "utf-8")
    return path


@contextlib.contextmanager
def _within(seconds: int) -> Iterator[None]:
    """Fail instead of hanging if the block blocks (a pipe opened for reading waits for ever)."""
    def hung(*_: object) -> None:
        raise TimeoutError(f"still running after {seconds} s: reportgen blocked")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, float]:
    """Exit code, stderr and seconds of `reportgen ARGS` in this process."""
    capsys.readouterr()
    start = time.perf_counter()
    with _within(20):
        code = main(args)
    elapsed = time.perf_counter() - start
    return code, capsys.readouterr().err, elapsed


# --- outputs never replace inputs -----------------------------------------------------------------


def _snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def test_building_a_workbook_into_its_own_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """`reportgen build plan.xlsx --out .`: the workbook output is the input workbook."""
    plan = tmp_path / "plan.xlsx"
    plan.write_bytes(table_bytes([HEADER, GOOD]))
    before = _snapshot(plan)
    monkeypatch.chdir(tmp_path)
    code, err, _ = _run(["build", "plan.xlsx", "--out", ".", "--format", "xlsx"], capsys)
    assert code == 2
    assert err.splitlines() == [
        "reportgen: the workbook would be written to plan.xlsx, which is plan.xlsx, an input of "
        "this build; writing it would destroy the input, so nothing was written. Build into "
        "another folder (--out), or copy the input elsewhere first."]
    assert _snapshot(plan) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.xlsx"]


@pytest.mark.parametrize("link", ["symlink", "hardlink", "folder symlink"])
def test_an_output_reaching_the_input_through_a_link_is_refused(
    link: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    plan = tmp_path / "in" / "plan.csv"
    plan.parent.mkdir()
    _scenarios(plan, "Llama-3.1-8B")
    before = _snapshot(plan)
    out = tmp_path / "out"
    if link == "folder symlink":
        out.symlink_to(plan.parent, target_is_directory=True)
        plan.with_name("plan-results.csv").symlink_to(plan)
    else:
        out.mkdir()
        target = out / "plan-results.csv"
        target.symlink_to(plan) if link == "symlink" else os.link(plan, target)
    code, err, _ = _run(["build", str(plan), "--out", str(out), "--format", "csv"], capsys)
    assert code == 2, err
    assert f"which is {plan}, an input of this build (the same file under another name)" in err
    assert _snapshot(plan) == before


def test_an_output_over_a_config_json_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """Every file the build reads is protected, not only the scenario file."""
    config = _config(tmp_path / "llama" / "config.json", LLAMA_8B)
    before = _snapshot(config)
    _scenarios(tmp_path / "plan.csv", "llama/config.json")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "plan-results.csv").symlink_to(config)
    monkeypatch.chdir(tmp_path)
    code, err, _ = _run(["build", "plan.csv", "--out", "out", "--format", "csv"], capsys)
    assert code == 2
    assert "which is llama/config.json, an input of this build" in err
    assert _snapshot(config) == before


@pytest.mark.parametrize("mode", ["w", "a"])
def test_estimate_into_its_own_input_is_refused(mode: str, tmp_path: Path) -> None:
    """`reportgen estimate plan.csv > plan.csv` (the shell empties the file first) and
    `>> plan.csv` (the results would be appended to the scenarios)."""
    plan = _scenarios(tmp_path / "plan.csv", "Llama-3.1-8B")
    text = plan.read_text()
    with plan.open(mode) as stdout:
        done = subprocess.run([sys.executable, "-m", "reportgen", "estimate", str(plan)],
                              stdout=stdout, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 2, done.stderr
    emptied = " (the shell emptied it before reportgen started)" if mode == "w" else ""
    assert done.stderr == (f"reportgen: standard output is redirected into the scenario file "
                           f"{plan}{emptied}; nothing was written. Send the results to another "
                           "file.\n")
    assert plan.read_text() == ("" if mode == "w" else text)


# --- only regular files: refused by kind, at once -------------------------------------------------


def _special(kind: str, path: Path) -> Path:
    """A named pipe, a device (a link to /dev/zero, endless), a socket or a folder at path."""
    if kind == "pipe":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.close()
    else:
        path.mkdir()
    return path


KINDS = {"pipe": "a named pipe (FIFO), which could keep reportgen waiting for ever",
         "device": "a device (like /dev/zero or a terminal), which has no end",
         "socket": "a socket", "folder": "a folder"}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", ["build", "validate"])
def test_a_special_file_as_the_input_is_refused_at_once(
    kind: str, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _special(kind, tmp_path / "plan.csv")
    monkeypatch.chdir(tmp_path)
    extra = ["--out", "out", "--format", "csv"] if command == "build" else []
    code, err, seconds = _run([command, "plan.csv", *extra], capsys)
    assert code == 2
    if kind == "folder":
        assert err == "reportgen: plan.csv is a folder; expected a .csv or .xlsx scenario file.\n"
    else:
        assert err == (f"reportgen: plan.csv is {KINDS[kind]}, not a file; reportgen reads a .csv "
                       "or .xlsx scenario file only from a regular file. Save the data to a file "
                       "and give its path.\n")
    assert seconds < 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("kind", KINDS)
def test_a_special_file_as_a_config_json_is_refused_at_once(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "m").mkdir()
    _special(kind, tmp_path / "m" / "config.json")
    _scenarios(tmp_path / "plan.csv", "m/config.json")
    monkeypatch.chdir(tmp_path)
    code, err, seconds = _run(["validate", "plan.csv"], capsys)
    assert code == 2
    what = ("is a folder; expected a Hugging Face config.json" if kind == "folder" else
            f"is {KINDS[kind]}, not a file; reportgen reads a Hugging Face config.json only from "
            "a regular file. Save the data to a file and give its path")
    assert f'row 2 (scenario "s0"), column model: m/config.json {what}; expected a readable ' \
           "Hugging Face config.json." in err
    assert seconds < 1


def test_a_huge_config_json_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """A 1 GiB config.json (sparse: nothing is written) is refused by its size."""
    (tmp_path / "m").mkdir()
    with (tmp_path / "m" / "config.json").open("wb") as big:
        big.truncate(2**30)
    _scenarios(tmp_path / "plan.csv", "m/config.json")
    monkeypatch.chdir(tmp_path)
    code, err, seconds = _run(["validate", "plan.csv"], capsys)
    assert code == 2
    assert ("column model: m/config.json is 1 GiB; the limit is 10 MiB (a config.json is a few "
            "KiB): is it the right file?; expected a readable Hugging Face config.json.") in err
    assert seconds < 1


# --- config.json files are models by what they are --------------------------------------------


def test_two_config_json_files_are_two_models_and_one_file_is_one(tmp_path: Path) -> None:
    _config(tmp_path / "small" / "config.json", LLAMA_8B)
    _config(tmp_path / "large" / "config.json", LLAMA_70B)
    plan = _scenarios(tmp_path / "plan.csv", "small/config.json", "large/config.json",
                      "./small/config.json", "small/../small/config.json")
    checked = load(plan)
    models = checked.scenarios["model"].tolist()
    assert models == ["small/config.json", "large/config.json", "small/config.json",
                      "small/config.json"]
    params = checked.tables.models.loc[["small/config.json", "large/config.json"], "params_b"]
    assert params.tolist() == pytest.approx([8.03, 70.55], abs=0.01)
    assert sorted(f.shown for f in checked.inputs) == [
        str(plan), "large/config.json", "small/config.json"]


# --- numbers from a config.json are validated like columns ----------------------------------


@pytest.mark.parametrize(("text", "shown", "problem"), [
    ("1e300", "1e+300", "out of range"),
    ("1e29", "1e+29", "out of range"),
    ("Infinity", "Infinity", "not a finite number"),
    ("NaN", "NaN", "not a finite number"),
    ("-1", "-1", "out of range"),
    ("32.5", "32.5", "not a whole number"),
    ("true", "true", "not a number"),
    ('"32"', '"32"', "not a number"),
    ("1" + "0" * 400, "1" + "0" * 36 + "...", "out of range"),
])
def test_config_numbers_out_of_bounds_name_the_field_and_the_file(
    text: str, shown: str, problem: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    body = json.dumps(LLAMA_8B).replace('"num_hidden_layers": 32', f'"num_hidden_layers": {text}')
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(body, "utf-8")
    _scenarios(tmp_path / "plan.csv", "m/config.json")
    monkeypatch.chdir(tmp_path)
    code, err, _ = _run(["validate", "plan.csv"], capsys)
    assert code == 2, err
    assert err.splitlines()[1] == (
        f'  row 2 (scenario "s0"), column model: m/config.json: field "num_hidden_layers" is '
        f"{shown} ({problem}); expected a whole number from 1 to 10,000.")


@pytest.mark.parametrize(("change", "message"), [
    ({"num_key_value_heads": 12}, 'field "num_attention_heads" (32) is not a multiple of '
     '"num_key_value_heads" (12); expected query heads shared evenly by the key/value heads'),
    ({"hidden_size": 1_000_000, "intermediate_size": 10_000_000}, "the parameters counted from "
     "its fields come to 1,040,257 B; expected at most 100,000 B; check hidden_size, "
     "intermediate_size, vocab_size and the expert counts"),
    ({"num_local_experts": 8, "decoder_sparse_step": 0}, 'field "num_local_experts" is 8 but '
     '"num_experts_per_tok" is missing; expected both for a mixture of experts'),
])
def test_inconsistent_configs_are_explained_in_config_terms(
    change: dict[str, object], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _config(tmp_path / "m" / "config.json", {**LLAMA_8B, **change})
    _scenarios(tmp_path / "plan.csv", "m/config.json")
    monkeypatch.chdir(tmp_path)
    code, err, _ = _run(["validate", "plan.csv"], capsys)
    assert code == 2, err
    where = 'row 2 (scenario "s0"), column model'
    assert err.splitlines()[1] == f"  {where}: m/config.json: {message}."



# --- XLSX limits stop a hostile workbook early ------------------------------------------------


def _shared_strings(count: int, text: str = "x") -> bytes:
    items = "".join(f"<si><t>{text}{i}</t></si>" for i in range(count))
    return (f'<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.'
            f'org/spreadsheetml/2006/main" count="{count}">{items}</sst>').encode()


def _with_shared_strings(path: Path, strings: bytes) -> Path:
    """A workbook whose shared-strings part is ``strings`` (its sheet uses string 0)."""
    rels = ('<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
            'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http:'
            '//schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target='
            '"worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxml'
            'formats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings'
            '.xml"/></Relationships>')
    rest = "".join(f'<c r="{col}3"><v>{v}</v></c>' for col, v in zip("DEF", GOOD[3:], strict=True))
    body = ('<row r="3"><c r="A3" t="s"><v>0</v></c><c r="B3" t="inlineStr"><is><t>'
            f'{GOOD[1]}</t></is></c><c r="C3" t="inlineStr"><is><t>{GOOD[2]}</t></is></c>'
            f"{rest}</row>")
    path.write_bytes(workbook_bytes(sheet_xml([HEADER, GOOD], body=body), extra={
        "xl/_rels/workbook.xml.rels": rels.encode(), "xl/sharedStrings.xml": strings}))
    return path


@pytest.mark.parametrize(("limit", "value", "message"), [
    ("MAX_XLSX_SHARED_STRINGS", 1_000, "has more than 1,000 different texts (shared strings)"),
    ("MAX_XLSX_SHARED_STRINGS_BYTES", 10_000, "its texts (shared strings) expand to 40 KiB; "
     "the limit is 9.8 KiB"),
    ("MAX_XLSX_CELLS", 10, "has more than 10 cells"),
    ("MAX_XLSX_INLINE_TEXT_CHARS", 20, "holds more than 20 characters of text in its cells"),
])
def test_a_workbook_over_a_parse_limit_is_refused(
    limit: str, value: int, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The limits that bound parse time (lowered here; benchmarks/input_limits.py times a
    workbook at the real ones)."""
    monkeypatch.setattr(xlsx_input, limit, value)
    _with_shared_strings(tmp_path / "bomb.xlsx", _shared_strings(2_000))
    code, err, _ = _run(["validate", str(tmp_path / "bomb.xlsx")], capsys)
    assert code == 2
    assert message in err


def test_a_workbook_within_the_limits_reads_its_shared_strings(tmp_path: Path) -> None:
    path = _with_shared_strings(tmp_path / "ok.xlsx", _shared_strings(2_000, "row-"))
    names = load(path).scenarios["scenario"].tolist()
    assert names == ["chat", "row-0"]


def test_the_default_scenarios_read_the_same_quoted_and_plain(tmp_path: Path) -> None:
    """The CSV fast path (no quotes) reads what the csv module reads."""
    frame = pd.read_csv(ROOT / "inputs" / "scenarios.csv", dtype=str, keep_default_na=False)
    plain = tmp_path / "plain.csv"
    frame.to_csv(plain, index=False)
    quoted = tmp_path / "quoted.csv"
    frame.to_csv(quoted, index=False, quoting=1)  # every cell quoted: the csv module reads it
    a, b = load(plain), load(quoted)
    pd.testing.assert_frame_equal(a.scenarios, b.scenarios)


# --- names are what a reader sees ---------------------------------------------------------------


def test_two_spellings_of_one_workload_that_read_the_same_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """The workbook groups workloads by LOWER(TRIM()): "Chat " is "chat", but "chat" with a
    zero-width space, or Café in two Unicode forms, would be two workloads, each budgeted."""
    lines = [",".join([*NAMES, "workload"])] + [
        f"s{i},{ROW},{w}" for i, w in enumerate(["chat", "Chat ", "chat\u200b", "Caf\u00e9",
                                                  "Cafe\u0301"])]
    (tmp_path / "plan.csv").write_text("\n".join(lines) + "\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    code, err, _ = _run(["validate", "plan.csv"], capsys)
    assert code == 2
    problems = [line for line in err.splitlines() if line.startswith("  row")]
    assert [line.split(":")[0] for line in problems] == [
        '  row 4 (scenario "s2"), column workload', '  row 6 (scenario "s4"), column workload']
    assert '"chat\\u200b" reads the same as the workload on row 2' in problems[0]
