"""The CPU smoke gate: two optimizer steps of a variant before any real training.

It catches import, config, shape and scale bugs in seconds — before a GPU is billed — and says
which check failed.
"""

from __future__ import annotations

import math
import time

import torch

from rgt.errors import RgtError
from rgt.runplan import RunSpec


class SmokeFailure(RgtError):
    """The smoke gate found a broken model, data or config."""


def smoke_test(spec: RunSpec, steps: int = 2) -> dict:
    """Build data and model for ``spec`` on the CPU and run ``steps`` optimizer steps."""
    from rgt.train.run import load_run_data
    from rgt.train.trainer import Trainer

    started = time.perf_counter()
    config = {**spec.config, "train": {**spec.config["train"], "device": "cpu"}}
    try:
        trainer = Trainer(config, *load_run_data(spec), spec.seed)
        losses = [trainer.train_step() for _ in range(min(steps, trainer.total_steps))]
    except RgtError:
        raise
    except Exception as error:
        raise SmokeFailure(f"smoke test of {spec.exp_id}/{spec.variant} crashed: "
                           f"{type(error).__name__}: {error}",
                           "fix the model, dataset or config named above; nothing was trained"
                           ) from error
    _check(spec, trainer, losses)
    return {"schema": "rgt/smoke/v1", "smoke_id": spec.smoke_id, "exp_id": spec.exp_id,
            "variant": spec.variant, "ok": True, "losses": losses,
            "seconds": time.perf_counter() - started}


def _check(spec: RunSpec, trainer, losses: list[float]) -> None:
    label = f"smoke test of {spec.exp_id}/{spec.variant}"
    if not all(math.isfinite(loss) for loss in losses):
        raise SmokeFailure(f"{label}: loss is not finite ({losses})",
                           "lower train.lr or check the data scaling")
    missing = [name for name, param in trainer.model.named_parameters()
               if param.requires_grad and (param.grad is None or not torch.isfinite(
                   param.grad).all())]
    if missing:
        raise SmokeFailure(f"{label}: parameters with no finite gradient: {', '.join(missing)}",
                           "make sure every trainable parameter is used in forward()")
