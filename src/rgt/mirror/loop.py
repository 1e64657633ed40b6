"""The mirror loop: a background thread of the controller that mirrors each active run when due.

It holds its own SSH connection, so a long checkpoint transfer never delays the executor's
status polls, and a failed mirror only logs: the next one resumes the ``.part`` file.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rgt.base.errors import RgtError
from rgt.mirror.policy import MirrorInterval, mirror_interval
from rgt.mirror.record import MirrorRecord, read_mirror
from rgt.mirror.sync import MirrorTarget, mirror_once
from rgt.remote.ssh import RemoteHost

log = logging.getLogger("rgt.mirror")


@dataclass
class MirrorSettings:
    """What the profile says: every N seconds (None: the formula) and the platform's MTBF."""

    every_seconds: float | None
    mtbf_hours: float
    tick_seconds: float = 1.0


@dataclass
class MirrorLoop:
    """Mirrors the targets it is given from one host until stopped."""

    connect: Callable[[], RemoteHost]
    python: str
    settings: MirrorSettings
    report: Callable[[str], None] = log.info
    targets: dict[str, MirrorTarget] = field(default_factory=dict)
    _due: dict[str, float] = field(default_factory=dict)
    _link: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _host: RemoteHost | None = None

    def watch(self, target: MirrorTarget) -> None:
        """Start mirroring ``target`` (its first mirror is due at once)."""
        with self._lock:
            self.targets[target.run_id] = target
            self._due.setdefault(target.run_id, 0.0)
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="rgt-mirror", daemon=True)
            self._thread.start()

    def forget(self, run_id: str) -> None:
        """Stop mirroring a run (it finished and its results are pulled)."""
        with self._lock:
            self.targets.pop(run_id, None)
            self._due.pop(run_id, None)

    def stop(self) -> None:
        """End the thread after the transfer in progress, and close its connection."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=60)
        if self._host is not None:
            self._host.close()

    def interval(self, record: MirrorRecord | None) -> MirrorInterval:
        """The interval for a run whose last mirror is ``record``."""
        size = record.bytes if record else 0
        return mirror_interval(size, self.settings.mtbf_hours, self._link,
                               self.settings.every_seconds)

    def _run(self) -> None:
        while not self._stop.wait(self.settings.tick_seconds):
            for target in self._due_targets():
                if self._stop.is_set():
                    return
                self._mirror(target)

    def _due_targets(self) -> list[MirrorTarget]:
        now = time.monotonic()
        with self._lock:
            return [self.targets[run] for run, due in self._due.items() if due <= now]

    def _mirror(self, target: MirrorTarget) -> None:
        previous = read_mirror(target.local_dir)
        interval = self.interval(previous)
        try:
            record = mirror_once(self._connection(), self.python, target, interval.seconds,
                                 interval.formula())
        except RgtError as error:
            self.report(f"rgt: mirror of {target.run_id} failed ({error}); the previous "
                        "mirror is intact, retrying next interval")
            record = previous
        else:
            self._note(target, previous, record)
        with self._lock:
            if target.run_id in self._due:
                self._due[target.run_id] = time.monotonic() + self.interval(record).seconds

    def _note(self, target: MirrorTarget, previous: MirrorRecord | None,
              record: MirrorRecord | None) -> None:
        if record is None or (previous and previous.step == record.step):
            return
        if record.transfer_seconds > 0 and record.bytes_sent > 0:
            self._link = record.bytes_sent / record.transfer_seconds
        self.report(f"rgt: mirrored {target.run_id} step {record.step} from {record.host} "
                    f"({record.bytes_sent} bytes, sha256 verified) -> {target.local_dir}")

    def _connection(self) -> RemoteHost:
        if self._host is None:
            self._host = self.connect()
        return self._host
