"""The trainer's state is complete: stop anywhere, reload, continue, get identical results."""

from __future__ import annotations

import io
import sys

import pytest
import torch

from rgt.base.errors import TrainingDiverged
from rgt.base.hashing import state_dict_sha256
from rgt.config import load_config
from rgt.data import load_dataset, make_split
from rgt.plan.runplan import plan_runs
from rgt.train.determinism import configure
from rgt.train.trainer import Trainer


@pytest.fixture
def spec(tiny_config):
    configure(1)
    return plan_runs(load_config(tiny_config))[-1]  # a dropout variant: uses the torch RNG


def _trainer(spec) -> Trainer:
    dataset = load_dataset(spec.settings.data)
    return Trainer(spec.settings, dataset, make_split(dataset, spec.settings.data.split),
                   spec.seed)


def _through_disk(state: dict) -> dict:
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)


def _finish(trainer: Trainer) -> Trainer:
    while not trainer.finished:
        trainer.train_step()
    return trainer


@pytest.mark.parametrize("stop_at", [1, 23, 24, 37])  # 24 = exactly one epoch (epoch end)
def test_resume_from_any_step_is_bit_identical(spec, stop_at):
    reference = _finish(_trainer(spec))
    interrupted = _trainer(spec)
    for _ in range(stop_at):
        interrupted.train_step()
    state = _through_disk(interrupted.state_dict())
    torch.manual_seed(12345)  # the restarted process's RNGs start elsewhere
    resumed = _trainer(spec)
    resumed.load_state_dict(state)
    _finish(resumed)
    assert state_dict_sha256(resumed.model.state_dict()) == state_dict_sha256(
        reference.model.state_dict())
    assert resumed.history == reference.history
    assert resumed.selection["step"] == reference.selection["step"]


def test_state_has_every_named_part(spec):
    state = _trainer(spec).state_dict()
    for key in ("model", "optimizer", "scheduler", "step", "epoch", "batch_in_epoch", "rng",
                "config_digest", "history", "selection", "epoch_loss"):
        assert key in state
    assert set(state["rng"]) >= {"python", "numpy", "torch"}


def test_selection_reads_validation_and_history_has_one_row_per_epoch(spec):
    trainer = _finish(_trainer(spec))
    assert [row["epoch"] for row in trainer.history] == [1, 2]
    best = max(trainer.history, key=lambda row: row["val_accuracy"])
    assert trainer.selection["step"] == best["step"]
    assert trainer.selection["value"] == best["val_accuracy"]


def _diverging(tiny_config, loss_read_steps: int) -> Trainer:
    tiny_config["defaults"]["train"].update(lr=1e12, optimizer="sgd")
    configure(1)
    spec = plan_runs(load_config(tiny_config))[0]
    dataset = load_dataset(spec.settings.data)
    return Trainer(spec.settings, dataset, make_split(dataset, spec.settings.data.split),
                   spec.seed, loss_read_steps=loss_read_steps)


def _first_divergence(trainer: Trainer) -> tuple[int, str, TrainingDiverged]:
    """Train until TrainingDiverged; (step and weights digest just before it, the error)."""
    while not trainer.finished:
        before, step = state_dict_sha256(trainer.model.state_dict()), trainer.step
        try:
            trainer.train_step()
        except TrainingDiverged as error:
            return step, before, error
    pytest.fail("lr=1e12 should diverge")


def test_reading_every_step_stops_before_the_bad_step_touches_the_weights(tiny_config):
    trainer = _diverging(tiny_config, loss_read_steps=1)
    step, before, error = _first_divergence(trainer)
    assert f"at step {step + 1} " in error.message and error.fix
    assert "loss = nan" in error.message or "loss = inf" in error.message
    assert trainer.step == step
    assert state_dict_sha256(trainer.model.state_dict()) == before


def test_reading_in_windows_names_the_same_step_and_never_checkpoints_past_it(tiny_config):
    first_bad = _first_divergence(_diverging(tiny_config, loss_read_steps=1))[0] + 1
    trainer = _diverging(tiny_config, loss_read_steps=5)
    for _ in range(first_bad - 1):  # every loss so far is finite: a checkpoint is fine
        trainer.train_step()
    trainer.state_dict()
    trainer.train_step()  # the first non-finite loss, still unread
    with pytest.raises(TrainingDiverged, match=rf"at step {first_bad} "):
        trainer.state_dict()  # a checkpoint reads first: never a state past a non-finite loss
    late = _diverging(tiny_config, loss_read_steps=5)
    _, _, error = _first_divergence(late)
    assert f"at step {first_bad} " in error.message
    assert first_bad <= late.step < first_bad + 5  # reported within one read window


def test_a_step_does_not_read_its_loss_from_the_device(spec, monkeypatch):
    """Any read of a tensor's value by our code is counted (torch's own Adam reads its CPU
    step counter: not a device sync, and not ours)."""
    trainer = _trainer(spec)
    trainer.loss_read_steps = 10
    reads = []

    def counted(name, real):
        def read(self, *args, **kwargs):
            if "/rgt/" in sys._getframe(1).f_code.co_filename:
                reads.append((name, trainer.step))
            return real(self, *args, **kwargs)
        return read

    for name in ("item", "tolist", "__float__", "__bool__", "__int__"):
        monkeypatch.setattr(torch.Tensor, name, counted(name, getattr(torch.Tensor, name)))
    steps = trainer.steps_per_epoch - 1  # inside one epoch: no validation pass
    for _ in range(steps):
        trainer.train_step()
    # One read per 10 steps, taken during the 10th (before it is applied).
    assert steps >= 10 and reads == [("tolist", n - 1) for n in range(10, steps + 1, 10)]
    assert len(trainer.read_losses()) == steps % 10
