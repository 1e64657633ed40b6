"""Hugging Face ``transformers.Trainer`` with every guarantee of ``rgt.run``: one callback.

    import rgt
    from rgt.adapters.hf import RgtTrainerCallback

    with rgt.run() as run:
        callback = RgtTrainerCallback(run)
        args = TrainingArguments(output_dir="hf-output", max_steps=500, logging_steps=10,
                                 save_strategy="no", report_to="none")
        trainer = Trainer(model=model, args=args, train_dataset=train, callbacks=[callback])
        trainer.train(resume_from_checkpoint=callback.resume_from_checkpoint)
        run.finish({"loss": {"value": ..., "split": "test", "direction": "lower"}},
                   weights=model.state_dict())

The callback logs every row the Trainer logs (``loss``, ``grad_norm``, ``learning_rate``,
``epoch``, evaluation metrics; not the timings) to the run — heartbeat, ``status.json``,
history — and decides when to checkpoint: when the run's cadence says so or after
SIGTERM/SIGUSR1 (the Trainer's ``save_strategy``/``save_steps`` are overridden). The Trainer
then saves its own checkpoint folder (weights, optimizer, scheduler, RNG states, trainer state)
as it always does; the callback packs the folder's files into one checkpoint of the run's
``CheckpointStore`` (atomic, marker last, newest two kept, corrupt ones skipped), deletes the
folder, and after a preemption signal exits 75. ``resume_from_checkpoint`` unpacks the newest
complete one into ``<checkpoint dir>/hf-resume/`` for the Trainer (None on a first launch).

Exactness. The Trainer resumes mid-epoch exactly by itself: it skips the batches already run
(its sampler orders each epoch by seed and epoch) and restores the RNG states it saved. What it
does not carry across a restart is the running sum behind the logged ``loss`` (the mean since
the last logged step), so checkpoints are taken only at logged steps: with
``logging_strategy="steps"`` when the step is a multiple of ``logging_steps``, with ``"epoch"``
at an epoch's end. That is the trade-off: a checkpoint is at most one logging interval late,
also after a preemption signal, so keep ``logging_steps`` to a few seconds of training (1–50;
the Trainer's default of 500 is too coarse). ``trainer.train()``'s returned ``training_loss``
averages the last launch's steps only: report metrics from ``trainer.evaluate()``.

Costs and limits: a checkpoint is written twice (the Trainer's folder, then the store) and held
in memory once while packed, fine up to a few GB; one process; ``load_best_model_at_end`` and
``save_strategy="best"`` are not supported (the folders are packed away).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import torch

from rgt.adapters import missing_framework, refuse_an_unresumed_launch
from rgt.train.plain_loop import PlainRun

try:
    from transformers import TrainerCallback
except ImportError as missing:
    raise missing_framework("Hugging Face transformers", "hf", missing) from None

__all__ = ["RgtTrainerCallback"]

RESUME_FOLDER = "hf-resume"
# Per-launch figures: they differ between an interrupted and an uninterrupted run by nature.
_TIMINGS = ("_runtime", "_per_second", "total_flos")


class RgtTrainerCallback(TrainerCallback):
    """Log, checkpoint through the run's store, resume and exit 75 after a preemption signal
    (module docstring)."""

    def __init__(self, run: PlainRun):
        self.run = run
        self._looked = False
        self._resume_path: Path | None = None

    @property
    def resume_from_checkpoint(self) -> str | None:
        """The newest complete checkpoint as a folder the Trainer resumes from; None at first."""
        if not self._looked:
            self._looked = True
            shutil.rmtree(self.run.checkpoint_dir / RESUME_FOLDER, ignore_errors=True)
            state = self.run.resume()
            if state is not None:
                folder = self.run.checkpoint_dir / RESUME_FOLDER / f"checkpoint-{self.run.step}"
                unpack_folder(state["files"], folder)
                self._resume_path = folder
        return str(self._resume_path) if self._resume_path else None

    def on_train_begin(self, args, state, control, **kwargs):
        refuse_an_unresumed_launch(self.run, self._looked, "pass resume_from_checkpoint="
                                   "callback.resume_from_checkpoint to trainer.train")
        if not self.run.total_steps and state.max_steps > 0:
            self.run.total_steps = self.run.status.total_steps = state.max_steps

    def on_step_end(self, args, state, control, **kwargs):
        if self._resume_path is not None:  # the Trainer has loaded all of it by now
            shutil.rmtree(self._resume_path.parent, ignore_errors=True)
            self._resume_path = None
        control.should_save = self._due(args, state, at_epoch_end=False)
        return control

    def on_epoch_end(self, args, state, control, **kwargs):
        control.should_save = self._due(args, state, at_epoch_end=True)
        return control

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not logs or "train_runtime" in logs:  # the closing summary of one launch
            return
        scalars = {name: float(value) for name, value in logs.items()
                   if isinstance(value, (int, float)) and not name.endswith(_TIMINGS)}
        if scalars:
            self.run.log(state.global_step, **scalars)

    def on_save(self, args, state, control, **kwargs):
        folder = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        files = pack_folder(folder)
        shutil.rmtree(folder)
        self.run.save(state.global_step, {"files": files})

    def _due(self, args, state, at_epoch_end: bool) -> bool:
        """Whether to checkpoint now: the run's cadence (or a preemption signal), at a step
        whose loss has just been logged (module docstring)."""
        strategy = str(getattr(args.logging_strategy, "value", args.logging_strategy))
        if strategy == "epoch":
            logged = at_epoch_end
        elif strategy == "steps":
            logged = not at_epoch_end and state.global_step % state.logging_steps == 0
        else:
            logged = not at_epoch_end
        return logged and self.run.checkpoint_due(state.global_step)


def pack_folder(folder: Path) -> dict[str, torch.Tensor]:
    """Every file under ``folder`` as bytes (``uint8`` tensors, so the store's
    ``weights_only`` load reads them), keyed by relative path."""
    return {path.relative_to(folder).as_posix():
            torch.frombuffer(bytearray(path.read_bytes()), dtype=torch.uint8)
            for path in sorted(folder.rglob("*")) if path.is_file()}


def unpack_folder(files: dict[str, torch.Tensor], folder: Path) -> None:
    """Write the files ``pack_folder`` packed under ``folder``."""
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.numpy().tobytes())
