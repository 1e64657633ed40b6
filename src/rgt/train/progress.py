"""Progress for people: a rich bar on a terminal, one line per epoch in logs."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


def run_logger(run_id: str, log_file: Path) -> logging.Logger:
    """A logger writing to the run's own log file (appended across attempts) and stdout."""
    logger = logging.getLogger(f"rgt.run.{run_id}")
    logger.setLevel(logging.INFO)
    logger.propagate = False
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        handler.close()
    log_file.parent.mkdir(parents=True, exist_ok=True)
    to_file = logging.FileHandler(log_file)
    to_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    to_stdout = logging.StreamHandler(sys.stdout)
    to_stdout.setFormatter(logging.Formatter(f"[{run_id}] %(message)s"))
    logger.addHandler(to_file)
    logger.addHandler(to_stdout)
    return logger


class TrainingProgress:
    """A live bar (steps, loss, speed) when stdout is a terminal; silent otherwise."""

    def __init__(self, label: str, total_steps: int, start_step: int):
        self._bar = None
        if sys.stdout.isatty():
            self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TextColumn("loss {task.fields[loss]}"),
                                 TimeRemainingColumn(), transient=True)
            self._task = self._bar.add_task(label, total=total_steps, completed=start_step,
                                            loss="-")

    def __enter__(self) -> TrainingProgress:
        if self._bar:
            self._bar.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._bar:
            self._bar.stop()

    def update(self, step: int, loss: float | None) -> None:
        """Move the bar to ``step`` (``loss``: the latest one read from the device, if any)."""
        if self._bar:
            self._bar.update(self._task, completed=step,
                             loss="-" if loss is None else f"{loss:.4f}")
