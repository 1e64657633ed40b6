"""One writer per checkpoint directory: an exclusive ``flock`` on ``writer.lock`` inside it.

Two processes training into the same directory (an orphan of an earlier launch and its
relaunch, or two hosts sharing a volume) interleave checkpoints of different histories; the
second one is refused at start with who holds the lock. The kernel drops the lock when its
holder dies, however it dies, so a crash never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rgt.base.clock import utc_now
from rgt.base.errors import CheckpointError

LOCK_NAME = "writer.lock"


@contextmanager
def writer_lock(directory: str | Path) -> Iterator[Path]:
    """Hold the directory's writer lock for the block; ``CheckpointError`` when it is taken."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / LOCK_NAME
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the whole block
    try:
        _acquire(handle, path)
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} on {socket.gethostname()} since {utc_now()}\n")
        handle.flush()
        yield path
    finally:
        handle.close()  # closing drops the flock


def _acquire(handle, path: Path) -> None:
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise CheckpointError(
            f"{path.parent} is already being written by {holder}: a second writer would mix "
            f"two histories in one checkpoint directory",
            "stop that process first (it resumes from its newest checkpoint when relaunched), "
            "or give this run another checkpoint directory") from None
