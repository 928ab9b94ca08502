"""Writing output files so that a crash never leaves a half-written one.

Each output is rendered into a temporary file beside its destination
(``.<name>.<host>.<pid>.<random>.partial``), flushed to disk, and renamed into place only when
every output of the build is complete; an existing good output stays untouched until then.
os.replace is atomic on one filesystem, so two builds writing the same folder at once each leave
a complete file (the last one to finish wins), never a mixture within a file.

A build that is killed (SIGKILL, power loss) cannot remove its temporary files. The next build
into the same folder removes such stale ``.partial`` files: those of a process on this machine
that no longer runs, and those of another machine older than STALE_FOREIGN_SECONDS. Partial files
of a build that is still running are left alone. If a build is killed while it renames its
outputs, each output is complete but the set may mix the new build and the previous one; the
input SHA-256 stamped in each output tells them apart.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

from reportgen.errors import OutputError

STALE_FOREIGN_SECONDS = 24 * 3600
_PARTIAL = re.compile(r"^\..+\.(?P<host>[A-Za-z0-9-]*)\.(?P<pid>\d+)\.[0-9a-f]{16}\.partial$")


def _describe(err: OSError, path: Path) -> str:
    if isinstance(err, PermissionError) or err.errno == 30:  # EROFS: read-only filesystem
        return (f"cannot write {path}: permission denied. Is the file open in Excel or a PDF "
                "viewer, or the folder read-only? Close it or choose another --out folder.")
    if err.errno == 28:
        return f"cannot write {path}: the disk is full. Free some space and build again."
    if isinstance(err, NotADirectoryError | FileExistsError):
        return (f"cannot write {path}: a file is in the way where a folder is needed; choose "
                "another --out folder.")
    if isinstance(err, IsADirectoryError):
        return f"cannot write {path}: a folder of that name is in the way; move it or rename it."
    return f"cannot write {path}: {err.strerror or err}."


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9-]", "", socket.gethostname())[:32]


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but belongs to someone else
        return True
    return True


def remove_stale_partials(out_dir: Path) -> list[Path]:
    """Remove the ``.partial`` files that killed builds left in ``out_dir``; return them."""
    removed: list[Path] = []
    host = _host()
    try:
        entries = list(out_dir.iterdir())
    except OSError:
        return removed
    for path in entries:
        match = _PARTIAL.match(path.name)
        if not match:
            continue
        try:
            if match["host"] == host:
                stale = int(match["pid"]) != os.getpid() and not _running(int(match["pid"]))
            else:
                stale = time.time() - path.stat().st_mtime > STALE_FOREIGN_SECONDS
            if stale:
                path.unlink()
                removed.append(path)
        except OSError:
            continue  # another build removed it first, or it is not ours to remove
    return removed


def _create_partial(out_dir: Path, destination: Path) -> Path:
    prefix = f".{destination.name}.{_host()}.{os.getpid()}."
    for _ in range(100):
        temp = out_dir / f"{prefix}{os.urandom(8).hex()}.partial"
        try:
            # 0o666 less the umask, like any new file (mkstemp would give 0o600)
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return temp
    raise FileExistsError(17, "could not create a unique temporary file", str(out_dir))


def _flush(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _flush_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform can open a folder
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class Pending(Protocol):
    """A file still being written by another process (see :mod:`reportgen.forked`)."""

    def wait(self) -> None: ...

    def cancel(self) -> None: ...


Render = Callable[[Path], "Pending | None"]


@contextlib.contextmanager
def staged_outputs(out_dir: Path) -> Iterator[Callable[[Path, Render], None]]:
    """Stage outputs and publish them together.

    Yields ``stage(destination, render)``: ``render(temp_path)`` writes the file, or starts
    writing it elsewhere and returns the :class:`Pending` work, waited for before anything is
    published. When the block ends without an exception every staged file is flushed and
    renamed to its destination; otherwise the temporary files are removed (pending work
    stopped) and existing outputs are left as they were. Stale partial files of killed builds
    are removed first (see the module docstring).
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputError(f"cannot write into {out_dir}: it is a file, not a folder; choose "
                          "another --out folder.")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(_describe(err, out_dir)) from None
    remove_stale_partials(out_dir)
    staged: list[tuple[Path, Path]] = []
    pending: list[tuple[Pending, Path, Path]] = []

    def stage(destination: Path, render: Render) -> None:
        try:
            temp = _create_partial(out_dir, destination)
        except OSError as err:
            raise OutputError(_describe(err, destination)) from None
        staged.append((temp, destination))
        try:
            writing = render(temp)
            if writing is None:
                _flush(temp)
            else:
                pending.append((writing, temp, destination))
        except OSError as err:
            raise OutputError(_describe(err, destination)) from None

    try:
        yield stage
        while pending:
            writing, temp, destination = pending.pop(0)
            try:
                writing.wait()
                _flush(temp)
            except OSError as err:
                raise OutputError(_describe(err, destination)) from None
        for temp, destination in staged:
            try:
                temp.replace(destination)
            except OSError as err:
                raise OutputError(_describe(err, destination)) from None
        _flush_dir(out_dir)
    finally:
        for writing, _, _ in pending:
            writing.cancel()
        for temp, _ in staged:
            temp.unlink(missing_ok=True)
