"""Files: crash-safe writes (temp file -> flush -> fsync -> os.replace -> fsync(dir)) and reads.

A reader sees either the old file or the complete new one, never a torn write, even when the
writer is killed with SIGKILL or the machine loses power after ``os.replace`` returns.

Each writer has a temp file of its own (``<name>.<host>-<pid>-<token>.tmp``), so two writers of
one file (two processes, two threads) never write through each other's temp file: the last
rename wins, whole. A temp file left by a killed writer is removed by the next write of the same
file (its pid is gone on this host; one from another host sharing the disk once it is an hour
old). A full disk is a ``DiskFull`` naming the directory and the space needed, never a traceback.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from rgt.base.errors import RgtError
from rgt.base.processes import pid_alive

# errnos that mean "this disk (or this user's quota) is full"
FULL = (errno.ENOSPC, errno.EDQUOT)
# How old another host's temp file must be before a writer here may take it for a dead one's.
FOREIGN_TEMP_AGE_S = 3600.0
_TEMP = re.compile(r"\.(?P<host>[0-9a-f]{8})-(?P<pid>[0-9]+)-[0-9a-f]{8}\.tmp$")


class DiskFull(RgtError):
    """A write ran out of space: names the directory, what it holds free and what was needed."""

    def __init__(self, path: str | Path, needed: int | None = None, what: str | None = None):
        directory = Path(path).parent
        free = free_bytes(directory)
        self.directory, self.needed, self.free = directory, needed, free
        wanted = f"at least {human_bytes(needed)} needed" if needed else "more space needed"
        super().__init__(
            f"No space left on device in {directory} writing {what or Path(path).name} "
            f"({human_bytes(free)} free, {wanted})",
            f"free space on the disk of {directory} (or move that directory to a larger disk), "
            "then run the same command again: what was there before is intact")


def free_bytes(directory: Path) -> int:
    """Bytes free to this user on the disk of ``directory`` (0 when it cannot be read)."""
    try:
        return shutil.disk_usage(directory).free
    except OSError:
        return 0


def human_bytes(size: int | None) -> str:
    """``1.5 MiB``-style size (``?`` for None)."""
    if size is None:
        return "?"
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"  # unreachable; for the type checker


def is_disk_full(error: BaseException) -> bool:
    """Whether ``error`` is an ``OSError`` saying the disk or quota is full."""
    return isinstance(error, OSError) and error.errno in FULL


def fsync_path(path: Path) -> None:
    """Persist a file's bytes, or a directory's entries, to disk (through a read-only fd)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(directory: Path) -> None:
    """Persist a directory entry change (a rename or a new file) to disk."""
    fsync_path(directory)


def _host_tag() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def temp_path(path: Path) -> Path:
    """This writer's own temp file for ``path`` (host, pid and a random token in its name)."""
    return path.with_name(f"{path.name}.{_host_tag()}-{os.getpid()}-{secrets.token_hex(4)}.tmp")


def remove_stale_temps(path: Path) -> list[Path]:
    """Remove the temp files of ``path`` whose writer is gone; return them.

    Gone: a pid of this host that is not alive, or (another host's, or the single
    ``<name>.tmp`` of older versions) a file untouched for ``FOREIGN_TEMP_AGE_S``.
    """
    removed = []
    for candidate in path.parent.glob(f"{glob_escape(path.name)}.*tmp"):
        if _writer_gone(candidate, path.name):
            candidate.unlink(missing_ok=True)
            removed.append(candidate)
    return removed


def glob_escape(name: str) -> str:
    """``name`` with glob's special characters matched literally."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def _writer_gone(candidate: Path, name: str) -> bool:
    suffix = candidate.name[len(name):]
    match = _TEMP.fullmatch(suffix)
    if match is None and suffix != ".tmp":
        return False  # not one of ours (another file whose name starts the same)
    if match and match["host"] == _host_tag():
        return not pid_alive(int(match["pid"]))
    try:
        return time.time() - candidate.stat().st_mtime > FOREIGN_TEMP_AGE_S
    except OSError:
        return False


@contextmanager
def atomic_open(path: str | Path, mode: str = "wb", size_hint: int | None = None) -> Iterator[IO]:
    """Open a temp file of this writer's own for writing; on clean exit make it ``path``
    durably, and remove the temp files that killed writers of ``path`` left.

    On an exception the temp file is removed and ``path`` is untouched; a full disk raises
    ``DiskFull`` (``size_hint``: the bytes the caller meant to write, for its message).
    """
    path = Path(path)
    tmp = temp_path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, mode) as handle:
            try:
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
            except BaseException:
                handle.close()
                tmp.unlink(missing_ok=True)
                raise
        os.replace(tmp, path)
        fsync_dir(path.parent)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        if is_disk_full(error):
            raise DiskFull(path, size_hint) from None
        raise
    remove_stale_temps(path)


def write_bytes(path: str | Path, data: bytes) -> None:
    """Atomically replace ``path`` with ``data``."""
    with atomic_open(path, "wb", size_hint=len(data)) as handle:
        handle.write(data)


def write_text(path: str | Path, text: str) -> None:
    """Atomically replace ``path`` with UTF-8 ``text``."""
    write_bytes(path, text.encode("utf-8"))


def write_json(path: str | Path, obj: object) -> None:
    """Atomically write ``obj`` as indented, key-sorted JSON with a trailing newline."""
    write_text(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


def read_json(path: str | Path) -> dict | None:
    """A JSON file's content, or None when it is missing or torn."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


@contextmanager
def exclusive(path: str | Path) -> Iterator[bool]:
    """Hold an exclusive ``flock`` on ``path`` for the block; yields False when another process
    holds it (one detached helper per project root: the watchdog, the host-side mirror)."""
    with open(path, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
