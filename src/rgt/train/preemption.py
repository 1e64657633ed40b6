"""SIGTERM / SIGUSR1 handling: the handler only sets a flag; the loop checkpoints at the next
step boundary and exits with ``EXIT_PREEMPTED`` (75, EX_TEMPFAIL: "try again")."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

EXIT_PREEMPTED = 75
SIGNALS = (signal.SIGTERM, signal.SIGUSR1)


class PreemptionFlag:
    """Set when a preemption signal arrives; read at step boundaries."""

    def __init__(self) -> None:
        self.signal_name: str | None = None

    def __bool__(self) -> bool:
        return self.signal_name is not None

    def _handle(self, signum, _frame) -> None:
        # Only record: saving from inside a signal handler could interleave with a save
        # already in progress and tear it.
        self.signal_name = signal.Signals(signum).name


@contextmanager
def preemption_flag() -> Iterator[PreemptionFlag]:
    """Install the handlers for the duration of training, then restore the previous ones."""
    flag = PreemptionFlag()
    previous = {signum: signal.signal(signum, flag._handle) for signum in SIGNALS}
    try:
        yield flag
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
