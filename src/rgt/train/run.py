"""Train one planned run end to end: resume, train, checkpoint, seal the run directory.

The same code path serves a first launch and every restart: it always loads the newest
complete checkpoint first. Only when training has finished are the run's sealed files written
(``run.json`` last); a sealed run is never rewritten.
"""

from __future__ import annotations

import logging
import os
import sys
import time
import warnings
from contextlib import nullcontext
from pathlib import Path

import torch

from rgt.base.errors import CheckpointError, DataError
from rgt.base.files import write_json
from rgt.data import load_dataset, make_split, split_sha256
from rgt.plan.runplan import RunSpec
from rgt.train.cadence import CADENCE_FILE, Cadence
from rgt.train.checkpoint import CheckpointStore, CheckpointWarning
from rgt.train.determinism import capture_rng, configure, restore_rng
from rgt.train.distributed import SINGLE, World
from rgt.train.preemption import EXIT_PREEMPTED, preemption_flag
from rgt.train.probes import data_starvation, probes_enabled, run_probes
from rgt.train.progress import TrainingProgress, run_logger
from rgt.train.run_status import RunStatus
from rgt.train.sealing import is_sealed, seal_run
from rgt.train.trainer import Trainer

# ``rgt train --sync-checkpoints`` (through the environment, so torch's workers see it too).
SYNC_CHECKPOINTS_ENV = "RGT_SYNC_CHECKPOINTS"


def background_saves() -> bool:
    """Whether checkpoints are written in the background (the default) or synchronously."""
    return os.environ.get(SYNC_CHECKPOINTS_ENV, "") != "1"


def train_run(spec: RunSpec, runs_root: Path, checkpoints_root: Path,
              host_audit: dict | None = None, world: World = SINGLE) -> int:
    """Train (or resume) ``spec`` and seal ``runs_root/<run_id>``; returns the exit code.

    ``host_audit`` (the rented host's phase-0 audit) is sealed into ``run.json``. In a
    multi-process ``world`` (an initialised process group) every rank calls this; rank 0
    alone writes checkpoints, status and the sealed run.

    Exit codes: 0 finished or already sealed, 75 preempted (checkpointed, rerun to resume).
    Failures raise after recording ``failed`` in ``status.json``.
    """
    run_dir, state_dir = runs_root / spec.run_id, checkpoints_root / spec.run_id
    logger = run_logger(spec.run_id, state_dir / "train.log") if world.is_main else (
        _rank_logger(spec.run_id, world.rank))
    if is_sealed(run_dir, spec.run_id):
        logger.info("already sealed in %s: nothing to do", run_dir)
        return 0
    started = time.time()
    determinism = configure(spec.settings.train.threads)
    trainer = Trainer(spec.settings, *load_run_data(spec), spec.seed, world)
    status = RunStatus(state_dir, trainer.total_steps, spec.settings.checkpoint.heartbeat_seconds
                       ) if world.is_main else _OtherRankStatus()
    try:
        finished, checkpoints = _train(spec, trainer, state_dir, status, logger)
    except BaseException as error:
        status.set("failed", trainer.step, 1, f"{type(error).__name__}: {error}")
        raise
    if not finished:
        status.set("preempted", trainer.step, EXIT_PREEMPTED)
        logger.info("preempted at step %d: checkpoint saved; rerun to resume", trainer.step)
        return EXIT_PREEMPTED
    if not world.is_main:
        return 0
    seal_run(run_dir, spec, trainer, determinism, started, status.attempts, host_audit,
             checkpoints)
    status.set("finished", trainer.step, 0)
    logger.info("finished: sealed %s", run_dir)
    return 0


def load_run_data(spec: RunSpec):
    """The dataset and split of a planned run, checked against its pinned hashes."""
    dataset = load_dataset(spec.settings.data)
    if dataset.sha256() != spec.data_sha256:
        raise DataError(f"data of run {spec.run_id} changed since it was planned",
                        "rerun snakemake so the run is planned against the current data")
    split = make_split(dataset, spec.settings.data.split)
    if split_sha256(split) != spec.split_sha256:
        raise DataError(f"split of run {spec.run_id} does not match its pinned hash",
                        "rerun snakemake so the run is planned against the current split")
    return dataset, split


def _train(spec: RunSpec, trainer: Trainer, state_dir: Path, status: RunStatus,
           logger: logging.Logger) -> tuple[bool, dict]:
    """Resume, train, checkpoint; (finished?, the checkpoint costs for the run record).

    Returns only once the last checkpoint is durable: leaving the store's context waits for
    a background save in flight, whether training finished, was preempted or failed.
    """
    checkpoint = spec.settings.checkpoint
    store = CheckpointStore(state_dir, keep=checkpoint.keep)
    cadence = Cadence(checkpoint.mtbf_hours, checkpoint.every_steps, state_dir / CADENCE_FILE)
    resumed = _resume(store, trainer, cadence, spec, logger)
    if not resumed and trainer.world.is_main and probes_enabled():
        _write_probes(trainer, state_dir, logger)
    bar = TrainingProgress(spec.run_id, trainer.total_steps, trainer.step) if (
        trainer.world.is_main) else nullcontext()
    with preemption_flag() as flag, bar as progress, store:
        # published only once SIGTERM checkpoints: a pre-stop hook signals what reads running
        status.set("running", trainer.step)
        hooks = LoopHooks(trainer, store, cadence, status, progress, logger, background_saves())
        if not resumed:
            hooks.save()  # a resume point from the start, and the first measure of save cost
        finished = trainer.run(cadence.due, hooks.save, lambda: bool(flag), hooks.on_step)
        if finished and cadence.last_saved_step != trainer.step:
            hooks.save()
    trainer.batches.close()
    hooks.collect_write()
    if flag:
        logger.info("received %s", flag.signal_name)
    return finished, hooks.costs()


def _write_probes(trainer: Trainer, state_dir: Path, logger: logging.Logger) -> None:
    """The opt-in run-time probes on the first batch of a fresh run (they work on copies)."""
    inputs, labels = trainer.batches.first(trainer.per_rank_batch)
    batches = ((trainer.batches.step(0, step)[0][0][0],)
               for step in range(trainer.steps_per_epoch))
    rng = capture_rng()  # a forward in train mode draws dropout masks: the run must not see it
    results = run_probes(trainer.model, trainer.optimizer, (inputs, labels))
    with torch.no_grad():
        starvation = data_starvation(batches, lambda batch: trainer.model(batch[0]), steps=5)
    restore_rng(rng)
    results[starvation["probe"]] = starvation
    write_json(state_dir / "probes.json", results)
    for name, result in results.items():
        if not result["ok"]:
            logger.warning("probe %s failed: %s", name, result)
    logger.info("probes: %d of %d ok (%s)", sum(r["ok"] for r in results.values()),
                len(results), state_dir / "probes.json")


class LoopHooks:
    """What the training loop does at each step boundary besides training: measure, beat,
    report progress, and save when the cadence says so.

    With ``background`` saves (the default of ``rgt train``) the state is snapshotted at the
    boundary and written while training goes on; the cadence is fed what the loop waited. The
    bytes, the step they belong to and the files on disk are those of a synchronous save, and
    every way out of ``_train`` waits for the write, so resuming and the kill drills behave
    alike; what differs is one extra copy of the state in host memory (the store falls back
    to a synchronous save when that copy would not fit).
    """

    def __init__(self, trainer: Trainer, store: CheckpointStore, cadence: Cadence,
                 status: RunStatus, progress: TrainingProgress | None, logger: logging.Logger,
                 background: bool = True):
        self.trainer, self.store, self.cadence = trainer, store, cadence
        self.status, self.progress, self.logger = status, progress, logger
        self.background = background
        self._pending = None  # the last background save, until its write time is recorded

    def save(self) -> None:
        """Checkpoint the full state and feed the blocking cost to the cadence.

        Every rank calls it (the state gathers every rank's RNG); rank 0 alone writes.
        """
        state = {**self.trainer.state_dict(), "save_seconds": self.cadence.save_seconds}
        blocked = 0.0
        if self.trainer.world.is_main and self.background:
            pending = self.store.save_async(self.trainer.step, state)  # waits for the last
            self.collect_write()
            self._pending, blocked = pending, pending.blocked_seconds
        elif self.trainer.world.is_main:
            blocked = self.store.save(self.trainer.step, state).seconds
            self.cadence.record_write(blocked)
        self.cadence.record_save(self.trainer.step, blocked)

    def collect_write(self) -> None:
        """Record the write time of the last background save once it has landed."""
        if self._pending is not None and self._pending.done():
            self.cadence.record_write(self._pending.result().seconds)
            self._pending = None

    def costs(self) -> dict:
        """What checkpointing cost this attempt, for ``run.json``."""
        return {"mode": "background" if self.background else "synchronous",
                **self.cadence.totals, "cadence_cost_seconds": self.cadence.save_seconds,
                "interval_steps": self.cadence.interval()}

    def on_step(self, step: int, seconds: float) -> None:
        """Record the step time, beat, move the progress bar, log each epoch's end.

        The loss is read from the device (a host sync) only when the heartbeat is due."""
        self.cadence.record_step(seconds)
        if self.status.beat_due():
            self.status.beat(step, self.trainer.read_loss())
        if self.progress:
            self.progress.update(step, self.trainer.last_loss)
        if step % self.trainer.steps_per_epoch == 0 and self.trainer.history:
            self.logger.info("epoch %d/%d step %d/%d %s", self.trainer.epoch,
                             self.trainer.settings.train.epochs, step,
                             self.trainer.total_steps, _epoch_summary(self.trainer.history[-1]))


def _resume(store: CheckpointStore, trainer: Trainer, cadence: Cadence, spec: RunSpec,
            logger: logging.Logger) -> bool:
    """Load the newest complete checkpoint (every rank the one rank 0 chose); True if any."""
    world = trainer.world
    loaded = _load_latest(store, logger) if world.is_main else None
    step = world.broadcast(loaded[1].step if loaded else -1)
    if loaded is None and step >= 0:
        loaded = store.load(step)
    if loaded is None:
        logger.info("starting %s/%s seed %d (%d steps)", spec.exp_id, spec.variant, spec.seed,
                    trainer.total_steps)
        return False
    state, info = loaded
    if state["config_digest"] != spec.config_digest:
        raise CheckpointError(f"{info.path} belongs to another config",
                              f"move {info.path.parent} aside; it is not this run's state")
    trainer.load_state_dict(state)
    cadence.resume(trainer.step, float(state.get("save_seconds", 0.0)))
    logger.info("resumed from %s (step %d/%d)", info.path.name, trainer.step,
                trainer.total_steps)
    return True


def _load_latest(store: CheckpointStore, logger: logging.Logger):
    with warnings.catch_warnings(record=True) as skipped:
        warnings.simplefilter("always", CheckpointWarning)
        loaded = store.load_latest()
    for warning in skipped:
        logger.warning("%s", warning.message)  # into train.log too, not only stderr
    return loaded


class _OtherRankStatus:
    """Ranks other than 0 write no status or heartbeat: one writer per file."""

    attempts = 0

    def set(self, *_args, **_kwargs) -> None:
        """Nothing: rank 0 records the run's state."""

    def beat_due(self) -> bool:
        """Never: rank 0 beats."""
        return False

    def beat(self, *_args, **_kwargs) -> None:
        """Nothing: rank 0 beats."""


def _rank_logger(run_id: str, rank: int) -> logging.Logger:
    """Ranks other than 0 only say what went wrong, on stderr (train.log is rank 0's)."""
    logger = logging.getLogger(f"rgt.run.{run_id}.rank{rank}")
    logger.setLevel(logging.WARNING)
    logger.propagate = False
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(f"[{run_id} rank {rank}] %(message)s"))
        logger.addHandler(handler)
    return logger


def _epoch_summary(row: dict) -> str:
    return (f"train_loss {row['train_loss']:.4f} val_loss {row['val_loss']:.4f} "
            f"val_accuracy {row['val_accuracy']:.4f}")
