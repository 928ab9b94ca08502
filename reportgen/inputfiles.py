"""Reading a file the user named, safely, and remembering it so that no output replaces it.

Every file reportgen reads on the user's behalf (the scenario file, a model's config.json, and
any input a later feature adds: prices, demand profiles, load-test results, actuals) goes through
:func:`read_input`:

* only a regular file is read: a folder, a named pipe (which would block forever), a device such
  as ``/dev/zero`` (endless) or a socket is refused by its kind, before it is opened;
* at most ``limit`` bytes are read, whatever size the file claims (a file that grows while it is
  read is refused, not read without end);
* the file is opened read-only and never written;
* the returned :class:`InputFile` identifies the file on disk (device and inode, and its resolved
  path). The pipeline collects them and :func:`find_overwritten_input` refuses any output path
  that is one of them: the same path, a symbolic or hard link to it, or a spelling that differs
  only in case on a case-insensitive file system.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from reportgen.errors import InputFileError

_CHUNK = 1 << 20
_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


@dataclass(frozen=True)
class InputFile:
    """A file a build read: the name the user gave and its identity on disk."""

    shown: str  # the path as the user wrote it (what messages show)
    resolved: Path  # absolute, symbolic links resolved
    device: int
    inode: int

    @property
    def key(self) -> object:
        """What tells this file from any other: device and inode, or the resolved path where
        the file system has no inodes."""
        return (self.device, self.inode) if self.inode else os.path.normcase(self.resolved)

    def is_file(self, path: Path) -> bool:
        """Whether ``path`` names this file (through links, or in another case where the file
        system ignores case)."""
        try:
            st = path.stat()
        except (OSError, ValueError):
            return False
        if self.inode and (st.st_dev, st.st_ino) == (self.device, self.inode):
            return True
        return os.path.normcase(os.path.realpath(path)) == os.path.normcase(self.resolved)


def describe_size(n: int) -> str:
    """A byte count in words: "200 bytes", "64 KiB", "1.5 GiB"."""
    if n < 1024:
        return f"{n:,} byte{'s' if n != 1 else ''}"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            value = n / scale
            text = f"{value:,.0f}" if value >= 10 else f"{value:,.1f}".removesuffix(".0")
            return f"{text} {unit}"
    raise AssertionError(n)  # pragma: no cover


def describe_sizes(size: int, limit: int) -> tuple[str, str]:
    """``size`` and ``limit`` in words (:func:`describe_size`), in bytes where the words would
    read the same ("200 MiB; the limit is 200 MiB" for a file just over it)."""
    words = describe_size(size), describe_size(limit)
    return words if words[0] != words[1] else (f"{size:,} bytes", f"{limit:,} bytes")


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), which could keep reportgen waiting for ever"
    if stat.S_ISCHR(mode):
        return "a device (like /dev/zero or a terminal), which has no end"
    if stat.S_ISBLK(mode):
        return "a block device (a disk)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _cannot_read(shown: str, err: OSError) -> InputFileError:
    if err.errno == errno.ELOOP:
        reason = "its symbolic links form a loop"
    else:
        reason = err.strerror or str(err)
    return InputFileError(f"{shown} cannot be read: {reason}. Check that the file exists and "
                          "that you may read it.")


def _open(path: Path) -> int:
    return os.open(path, _OPEN_FLAGS)


def check_regular_file(path: Path, *, what: str, shown: str | None = None,
                       missing: str = "") -> os.stat_result:
    """The status of ``path`` if it is a regular file; InputFileError (what it is instead, and
    what to do) otherwise. Nothing is opened, so a pipe or a device cannot block."""
    shown = shown if shown is not None else str(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        raise InputFileError(f"{shown}: no such file.{' ' + missing if missing else ''}"
                             ) from None
    except (OSError, ValueError) as err:  # ValueError: a NUL byte in the path
        if isinstance(err, OSError):
            raise _cannot_read(shown, err) from None
        raise InputFileError(f"{shown}: not a valid path ({err}).") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputFileError(f"{shown} is a folder; expected {what}.")
    if not stat.S_ISREG(st.st_mode):
        raise InputFileError(f"{shown} is {_kind(st.st_mode)}, not a file; reportgen reads "
                             f"{what} only from a regular file. Save the data to a file and "
                             "give its path.")
    return st


def read_input(path: Path, *, what: str, limit: int, shown: str | None = None,
               missing: str = "", too_big: str = "") -> tuple[bytes, InputFile]:
    """Read the whole of the regular file ``path``, at most ``limit`` bytes.

    ``what`` names the expected file in messages ("a .csv or .xlsx scenario file"); ``shown``
    is the path as the user wrote it (default: ``path``); ``missing`` is appended to the message
    for a file that does not exist and ``too_big`` to the one for a file over the limit. Raises
    InputFileError, with what to do, for anything but a readable regular file within the limit.
    """
    shown = shown if shown is not None else str(path)
    st = check_regular_file(path, what=what, shown=shown, missing=missing)
    over = f"{shown} is {{size}}; the limit is {{limit}}" + (f" {too_big}" if too_big else ".")
    if st.st_size > limit:
        found, most = describe_sizes(st.st_size, limit)
        raise InputFileError(over.format(size=found, limit=most))
    try:
        fd = _open(path)
    except OSError as err:
        raise _cannot_read(shown, err) from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):  # replaced between the check and the open
            raise InputFileError(f"{shown} is {_kind(opened.st_mode)}, not a file; reportgen "
                                 f"reads {what} only from a regular file.")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as err:
        raise _cannot_read(shown, err) from None
    finally:
        os.close(fd)
    if size > limit:
        raise InputFileError(over.format(size=f"more than {describe_size(limit)}",
                                         limit=describe_size(limit)))
    resolved = Path(os.path.realpath(path))
    return b"".join(chunks), InputFile(shown, resolved, opened.st_dev, opened.st_ino)


def find_overwritten_input(destination: Path, inputs: Iterable[InputFile]) -> InputFile | None:
    """The input that writing ``destination`` would replace, or None."""
    for source in inputs:
        if source.is_file(destination):
            return source
    return None
