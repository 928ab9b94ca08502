"""Nothing lost: outputs appear whole or not at all, whatever happens to the build.

Covers a build killed with SIGKILL while it writes, a read-only output folder, two builds into
the same folder at once, and the clean-up of partial files that killed builds leave behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reportgen import forked, i18n, outputs
from reportgen.cli import main
from reportgen.errors import OutputError
from reportgen.outputs import remove_stale_partials, staged_outputs

ROOT = Path(__file__).resolve().parents[2]
HEADER = "scenario,model,gpu,peak_qps,avg_prompt_tokens,avg_output_tokens,tpot_slo_ms\n"
MODELS = ("Llama-3.1-8B", "Llama-3.1-70B", "Qwen2.5-32B", "Mixtral-8x7B")
GPUS = ("H100", "H200", "L40S", "MI300X")


def _scenarios(path: Path, n: int) -> Path:
    lines = [f"s{i},{MODELS[i % 4]},{GPUS[i // 4 % 4]},{1 + i % 97},{100 + i % 3000},"
             f"{50 + i % 700},{'' if i % 3 else 40 + i % 50}\n" for i in range(n)]
    path.write_text(HEADER + "".join(lines))
    return path


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "reportgen", "build", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _partials(folder: Path) -> list[Path]:
    return sorted(folder.glob(".*.partial"))


def _write(path: Path, text: str) -> None:
    path.write_text(text)


def _complete_csv(path: Path, rows: int) -> bool:
    text = path.read_text()
    return text.endswith("\n") and text.count("\n") == rows + 1


# --- a build killed while it writes ---------------------------------------------------------------


def test_sigkill_mid_write_keeps_the_previous_output(tmp_path: Path) -> None:
    """Build a small plan, then rebuild it from a large input and SIGKILL the build as soon as
    its partial file holds data: the previous results stay intact and nothing truncated appears;
    the next build removes the stale partial file."""
    out = tmp_path / "out"
    plan = _scenarios(tmp_path / "plan.csv", 5)
    subprocess.run(_command(str(plan), "--out", str(out), "--format", "csv"), env=_env(),
                   check=True, capture_output=True)
    results = out / "plan-results.csv"
    good = results.read_bytes()
    assert _complete_csv(results, 5)

    _scenarios(plan, 20_000)  # about 17 MB of results: long enough to be caught writing
    build = subprocess.Popen(_command(str(plan), "--out", str(out), "--format", "csv"),
                             env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    caught = False
    deadline = time.monotonic() + 120
    try:
        while build.poll() is None and time.monotonic() < deadline:
            partial = _partials(out)
            try:
                writing = bool(partial) and partial[0].stat().st_size > 0
            except FileNotFoundError:  # renamed into place between the glob and the stat
                writing = False
            if writing:
                build.send_signal(signal.SIGKILL)
                caught = True
                break
            time.sleep(0.002)
    finally:
        build.kill()
        build.wait()
    if not caught:  # the build won the race: it must then have replaced the file whole
        assert build.returncode == 0
        assert _complete_csv(results, 20_000)
        pytest.skip("the build finished before it could be killed mid-write")
    assert build.returncode == -signal.SIGKILL
    if results.read_bytes() != good:  # killed in the instant between the write and the rename
        assert _complete_csv(results, 20_000)
        pytest.skip("the build was killed after its output was complete")
    # the previous good output, untouched
    assert sorted(p.name for p in out.iterdir() if not p.name.endswith(".partial")) == [
        "plan-results.csv"]
    stale = _partials(out)
    assert len(stale) == 1  # SIGKILL leaves its partial file behind ...

    _scenarios(plan, 5)
    subprocess.run(_command(str(plan), "--out", str(out), "--format", "csv"), env=_env(),
                   check=True, capture_output=True)
    assert _partials(out) == []  # ... and the next build into the folder removes it
    assert results.read_bytes() == good


def test_a_failing_render_leaves_existing_outputs_and_no_partials(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("old a\n")
    (tmp_path / "b.csv").write_text("old b\n")

    def broken(path: Path) -> None:
        path.write_text("half")
        raise RuntimeError("renderer crashed")

    with pytest.raises(RuntimeError), staged_outputs(tmp_path) as stage:
        stage(tmp_path / "a.csv", lambda p: _write(p, "new a\n"))
        stage(tmp_path / "b.csv", broken)
    assert (tmp_path / "a.csv").read_text() == "old a\n"
    assert (tmp_path / "b.csv").read_text() == "old b\n"
    assert _partials(tmp_path) == []


def _fill(path: Path, text: str) -> None:
    time.sleep(0.2)  # still writing when the stage block ends
    path.write_text(text)


def test_a_file_written_by_another_process_is_waited_for(tmp_path: Path) -> None:
    """A workbook written by a forked process while the PDF is laid out is published whole,
    with the others, once that process is done."""
    with staged_outputs(tmp_path) as stage:
        stage(tmp_path / "a.csv", lambda p: forked.start(lambda: _fill(p, "new a\n"),
                                                         min_cores=1))
        stage(tmp_path / "b.csv", lambda p: _write(p, "new b\n"))
    assert (tmp_path / "a.csv").read_text() == "new a\n"
    assert (tmp_path / "b.csv").read_text() == "new b\n"
    assert _partials(tmp_path) == []


@pytest.mark.parametrize("ending", ["error", "full disk", "death"])
def test_a_failing_forked_render_publishes_nothing(tmp_path: Path, ending: str) -> None:
    """The forked writer's error is raised in the build (a full disk as the usual message); a
    writer that dies without a word is an error too; nothing is published either way."""
    (tmp_path / "a.csv").write_text("old a\n")

    def broken(path: Path) -> None:
        path.write_text("half")
        if ending == "error":
            raise OutputError("the workbook could not be written")
        if ending == "full disk":
            raise OSError(28, "No space left on device")
        os._exit(3)

    expected = {"error": "could not be written", "full disk": "the disk is full",
                "death": "exit code 3"}[ending]
    with pytest.raises((OutputError, RuntimeError), match=expected), \
            staged_outputs(tmp_path) as stage:
        stage(tmp_path / "a.csv", lambda p: forked.start(lambda: broken(p), min_cores=1))
        stage(tmp_path / "b.csv", lambda p: _write(p, "new b\n"))
    assert (tmp_path / "a.csv").read_text() == "old a\n"
    assert not (tmp_path / "b.csv").exists()
    assert _partials(tmp_path) == []


def test_a_build_with_a_pdf_writes_the_same_workbook_as_one_without(tmp_path: Path) -> None:
    """`build` writes the workbook in another process while it lays out the PDF: the same
    bytes as the workbook written alone."""
    from reportgen.pipeline import BuildOptions, build

    source = _scenarios(tmp_path / "plan.csv", 1)
    both, alone = tmp_path / "both", tmp_path / "alone"
    build(BuildOptions(source, both, formats=("xlsx", "pdf")))
    build(BuildOptions(source, alone, formats=("xlsx",)))
    assert (both / "plan.xlsx").read_bytes() == (alone / "plan.xlsx").read_bytes()
    assert _partials(both) == []


def test_forked_work_speaks_the_active_language(tmp_path: Path) -> None:
    """Work done in a forked process (the workbook of a Chinese build) is done in the
    language active when it was started."""
    said = tmp_path / "said.txt"
    with i18n.language("zh-CN"):
        expected = i18n._("Page {page} of {pages}")
        forked.start(lambda: said.write_text(i18n._("Page {page} of {pages}")),
                     min_cores=1).wait()
    assert expected != "Page {page} of {pages}"
    assert said.read_text() == expected


def test_outputs_get_ordinary_file_permissions(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        with staged_outputs(tmp_path) as stage:
            stage(tmp_path / "r.csv", lambda p: _write(p, "x\n"))
    finally:
        os.umask(old)
    assert (tmp_path / "r.csv").stat().st_mode & 0o777 == 0o644  # not mkstemp's 0o600


# --- folders that cannot be written ---------------------------------------------------------


def _good_input(tmp_path: Path) -> Path:
    return _scenarios(tmp_path / "plan.csv", 3)


def test_read_only_output_folder_exits_2(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "locked"
    out.mkdir()
    out.chmod(0o555)
    try:
        if os.access(out, os.W_OK):
            pytest.skip("permissions are not enforced for this user (root)")
        code = main(["build", str(_good_input(tmp_path)), "--out", str(out), "--format", "csv"])
    finally:
        out.chmod(0o755)
    assert code == 2
    assert "permission denied" in capsys.readouterr().err
    assert list(out.iterdir()) == []


def test_permission_denied_is_a_clear_user_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """The same as a read-only folder, for any user (root ignores folder permissions)."""
    def refuse(out_dir: Path, destination: Path) -> Path:
        raise PermissionError(13, "Permission denied", str(out_dir))

    monkeypatch.setattr(outputs, "_create_partial", refuse)
    plan = _good_input(tmp_path)
    out = tmp_path / "out"
    assert main(["build", str(plan), "--out", str(out), "--format", "csv"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"reportgen: cannot write {out / 'plan-results.csv'}: permission denied. Is the file "
        "open in Excel or a PDF viewer, or the folder read-only? Close it or choose another "
        "--out folder.",
    ]
    assert list(out.iterdir()) == []


def test_out_is_a_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report.pdf"
    out.write_text("not a folder")
    assert main(["build", str(_good_input(tmp_path)), "--out", str(out), "--format", "csv"]) == 2
    assert f"Directory '{out}' is a file." in capsys.readouterr().err  # click checks --out
    assert out.read_text() == "not a folder"
    with pytest.raises(OutputError, match="it is a file, not a folder"), staged_outputs(out):
        pass  # and so does the library, for callers other than the CLI


# --- two builds at once -------------------------------------------------------------------------


def test_two_concurrent_builds_into_one_folder_both_succeed(tmp_path: Path) -> None:
    plan = _scenarios(tmp_path / "plan.csv", 3000)
    other = _scenarios(tmp_path / "other.csv", 2000)
    out = tmp_path / "out"
    reference = tmp_path / "reference"
    subprocess.run(_command(str(plan), "--out", str(reference), "--format", "csv"), env=_env(),
                   check=True, capture_output=True)
    builds = [
        subprocess.Popen(_command(str(path), "--out", str(out), "--format", "csv"), env=_env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for path in (plan, plan, other)
    ]
    for build in builds:
        _, err = build.communicate(timeout=300)
        assert build.returncode == 0, err.decode()
    assert sorted(p.name for p in out.iterdir()) == ["other-results.csv", "plan-results.csv"]
    assert (out / "plan-results.csv").read_bytes() == (reference / "plan-results.csv").read_bytes()
    assert _complete_csv(out / "other-results.csv", 2000)


# --- stale partial files ---------------------------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid  # exited and reaped: no process has this id (until it is reused)


def test_only_stale_partials_are_removed(tmp_path: Path) -> None:
    host = outputs._host()
    other = "elsewhere" if host != "elsewhere" else "another"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        files = {
            "dead": f".r.csv.{host}.{_dead_pid()}.{'a' * 16}.partial",
            "running": f".r.csv.{host}.{sleeper.pid}.{'b' * 16}.partial",
            "mine": f".r.csv.{host}.{os.getpid()}.{'c' * 16}.partial",
            "old elsewhere": f".r.xlsx.{other}.123.{'d' * 16}.partial",
            "new elsewhere": f".r.xlsx.{other}.123.{'e' * 16}.partial",
            "not ours": ".r.csv.partial",
            "output": "r.csv",
        }
        for name in files.values():
            (tmp_path / name).write_text("x")
        day_ago = time.time() - outputs.STALE_FOREIGN_SECONDS - 60
        os.utime(tmp_path / files["old elsewhere"], (day_ago, day_ago))
        removed = remove_stale_partials(tmp_path)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert sorted(p.name for p in removed) == sorted([files["dead"], files["old elsewhere"]])
    left = {p.name for p in tmp_path.iterdir()}
    assert left == set(files.values()) - {files["dead"], files["old elsewhere"]}
