"""The trainer's state is complete: stop anywhere, reload, continue, get identical results."""

from __future__ import annotations

import io

import pytest
import torch

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


def test_a_diverging_loss_stops_training_before_it_touches_the_weights(tiny_config):
    from rgt.base.errors import TrainingDiverged

    tiny_config["defaults"]["train"].update(lr=1e12, optimizer="sgd")
    configure(1)
    trainer = _trainer(plan_runs(load_config(tiny_config))[0])
    while not trainer.finished:
        before, step = state_dict_sha256(trainer.model.state_dict()), trainer.step
        try:
            trainer.train_step()
        except TrainingDiverged as error:
            assert f"at step {step + 1}" in error.message and error.fix
            assert "loss = nan" in error.message or "loss = inf" in error.message
            break
    else:
        pytest.fail("lr=1e12 should diverge")
    assert trainer.step == step
    assert state_dict_sha256(trainer.model.state_dict()) == before
