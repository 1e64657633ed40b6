"""Files: crash-safe writes (temp file -> flush -> fsync -> os.replace -> fsync(dir)) and reads.

A reader sees either the old file or the complete new one, never a torn write, even when the
writer is killed with SIGKILL or the machine loses power after ``os.replace`` returns.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


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


@contextmanager
def atomic_open(path: str | Path, mode: str = "wb") -> Iterator[IO]:
    """Open ``<path>.tmp`` for writing; on clean exit make it ``path`` durably.

    On an exception the temp file is removed and ``path`` is untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
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


def write_bytes(path: str | Path, data: bytes) -> None:
    """Atomically replace ``path`` with ``data``."""
    with atomic_open(path, "wb") as handle:
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
