"""One writer per run: an exclusive ``flock`` on a lock file in its checkpoint directory.

Two processes training one run (an orphan of an earlier launch and its relaunch, two
``rgt train`` typed by hand, two hosts sharing a volume) interleave checkpoints of different
histories and seal the run twice; the second is refused at start, naming who holds the lock.
``rgt train`` holds ``run.lock`` from its start to the seal, whatever trains (the built-in
trainer, the launcher of a multi-process run, the wrapper of your own command); the plain-loop
API and the adapters hold ``writer.lock`` inside the command. The kernel drops a lock when its
holder dies, however it dies, so a crash never leaves a stale lock behind.

Under Snakemake (``rgt train --attach``) a run held by a live earlier launch — the trainer a
killed Snakemake left running — is followed until its holder ends instead of refused: then the
run is sealed (nothing to do) or resumes from its newest checkpoint, never trained twice at once.
"""

from __future__ import annotations

import fcntl
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rgt.base.clock import utc_now
from rgt.base.errors import CheckpointError

LOCK_NAME = "writer.lock"
RUN_LOCK = "run.lock"
POLL_S = 0.5
NOTE_EVERY_S = 30.0


class RunBusy(CheckpointError):
    """Another live process holds the run's lock."""


@contextmanager
def writer_lock(directory: str | Path, name: str = LOCK_NAME, attach: bool = False,
                note: Callable[[str], None] | None = None) -> Iterator[Path]:
    """Hold ``directory/name`` for the block; ``RunBusy`` naming the holder when it is taken
    (with ``attach``, wait until the holder ends instead, saying so through ``note``)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the whole block
    try:
        _acquire(handle, path, attach, note or _stderr)
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} on {socket.gethostname()} since {utc_now()}\n")
        handle.flush()
        yield path
    finally:
        handle.close()  # closing drops the flock


def _acquire(handle, path: Path, attach: bool, note: Callable[[str], None]) -> None:
    if _try_lock(handle):
        return
    holder = _holder(handle)
    if not attach:
        handle.close()
        raise RunBusy(
            f"{path.parent} is already being written by {holder}: a second writer would mix "
            f"two histories in one checkpoint directory and seal the run twice",
            "stop that process first (it resumes from its newest checkpoint when relaunched), "
            "or wait for it to end (`rgt status` shows it), or give this run another "
            "checkpoint directory") from None
    note(f"{path.parent.name}: already being trained by {holder} (a launch that outlived "
         "the one that started it?): following it until it ends, never training beside it")
    _wait(handle, path, note)


def _wait(handle, path: Path, note: Callable[[str], None]) -> None:
    noted = time.monotonic()
    while not _try_lock(handle):
        time.sleep(POLL_S)
        if time.monotonic() - noted >= NOTE_EVERY_S:
            noted = time.monotonic()
            note(f"{path.parent.name}: still held by {_holder(handle)}")
    note(f"{path.parent.name}: the earlier writer ended; taking over")


def _try_lock(handle) -> bool:
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder(handle) -> str:
    handle.seek(0)
    return handle.read().strip() or "another process"


def _stderr(line: str) -> None:
    print(f"rgt: {line}", file=sys.stderr, flush=True)
