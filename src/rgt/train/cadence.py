"""Checkpoint cadence from Young/Daly: save every sqrt(2 * MTBF * save_cost) seconds.

Too rare loses work at a failure; too often pays the save cost for nothing. The optimum of the
expected waste is the Young/Daly interval; it is converted to whole steps, rounded down.

The cost is what a save costs *training*: the time the loop was blocked. For a background save
that is the snapshot (and any wait for the save before it), not the write that runs beside
training; the write time is recorded too, for the run record, but does not set the interval.
"""

from __future__ import annotations

import math


def young_daly_seconds(mtbf_seconds: float, save_seconds: float) -> float:
    """The optimal interval between checkpoints, in seconds."""
    return math.sqrt(2.0 * mtbf_seconds * max(save_seconds, 0.0))


def interval_steps(mtbf_seconds: float, save_seconds: float, step_seconds: float) -> int:
    """The Young/Daly interval in steps: rounded down, at least one step."""
    if step_seconds <= 0:
        return 1
    return max(1, math.floor(young_daly_seconds(mtbf_seconds, save_seconds) / step_seconds))


class Cadence:
    """Decides at each step boundary whether to checkpoint.

    With ``every_steps`` set, saves every that many steps. Otherwise it measures the save cost
    and the mean step time as training goes and applies Young/Daly.
    """

    def __init__(self, mtbf_hours: float, every_steps: int | None = None):
        self.mtbf_seconds = mtbf_hours * 3600.0
        self.every_steps = every_steps
        self.save_seconds = 0.0
        self.step_seconds = 0.0
        self.last_saved_step = 0
        self.totals = {"saves": 0, "blocked_seconds": 0.0, "max_blocked_seconds": 0.0,
                       "written": 0, "write_seconds": 0.0}

    def record_save(self, step: int, seconds: float) -> None:
        """Note a save's step and blocking cost (the most expensive recent save is kept: be
        safe)."""
        self.last_saved_step = step
        self.save_seconds = max(seconds, 0.5 * self.save_seconds)
        self.totals["saves"] += 1
        self.totals["blocked_seconds"] += seconds
        self.totals["max_blocked_seconds"] = max(self.totals["max_blocked_seconds"], seconds)

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

    def due(self, step: int) -> bool:
        """True when a checkpoint is due at this step boundary."""
        return step - self.last_saved_step >= self.interval()
