"""Checkpoint cadence from Young/Daly: save every sqrt(2 * MTBF * save_cost) seconds.

Too rare loses work at a failure; too often pays the save cost for nothing. The optimum of the
expected waste is the Young/Daly interval; it is converted to whole steps, rounded down.

The cost is what a save costs *training*: the time the loop was blocked. For a background save
that is the snapshot (and any wait for the save before it), not the write that runs beside
training; the write time is recorded too, for the run record, but does not set the interval.

A run whose checkpoints are mirrored off its host is also told a ceiling in seconds: whoever
mirrors it (the controller, or the host-side mirror) writes ``cadence.json`` in the run's state
directory, and the trainer saves at least that often, so that each mirror finds a checkpoint
newer than the last one and a host lost without warning costs at most one mirror interval plus
one checkpoint interval (docs/mirror.md). The ceiling never makes saving take more than
``MAX_SAVE_SHARE`` of the time.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

from rgt.base.files import write_json

CADENCE_FILE = "cadence.json"
CADENCE_SCHEMA = "rgt/cadence/v1"
MAX_SAVE_SHARE = 0.1  # a ceiling shorter than 10 saves is raised to 10 saves
REREAD_SECONDS = 1.0


def young_daly_seconds(mtbf_seconds: float, save_seconds: float) -> float:
    """The optimal interval between checkpoints, in seconds."""
    return math.sqrt(2.0 * mtbf_seconds * max(save_seconds, 0.0))


def interval_steps(mtbf_seconds: float, save_seconds: float, step_seconds: float) -> int:
    """The Young/Daly interval in steps: rounded down, at least one step."""
    if step_seconds <= 0:
        return 1
    return max(1, math.floor(young_daly_seconds(mtbf_seconds, save_seconds) / step_seconds))


def write_ceiling(state_dir: Path, seconds: float, planned_by: str) -> None:
    """Tell the trainer of ``state_dir`` to checkpoint at least every ``seconds`` (written only
    when it changed, and only into a run directory that exists: the trainer creates it)."""
    path = Path(state_dir) / CADENCE_FILE
    body = {"by": planned_by, "max_seconds": round(seconds, 3), "schema": CADENCE_SCHEMA}
    try:
        if json.loads(path.read_text(encoding="utf-8")) == body:
            return
    except (OSError, ValueError):
        pass
    if Path(state_dir).is_dir():
        write_json(path, body)


def read_ceiling(path: Path) -> float | None:
    """The ceiling in seconds a mirror wrote to ``path`` (None: none, or unreadable)."""
    try:
        body = json.loads(Path(path).read_text(encoding="utf-8"))
        seconds = float(body["max_seconds"]) if body.get("schema") == CADENCE_SCHEMA else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return seconds if seconds is not None and math.isfinite(seconds) and seconds > 0 else None


class Cadence:
    """Decides at each step boundary whether to checkpoint.

    With ``every_steps`` set, saves every that many steps. Otherwise it measures the save cost
    and the mean step time as training goes and applies Young/Daly. With ``ceiling_file``, it
    also saves once the seconds since the last save reach the ceiling written there.
    """

    def __init__(self, mtbf_hours: float, every_steps: int | None = None,
                 ceiling_file: Path | None = None):
        self.mtbf_seconds = mtbf_hours * 3600.0
        self.every_steps = every_steps
        self.save_seconds = 0.0
        self.step_seconds = 0.0
        self.last_saved_step = 0
        self.totals = {"saves": 0, "blocked_seconds": 0.0, "max_blocked_seconds": 0.0,
                       "written": 0, "write_seconds": 0.0}
        self.ceiling_file = ceiling_file
        self._ceiling: float | None = None
        self._ceiling_read_at = -math.inf
        self._last_saved_at = time.monotonic()

    def record_save(self, step: int, seconds: float) -> None:
        """Note a save's step and blocking cost (the most expensive recent save is kept: be
        safe)."""
        self.last_saved_step = step
        self.save_seconds = max(seconds, 0.5 * self.save_seconds)
        self.totals["saves"] += 1
        self.totals["blocked_seconds"] += seconds
        self.totals["max_blocked_seconds"] = max(self.totals["max_blocked_seconds"], seconds)
        self._last_saved_at = time.monotonic()

    def resume(self, step: int, save_seconds: float) -> None:
        """Continue from a checkpoint of ``step`` whose run had measured ``save_seconds``."""
        self.last_saved_step = step
        self.save_seconds = save_seconds

    def record_write(self, seconds: float) -> None:
        """Note how long a save's write took (beside training, for a background save)."""
        self.totals["written"] += 1
        self.totals["write_seconds"] += seconds

    def record_step(self, seconds: float) -> None:
        """Update the running mean step time (exponential, weight 0.1)."""
        if self.step_seconds == 0.0:
            self.step_seconds = seconds
        else:
            self.step_seconds += 0.1 * (seconds - self.step_seconds)

    def interval(self) -> int:
        """The current interval in steps."""
        if self.every_steps:
            return self.every_steps
        return interval_steps(self.mtbf_seconds, self.save_seconds, self.step_seconds)

    def ceiling_seconds(self) -> float | None:
        """The mirror's ceiling in force (re-read at most every second), raised so that saving
        never takes more than ``MAX_SAVE_SHARE`` of the time; None without one."""
        now = time.monotonic()
        if self.ceiling_file is not None and now - self._ceiling_read_at >= REREAD_SECONDS:
            self._ceiling, self._ceiling_read_at = read_ceiling(self.ceiling_file), now
        if self._ceiling is None:
            return None
        return max(self._ceiling, self.save_seconds / MAX_SAVE_SHARE)

    def due(self, step: int) -> bool:
        """True when a checkpoint is due at this step boundary: by the interval in steps, or
        when waiting one more step and saving would end past the ceiling."""
        if step - self.last_saved_step >= self.interval():
            return True
        ceiling = self.ceiling_seconds()
        if ceiling is None or step <= self.last_saved_step:
            return False
        elapsed = time.monotonic() - self._last_saved_at
        return elapsed + self.step_seconds + self.save_seconds >= ceiling
