"""Checkpoints that do not stop training: snapshot at the step boundary, write in the background.

``BackgroundWriter.submit(step, state)`` copies the state into host memory
(``rgt.train.snapshot``) and hands the copy to one writer thread, which runs the store's own
synchronous protocol on it (serialise → fsync → replace → fsync dir → marker → prune), so the
files and their order on disk are exactly those of a synchronous save.

At most one save is in flight, and a new one **waits** for it rather than coalescing with it:

- every save a caller asks for happens, at the step it asked for: the preemption checkpoint
  and the cadence's resume points are never silently dropped;
- one set of snapshot buffers suffices (coalescing would need a second copy of the state in
  host memory, or would drop the newer state);
- the wait is blocking time, and blocking time is what the Young/Daly cadence is fed: a cadence
  that outruns the disk sees its saves get dearer and lengthens its own interval.

A crash while the writer runs leaves the previous complete checkpoint as the newest (the
atomic protocol's guarantee); an error in the writer is raised in the training thread at the
next ``submit`` or ``wait``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace

# The snapshot doubles the state in host memory; above this share of the memory available it
# is not taken (the store saves synchronously instead of risking the host's OOM killer).
HOST_MEMORY_SHARE = 0.5


@dataclass
class PendingSave:
    """A save handed to the background writer.

    ``blocked_seconds``: what the caller waited (the previous save, then the snapshot); the
    write itself is timed in the ``CheckpointInfo`` that ``result()`` returns.
    """

    step: int
    blocked_seconds: float
    _future: Future = field(repr=False)

    def done(self) -> bool:
        """True once the checkpoint is durable (or its write failed)."""
        return self._future.done()

    def result(self):
        """The written checkpoint's ``CheckpointInfo``; raises the writer's error if it failed."""
        return self._future.result()


def completed(step: int, info) -> PendingSave:
    """A ``PendingSave`` for a save that already happened in the caller's thread."""
    future: Future = Future()
    future.set_result(info)
    return PendingSave(step, info.seconds, future)


class BackgroundWriter:
    """One writer thread and the snapshot buffers it writes from."""

    def __init__(self, write: Callable[[int, dict], object]):
        from rgt.train.snapshot import HostSnapshot  # deferred: torch

        self._write = write
        self._snapshots = HostSnapshot()
        self._executor: ThreadPoolExecutor | None = None
        self._pending: PendingSave | None = None

    def has_room(self, state: dict) -> bool:
        """Whether a snapshot of ``state`` fits the host's available memory (see above)."""
        from rgt.train.snapshot import host_memory_available, state_bytes

        needed = state_bytes(state) - self._snapshots.reserved_bytes
        available = host_memory_available()
        return needed <= 0 or available is None or needed <= HOST_MEMORY_SHARE * available

    def submit(self, step: int, state: dict, started: float | None = None) -> PendingSave:
        """Wait for the save in flight, snapshot ``state``, and write it in the background;
        the blocked time counts from ``started`` (``time.perf_counter()``; default: now)."""
        started = time.perf_counter() if started is None else started
        self.wait()
        snapshot = self._snapshots.take(state)
        blocked = time.perf_counter() - started
        future = self._pool().submit(self._run, step, snapshot, blocked)
        self._pending = PendingSave(step, blocked, future)
        return self._pending

    def wait(self):
        """Block until the save in flight is durable; its ``CheckpointInfo`` (None if none).

        The writer's error, if any, is raised here, once.
        """
        pending, self._pending = self._pending, None
        return pending.result() if pending else None

    def close(self) -> None:
        """Wait for the save in flight, then stop the writer thread."""
        try:
            self.wait()
        finally:
            if self._executor is not None:
                self._executor.shutdown(wait=True)
                self._executor = None

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="rgt-checkpoint")
        return self._executor

    def _run(self, step: int, snapshot, blocked: float):
        started = time.perf_counter()
        snapshot.wait_copied()
        info = self._write(step, snapshot.state)
        return replace(info, seconds=time.perf_counter() - started, blocked_seconds=blocked)
