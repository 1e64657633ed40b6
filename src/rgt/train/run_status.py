"""Live run state on the durable disk: ``status.json`` and ``heartbeat.json``.

These are files rather than log lines so that a watcher (local or over SSH) computes a run's
state from facts: the recorded state, the pid, and the heartbeat's age.
"""

from __future__ import annotations

import json
import os
import socket
import time
from contextlib import suppress
from pathlib import Path

from rgt.base.clock import utc_now
from rgt.base.files import DiskFull, read_json, write_json

STATES = ("running", "finished", "failed", "preempted")


class RunStatus:
    """Writes ``status.json`` on every state change and ``heartbeat.json`` periodically."""

    def __init__(self, directory: Path, total_steps: int, heartbeat_seconds: float):
        self.directory = Path(directory)
        self.total_steps = total_steps
        self.heartbeat_seconds = heartbeat_seconds
        self._last_beat = 0.0
        previous = read_json(self.directory / "status.json") or {}
        self.attempts = int(previous.get("attempts", 0)) + 1
        self.started_at = utc_now()

    def set(self, state: str, step: int, exit_code: int | None = None, error: str = "") -> None:
        """Record a state change (an ending one even on a full disk: ``_overwrite``)."""
        document = {
            "state": state, "pid": os.getpid(), "host": socket.gethostname(), "step": step,
            "total_steps": self.total_steps, "attempts": self.attempts,
            "started_at": self.started_at, "updated_at": utc_now(),
            "exit_code": exit_code, "error": error,
        }
        try:
            write_json(self.directory / "status.json", document)
        except DiskFull:
            if state == "running" or not _overwrite(self.directory / "status.json", document):
                raise

    def beat_due(self) -> bool:
        """True when ``heartbeat_seconds`` have passed since the last heartbeat."""
        return time.monotonic() - self._last_beat >= self.heartbeat_seconds

    def beat(self, step: int, loss: float | None, force: bool = False) -> None:
        """Rewrite the heartbeat when ``heartbeat_seconds`` have passed (or when forced).

        A full disk skips the beat: the checkpoint write that meets the same disk is what
        fails the run, with its own message, and the status then says so."""
        now = time.monotonic()
        if not force and now - self._last_beat < self.heartbeat_seconds:
            return
        self._last_beat = now
        with suppress(DiskFull):
            write_json(self.directory / "heartbeat.json", {
                "step": step, "total_steps": self.total_steps, "loss": loss,
                "pid": os.getpid(), "updated_at": utc_now(),
            })


def _overwrite(path: Path, document: dict) -> bool:
    """Rewrite ``path`` in place, in the blocks it holds already: on a disk too full for the
    atomic temp file, a run that ends must still not be left saying ``running``. Torn only if
    killed in these few microseconds; True when written."""
    text = json.dumps(document, indent=2, sort_keys=True) + "\n"
    try:
        with open(path, "r+b") as handle:
            handle.write(text.encode("utf-8"))
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
    except OSError:
        return False
    return True
