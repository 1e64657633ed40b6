"""The mirror loop: a background thread of the controller that mirrors each active run when due.

It holds its own SSH connection, so a long checkpoint transfer never delays the executor's
status polls, and a failed mirror only logs: the next one resumes the ``.part`` file.

The schedule is fixed-rate: each run's next check is due one interval after the previous one
*started*, so the interval stated in ``MIRROR.json`` is the interval kept. A check that takes
longer than the interval (a slow link) starts the next one at once, and ``MIRROR.json`` says so.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from rgt.base.clock import utc_now_ms
from rgt.base.errors import RgtError
from rgt.mirror.policy import MirrorInterval, checkpoint_ceiling, mirror_interval
from rgt.mirror.record import MirrorRecord, read_mirror
from rgt.mirror.sync import MirrorPlan, MirrorTarget, mirror_once, stated
from rgt.remote.ssh import RemoteHost

log = logging.getLogger("rgt.mirror")
MAX_WAIT_SECONDS = 1.0


@dataclass
class MirrorSettings:
    """What the profile says: every N seconds (None: the formula) and the platform's MTBF;
    ``plan_cadence``: tell each trainer to checkpoint within the interval."""

    every_seconds: float | None
    mtbf_hours: float
    tick_seconds: float = MAX_WAIT_SECONDS
    plan_cadence: bool = True


@dataclass
class _Schedule:
    """One run's place in the loop: when its next check is due, how long the last one took."""

    due: float = 0.0
    seconds: float = 0.0


@dataclass
class MirrorLoop:
    """Mirrors the targets it is given from one host until stopped."""

    connect: Callable[[], RemoteHost]
    python: str
    settings: MirrorSettings
    report: Callable[[str], None] = log.info
    targets: dict[str, MirrorTarget] = field(default_factory=dict)
    _schedule: dict[str, _Schedule] = field(default_factory=dict)
    _link: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _busy: threading.Lock = field(default_factory=threading.Lock)  # one mirror at a time
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _host: RemoteHost | None = None

    def watch(self, target: MirrorTarget) -> None:
        """Start mirroring ``target`` (its first mirror is due at once)."""
        with self._lock:
            self.targets[target.run_id] = target
            self._schedule.setdefault(target.run_id, _Schedule())
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="rgt-mirror", daemon=True)
            self._thread.start()

    def forget(self, run_id: str) -> None:
        """Stop mirroring a run (it finished and its results are pulled)."""
        with self._lock:
            self.targets.pop(run_id, None)
            self._schedule.pop(run_id, None)

    def last_mirror(self, run_id: str) -> MirrorRecord | None:
        """Stop mirroring a run that has ended, after one last mirror (its final checkpoint);
        the record, or None when it was not mirrored or the last mirror failed (logged)."""
        with self._lock:
            target = self.targets.pop(run_id, None)
            self._schedule.pop(run_id, None)
        if target is None:
            return None
        with self._busy:
            previous = read_mirror(target.local_dir)
            try:
                record = mirror_once(self._connection(), self.python, target,
                                     self.plan(previous))
            except RgtError as error:
                self.report(f"rgt: last mirror of {run_id} failed ({error})")
                return None
        self._note(target, previous, record)
        return record

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

    def plan(self, record: MirrorRecord | None, last_seconds: float = 0.0) -> MirrorPlan:
        """The interval and the checkpoint ceiling for a run whose last mirror is ``record``
        and whose last check took ``last_seconds``."""
        interval = self.interval(record)
        ceiling = checkpoint_ceiling(interval.seconds, last_seconds) if (
            self.settings.plan_cadence) else None
        return MirrorPlan(interval.seconds, interval.formula(), ceiling)

    def _run(self) -> None:
        while not self._stop.wait(self._wait()):
            for target in self._due_targets():
                if self._stop.is_set():
                    return
                self._mirror(target)

    def _wait(self) -> float:
        """Seconds until the next check is due (at most the tick)."""
        with self._lock:
            nearest = min((entry.due for entry in self._schedule.values()), default=None)
        if nearest is None:
            return self.settings.tick_seconds
        return min(self.settings.tick_seconds, max(0.01, nearest - time.monotonic()))

    def _due_targets(self) -> list[MirrorTarget]:
        now = time.monotonic()
        with self._lock:
            return [self.targets[run] for run, entry in self._schedule.items()
                    if entry.due <= now]

    def _mirror(self, target: MirrorTarget) -> None:
        with self._busy:
            self._mirror_now(target)

    def _mirror_now(self, target: MirrorTarget) -> None:
        with self._lock:
            entry = self._schedule.get(target.run_id, _Schedule())
        previous = read_mirror(target.local_dir)
        plan = self.plan(previous, entry.seconds)
        started = time.monotonic()
        try:
            record = mirror_once(self._connection(), self.python, target, plan)
            behind = ""
        except RgtError as error:
            self.report(f"rgt: mirror of {target.run_id} failed ({error}); the previous "
                        "mirror is intact, retrying next interval")
            record, behind = previous, f"the mirror failed at {utc_now_ms()}: {error}"
        else:
            self._note(target, previous, record)
        seconds = time.monotonic() - started
        if seconds > plan.interval_seconds:
            behind = behind or (f"the last mirror took {seconds:.1f} s, longer than its "
                                f"{plan.interval_seconds:.0f} s interval (a slow link)")
        upcoming = self.plan(record, seconds)
        if record is not None:
            # What MIRROR.json states is what the loop does next (the size and the link may
            # have just been learnt); the trainer hears the new ceiling at the next survey.
            replace(record, behind=behind or record.behind, **stated(upcoming)).write(
                target.local_dir)
        self._reschedule(target.run_id, started, seconds, upcoming)

    def _reschedule(self, run_id: str, started: float, seconds: float, plan: MirrorPlan) -> None:
        with self._lock:
            if run_id in self._schedule:
                self._schedule[run_id] = _Schedule(started + plan.interval_seconds, seconds)

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

