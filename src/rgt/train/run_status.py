"""Live run state on the durable disk: ``status.json`` and ``heartbeat.json``.

These are files rather than log lines so that a watcher (local or over SSH) computes a run's
state from facts: the recorded state, the pid, and the heartbeat's age.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

from rgt.base.clock import utc_now
from rgt.base.files import read_json, write_json

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
        """Record a state change."""
        write_json(self.directory / "status.json", {
            "state": state, "pid": os.getpid(), "host": socket.gethostname(), "step": step,
            "total_steps": self.total_steps, "attempts": self.attempts,
            "started_at": self.started_at, "updated_at": utc_now(),
            "exit_code": exit_code, "error": error,
        })

    def beat_due(self) -> bool:
        """True when ``heartbeat_seconds`` have passed since the last heartbeat."""
        return time.monotonic() - self._last_beat >= self.heartbeat_seconds

    def beat(self, step: int, loss: float | None, force: bool = False) -> None:
        """Rewrite the heartbeat when ``heartbeat_seconds`` have passed (or when forced)."""
        now = time.monotonic()
        if not force and now - self._last_beat < self.heartbeat_seconds:
            return
        self._last_beat = now
        write_json(self.directory / "heartbeat.json", {
            "step": step, "total_steps": self.total_steps, "loss": loss,
            "pid": os.getpid(), "updated_at": utc_now(),
        })
