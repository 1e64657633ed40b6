"""PyTorch Lightning with every guarantee of ``rgt.run``: one callback and one sampler.

    import lightning.pytorch as pl
    import rgt
    from rgt.adapters.lightning import ResumableSampler, RgtCheckpoint

    with rgt.run() as run:
        loader = DataLoader(train, batch_size=32, sampler=ResumableSampler(train, seed=0))
        trainer = pl.Trainer(max_steps=500, callbacks=[RgtCheckpoint(run, seed=0)])
        trainer.fit(model, loader, ckpt_path="last")   # newest complete checkpoint, if any
        run.finish({"loss": {"value": ..., "split": "test", "direction": "lower"}},
                   weights=model.state_dict())

``RgtCheckpoint`` logs each optimizer step's ``loss`` (and the other scalars ``training_step``
returns) to the run — heartbeat, ``status.json``, history — and, when the run's cadence says so
or after SIGTERM/SIGUSR1, saves Lightning's full checkpoint (model, optimizers, schedulers,
loops, callbacks) through the run's ``CheckpointStore``: atomic, marker last, newest two kept,
corrupt ones skipped. ``ckpt_path="last"`` resolves to the newest complete one (the callback
is Lightning's ``OnExceptionCheckpoint``, which is how ``"last"`` finds it). A checkpoint that
Lightning itself saves elsewhere (your own ``ModelCheckpoint``) is written as before.

Exactness. Lightning restarts a checkpoint taken mid-epoch from a fresh data iterator, and
draws from the global RNG in another order than an uninterrupted run (validation and iterator
set-up between batches), so on its own a resumed run diverges. Two things make it replay
exactly, at every step rather than only at epoch ends (``rgt.adapters.replay``):
``ResumableSampler`` orders each epoch by ``(seed, epoch)`` and starts the resumed epoch after
the batches already run (a loader with its own ``state_dict``, e.g. torchdata's
``StatefulDataLoader``, is restored by Lightning instead), and the callback reseeds the global
RNG before every training batch from ``(seed, epoch, batch)``. The cost: a batch's random draws
are those of its own seed, not of one stream running through the run (no less random), and
randomness inside the dataset (augmentation in ``__getitem__`` or in workers) must come from a
generator seeded by the sample and epoch for a resume to replay it.

Signals. The run's handlers are installed before ``fit``: Lightning then leaves SIGUSR1 alone
(its SLURM auto-requeue handler is only installed when none exists; rgt relaunches a preempted
run itself) and chains its SIGTERM handler with the run's. A signal during a batch checkpoints
at that batch's end and exits 75; when Lightning's own SIGTERM stop comes first (at the end of
a batch, an epoch or a validation batch), the callback checkpoints there and the stop exits 75.

Limits: ``lightning.pytorch`` only (the ``pytorch_lightning`` namespace's Trainer does not take
this callback); one process (under DDP, Lightning swaps in a ``DistributedSampler``); one
optimizer step per logged row (with gradient accumulation, the loss of the step's last batch).
"""

from __future__ import annotations

import contextlib
import math
import re
import warnings
from pathlib import Path
from typing import Any

import torch

from rgt.adapters import missing_framework, refuse_an_unresumed_launch
from rgt.adapters.replay import ResumableSampler
from rgt.base.errors import RgtError
from rgt.train.determinism import seed_step
from rgt.train.plain_loop import PlainRun
from rgt.train.preemption import EXIT_PREEMPTED

try:
    import lightning.pytorch as pl
    from lightning.fabric.plugins import CheckpointIO
    from lightning.pytorch.callbacks import OnExceptionCheckpoint
except ImportError as missing:
    raise missing_framework("PyTorch Lightning", "lightning", missing) from None

__all__ = ["ResumableSampler", "RgtCheckpoint"]

_STORE_FILE = re.compile(r"^step-(\d+)\.pt$")

# A first launch has nothing to resume: ckpt_path="last" then says so as a hint to configure
# ModelCheckpoint, which does not apply here.
warnings.filterwarnings("ignore", message=r'.*ckpt_path="last"\) is set, but there is no last')


class RgtCheckpoint(OnExceptionCheckpoint):
    """Log, checkpoint through the run's store, resume with ``ckpt_path="last"`` and exit 75
    after a preemption signal (module docstring). ``seed`` seeds each batch's random draws."""

    def __init__(self, run: PlainRun, seed: int):
        super().__init__(dirpath=str(run.checkpoint_dir), filename="rgt")
        self.run, self.seed = run, seed
        self._looked = False
        self._resumed: tuple[int, dict] | None = None
        self._newest: Path | None = None
        self._position: dict | None = None
        self._trainer: pl.Trainer | None = None
        self._logged_step: int | None = None

    @property
    def ckpt_path(self) -> str | None:
        """What ``ckpt_path="last"`` loads: the newest complete checkpoint (None at first)."""
        if not self._looked:
            self._looked = True
            state = self.run.resume()
            if state is not None:
                self._resumed = (self.run.step, state)
                self._newest = self._path(self.run.step)
        return str(self._newest) if self._newest else None

    def setup(self, trainer: pl.Trainer, pl_module: pl.LightningModule, stage: str) -> None:
        self._trainer = trainer
        strategy = trainer.strategy
        if not isinstance(strategy.checkpoint_io, _StoreCheckpointIO):
            strategy.checkpoint_io = _StoreCheckpointIO(self, strategy.checkpoint_io)

    def on_train_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        refuse_an_unresumed_launch(self.run, self._looked,
                                   'pass ckpt_path="last" to trainer.fit (it resumes from them)')
        total = trainer.estimated_stepping_batches
        if not self.run.total_steps and math.isfinite(total):
            self.run.total_steps = self.run.status.total_steps = int(total)
        sampler = _replayable_sampler(trainer)
        if sampler is not None and self._position is not None:
            batch_size = trainer.train_dataloader.batch_size or 1
            sampler.resume_at(self._position["epoch"], self._position["batches"] * batch_size)

    def on_train_batch_start(self, trainer: pl.Trainer, pl_module: pl.LightningModule,
                             batch: Any, batch_idx: int) -> None:
        seed_step(self.seed, trainer.current_epoch, batch_idx)

    def on_train_batch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule,
                           outputs: Any, batch: Any, batch_idx: int) -> None:
        step = trainer.global_step
        if step == self._logged_step:  # accumulating gradients: no optimizer step yet
            return
        self._logged_step = step
        self.run.log(step, **_scalars(outputs))
        if self.run.checkpoint_due(step):
            trainer.save_checkpoint(self._path(step), weights_only=False)

    def on_exception(self, trainer: pl.Trainer, pl_module: pl.LightningModule,
                     exception: BaseException) -> None:
        if not (self.run.preempted and isinstance(exception, SystemExit)):
            return  # a crash keeps the last good checkpoint; smoke tests end as they do
        if exception.code == EXIT_PREEMPTED:
            return  # checkpointed at a batch end already
        # Lightning's own SIGTERM stop (SIGTERMException) came before a batch end: checkpoint
        # here, and let the stop end the process with 75, after Lightning's teardown.
        with contextlib.suppress(SystemExit):
            trainer.save_checkpoint(self._path(trainer.global_step), weights_only=False)
        exception.code = EXIT_PREEMPTED

    def teardown(self, trainer: pl.Trainer, pl_module: pl.LightningModule, stage: str) -> None:
        pass  # OnExceptionCheckpoint deletes its file here; the store keeps its checkpoints

    def state_dict(self) -> dict:
        """The data position saved with each checkpoint: the sampler's epoch and the batches
        of it already run."""
        sampler = _replayable_sampler(self._trainer) if self._trainer else None
        if sampler is None:
            return {}
        progress = self._trainer.fit_loop.epoch_loop.batch_progress.current
        return {"epoch": sampler.epoch, "batches": progress.processed}

    def load_state_dict(self, state_dict: dict) -> None:
        self._position = dict(state_dict) or None

    def _path(self, step: int) -> Path:
        return self.run.checkpoint_dir / f"step-{step:09d}.pt"

    def owns(self, path) -> int | None:
        """The step of a path that names one of the store's checkpoints, else None."""
        path = Path(path)
        match = _STORE_FILE.match(path.name)
        return int(match[1]) if match and path.parent == self.run.checkpoint_dir else None

    def save(self, step: int, checkpoint: dict) -> None:
        """Lightning's checkpoint into the store (exits 75 after a preemption signal)."""
        self._newest = self._path(step)
        self.run.save(step, checkpoint)

    def load(self, step: int) -> dict:
        """Lightning's checkpoint of ``step``: the one ``run.resume()`` loaded, or the store's."""
        if self._resumed is not None and self._resumed[0] == step:
            state, self._resumed = self._resumed[1], None
            return state
        return self.run.store.load(step)[0]["user"]


class _StoreCheckpointIO(CheckpointIO):
    """Lightning's checkpoint I/O with the store behind the callback's paths; any other path
    goes to the I/O the strategy had (your own ``ModelCheckpoint``'s files, for one)."""

    def __init__(self, callback: RgtCheckpoint, fallback: CheckpointIO):
        self.callback, self.fallback = callback, fallback

    def save_checkpoint(self, checkpoint: dict[str, Any], path, storage_options=None) -> None:
        step = self.callback.owns(path)
        if step is None:
            return self.fallback.save_checkpoint(checkpoint, path, storage_options)
        return self.callback.save(step, checkpoint)

    def load_checkpoint(self, path, map_location=None, weights_only=None) -> dict[str, Any]:
        step = self.callback.owns(path)
        if step is None:
            return self.fallback.load_checkpoint(path, map_location=map_location,
                                                 weights_only=weights_only)
        return self.callback.load(step)

    def remove_checkpoint(self, path) -> None:
        if self.callback.owns(path) is None:  # the store prunes its own
            self.fallback.remove_checkpoint(path)

    def teardown(self) -> None:
        self.fallback.teardown()


def _replayable_sampler(trainer: pl.Trainer) -> ResumableSampler | None:
    """The train loader's ``ResumableSampler``; None for a loader that restores its own
    position; ``RgtError`` for one a resumed run cannot replay."""
    loader = trainer.train_dataloader
    if loader is None:
        return None
    if hasattr(loader, "state_dict") and hasattr(loader, "load_state_dict"):
        return None
    sampler = getattr(loader, "sampler", None)
    if isinstance(sampler, ResumableSampler):
        return sampler
    order = type(sampler if sampler is not None else loader).__name__
    raise RgtError(
        f"the train DataLoader draws its order with {order}, which a resumed run cannot "
        f"replay (it would train on other batches than an uninterrupted run)",
        "pass sampler=ResumableSampler(dataset, seed=...) (from rgt.adapters.lightning) to the "
        "train DataLoader instead of shuffle=True or your own sampler")


def _scalars(outputs: Any) -> dict[str, float]:
    """The loss and the other scalars ``training_step`` returned."""
    if isinstance(outputs, torch.Tensor):
        outputs = {"loss": outputs}
    if not isinstance(outputs, dict):
        return {}
    return {name: float(value) for name, value in outputs.items()
            if isinstance(value, (int, float)) or (isinstance(value, torch.Tensor)
                                                   and value.numel() == 1)}
