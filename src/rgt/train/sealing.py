"""Sealing a finished run: its immutable files in ``runs/<run-id>/``, ``run.json`` last."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import yaml

from rgt.base import files
from rgt.base.clock import utc_now
from rgt.base.environment import git_state, package_versions
from rgt.base.hashing import state_dict_sha256
from rgt.config import thaw
from rgt.plan.runplan import RunSpec
from rgt.plan.sealed import BUILT_IN_FILES as SEALED_FILES
from rgt.plan.sealed import file_seals, is_sealed
from rgt.train.platform import platform_record
from rgt.train.tensorboard import write_scalars

__all__ = ["SEALED_FILES", "history_csv", "is_sealed", "run_record", "seal_run"]
HISTORY_COLUMNS = ("epoch", "step", "train_loss", "val_loss", "val_accuracy", "lr")


def seal_run(run_dir: Path, spec: RunSpec, trainer, determinism: dict, started: float,
             attempts: int, host_audit: dict | None = None,
             checkpoints: dict | None = None) -> dict:
    """Write the run's files atomically, ``run.json`` last; return the run record."""
    run_dir.mkdir(parents=True, exist_ok=True)
    files.write_text(run_dir / "config.yaml", yaml.safe_dump(spec.config, sort_keys=True))
    files.write_text(run_dir / "train.csv", history_csv(trainer.history))
    write_scalars(run_dir, trainer.history)
    import torch  # here: ``is_sealed`` serves the launcher, which never imports torch

    selected = trainer.selection["model"]
    with files.atomic_open(run_dir / "model.pt") as handle:
        torch.save(selected, handle)
    record = run_record(spec, trainer, determinism, started, attempts, host_audit, checkpoints)
    record["files"] = file_seals(run_dir)
    files.write_json(run_dir / "run.json", record)
    return record


def history_csv(history: list[dict]) -> str:
    """``train.csv``: one row per epoch, floats at full precision."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=HISTORY_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in history:
        writer.writerow({key: repr(value) if isinstance(value, float) else value
                         for key, value in row.items()})
    return buffer.getvalue()


def run_record(spec: RunSpec, trainer, determinism: dict, started: float, attempts: int,
               host_audit: dict | None = None, checkpoints: dict | None = None) -> dict:
    """The ``run.json`` content (schema ``rgt/run/v1``); ``checkpoints``: what saving cost
    the last attempt (``LoopHooks.costs``)."""
    commit, dirty = git_state()
    return {
        "schema": "rgt/run/v1", "run_id": spec.run_id, "exp_id": spec.exp_id,
        "variant": spec.variant, "seed": spec.seed, "baseline_variant": spec.baseline_variant,
        "variant_overrides": thaw(spec.variant_overrides), "config_digest": spec.config_digest,
        "code_sha256": spec.code_sha256, "code_commit": commit, "code_dirty": dirty,
        "data_sha256": spec.data_sha256, "split_sha256": spec.split_sha256,
        "split_sizes": trainer.split_sizes, "world_size": trainer.world.size,
        "per_rank_batch": trainer.per_rank_batch, "effective_batch": trainer.effective_batch,
        "packages": package_versions(), "device": str(trainer.device),
        "platform": platform_record(str(trainer.device)),
        "determinism": determinism, "started_at": utc_now(started), "ended_at": utc_now(),
        "status": "finished", "attempts": attempts, "steps": trainer.step,
        "selected_step": trainer.selection["step"],
        "weights_sha256": state_dict_sha256(trainer.model.state_dict()),
        "selected_weights_sha256": state_dict_sha256(trainer.selection["model"]),
        "host_audit": host_audit, "checkpoints": checkpoints,
    }
