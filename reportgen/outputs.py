"""Writing output files so that a crash never leaves a half-written one.

Each output is rendered into a temporary file beside its destination and renamed into place only
when every output of the build is complete; an existing good output stays untouched until then.
os.replace is atomic on one filesystem, so two builds writing the same folder at once each leave
a complete file (the last one to finish wins), never a mixture.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from reportgen.errors import OutputError


def _describe(err: OSError, path: Path) -> str:
    if isinstance(err, PermissionError):
        return (f"cannot write {path}: permission denied. Is the file open in Excel or a PDF "
                "viewer, or the folder read-only? Close it or choose another --out folder.")
    if err.errno == 28:
        return f"cannot write {path}: the disk is full. Free some space and build again."
    return f"cannot write {path}: {err.strerror or err}."


@contextlib.contextmanager
def staged_outputs(out_dir: Path) -> Iterator[Callable[[Path, Callable[[Path], None]], None]]:
    """Stage outputs and publish them together.

    Yields ``stage(destination, render)``: ``render(temp_path)`` writes the file. When the block
    ends without an exception every staged file is renamed to its destination; otherwise the
    temporary files are removed and existing outputs are left as they were.
    """
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(_describe(err, out_dir)) from None
    staged: list[tuple[Path, Path]] = []

    def stage(destination: Path, render: Callable[[Path], None]) -> None:
        try:
            handle, name = tempfile.mkstemp(
                prefix=f".{destination.name}.", suffix=".partial", dir=out_dir
            )
            os.close(handle)
        except OSError as err:
            raise OutputError(_describe(err, destination)) from None
        temp = Path(name)
        staged.append((temp, destination))
        try:
            render(temp)
        except OSError as err:
            raise OutputError(_describe(err, destination)) from None

    try:
        yield stage
        for temp, destination in staged:
            try:
                os.replace(temp, destination)
            except OSError as err:
                raise OutputError(_describe(err, destination)) from None
    finally:
        for temp, _ in staged:
            temp.unlink(missing_ok=True)
