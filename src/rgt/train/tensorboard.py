"""TensorBoard scalars of a sealed run, next to its ``train.csv``: one event file in the run
directory, so ``tensorboard --logdir runs`` shows every run by id.

Optional (``pip install remote-gpu-trainer[tensorboard]``): without the ``tensorboard`` package
nothing is written and training is unchanged. The values are the history's, exactly.
"""

from __future__ import annotations

import importlib.util
import numbers
from pathlib import Path

AXES = ("step", "epoch")  # the x axis and its companion, never plotted as scalars
EVENTS = "events.out.tfevents.*"


def available() -> bool:
    """Whether the ``tensorboard`` package (which torch's writer needs) is installed."""
    return importlib.util.find_spec("tensorboard") is not None


def write_scalars(run_dir: Path, history: list[dict]) -> Path | None:
    """One scalar per numeric column of each history row, at the row's ``step``; the event
    file, or None when TensorBoard is not installed or the history has no step."""
    if not available() or not history or "step" not in history[0]:
        return None
    from torch.utils.tensorboard import SummaryWriter  # here: the writer imports tensorboard

    for stale in run_dir.glob(EVENTS):  # a sealing cut short before run.json: written again
        stale.unlink()
    writer = SummaryWriter(log_dir=str(run_dir))
    try:
        for row in history:
            for name, value in row.items():
                if name not in AXES and _is_number(value):
                    writer.add_scalar(name, value, global_step=int(row["step"]))
    finally:
        writer.close()
    return next(run_dir.glob(EVENTS))


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)
