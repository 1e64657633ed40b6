"""How often to mirror: the interval follows from checkpoint size, link speed and preemption.

    transfer_s = checkpoint_bytes / link_bytes_per_s
    interval_s = max(floor_s, transfer_s, sqrt(2 * mtbf_s * transfer_s))      (Young/Daly)

Mirroring more often than a transfer takes is impossible; the Young/Daly term balances what a
mirror costs (link time, the host's disk and CPU) against the work a host loss destroys, with
the platform's mean time between preemptions (``preemption.mtbf_hours`` in the platform facts,
else the run's ``checkpoint.mtbf_hours``). A host that vanishes without warning loses the work
since the newest mirrored checkpoint: on average half an interval plus half a checkpoint
interval, never more than one mirror interval plus one checkpoint interval (docs/mirror.md).
A fixed ``every_seconds`` overrides the formula.

The checkpoint cadence is planned with it: the trainer is told to checkpoint at least every
``checkpoint_ceiling(interval, mirror_seconds)`` seconds, one interval less the mirror's own
survey-and-copy time (twice the last one, at least a second). Every mirror then finds a
checkpoint at most one interval old, and the stated bound, one mirror interval plus one
checkpoint interval (both the interval), holds with the copy's time counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

DEFAULT_LINK_BYTES_PER_S = 10e6  # 80 Mbit/s until the first mirror has measured the link
FLOOR_SECONDS = 5.0
MIN_MARGIN_SECONDS = 1.0
MIN_CEILING_SECONDS = 1.0


@dataclass(frozen=True)
class MirrorInterval:
    """The interval in force and the terms it came from (shown by ``rgt watch``)."""

    seconds: float
    transfer_seconds: float
    mtbf_hours: float
    link_bytes_per_s: float
    fixed: bool

    def formula(self) -> str:
        """One line a user can check by hand."""
        if self.fixed:
            return f"every {self.seconds:.0f} s (fixed by the profile)"
        return (f"every {self.seconds:.0f} s = max({FLOOR_SECONDS:.0f} s, transfer "
                f"{self.transfer_seconds:.1f} s, sqrt(2 x MTBF {self.mtbf_hours:g} h x "
                f"transfer)); link {self.link_bytes_per_s / 1e6:.1f} MB/s")


def mirror_interval(checkpoint_bytes: int, mtbf_hours: float,
                    link_bytes_per_s: float | None = None,
                    every_seconds: float | None = None) -> MirrorInterval:
    """The mirror interval for a checkpoint of ``checkpoint_bytes`` (see the module formula)."""
    link = link_bytes_per_s if link_bytes_per_s and link_bytes_per_s > 0 else (
        DEFAULT_LINK_BYTES_PER_S)
    transfer = checkpoint_bytes / link
    if every_seconds:
        return MirrorInterval(float(every_seconds), transfer, mtbf_hours, link, fixed=True)
    balanced = math.sqrt(2.0 * mtbf_hours * 3600.0 * transfer)
    return MirrorInterval(max(FLOOR_SECONDS, transfer, balanced), transfer, mtbf_hours, link,
                          fixed=False)


def checkpoint_ceiling(interval_seconds: float, mirror_seconds: float) -> float:
    """The seconds the trainer may go without a checkpoint so that one mirror interval covers
    a save and the copy that follows it (``mirror_seconds``: the last survey and copy)."""
    margin = max(MIN_MARGIN_SECONDS, 2.0 * max(mirror_seconds, 0.0))
    return max(MIN_CEILING_SECONDS, interval_seconds - margin)
