"""The plain-loop API carries objects with a ``state_dict`` by name (``save(step, model=…)``,
``resume(model=…)``) and gives each run a directory for the script's own files, in process."""

from __future__ import annotations

import pytest
import torch

import rgt
from rgt.base.errors import CheckpointError


@pytest.fixture
def by_hand(tmp_path, monkeypatch):
    """A script run by hand in ``tmp_path``: none of a training job's variables set."""
    monkeypatch.chdir(tmp_path)
    for name in ("RGT_RUN_ID", "RGT_RUN_DIR", "RGT_CHECKPOINT_DIR", "RGT_OUT_DIR",
                 "RGT_EVERY_STEPS", "RGT_SMOKE_STEPS", "RGT_RUN_RECORD", "RGT_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def model_and_optimizer(seed: int):
    torch.manual_seed(seed)
    model = torch.nn.Linear(3, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    model(torch.ones(1, 3)).sum().backward()
    optimizer.step()
    return model, optimizer


def test_objects_saved_by_name_come_back_into_the_objects_given_by_name(by_hand):
    model, optimizer = model_and_optimizer(0)
    with rgt.run(run_id="o") as run:
        run.save(5, {"epoch": 2}, model=model, optimizer=optimizer)
    fresh, fresh_optimizer = model_and_optimizer(1)
    with rgt.run(run_id="o") as run:
        state = run.resume(model=fresh, optimizer=fresh_optimizer)
        assert run.step == 5 and state["epoch"] == 2
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(),
                                                 fresh.state_dict().values(), strict=True))
    assert fresh_optimizer.state_dict()["state"][0]["step"] == 1


def test_an_object_the_checkpoint_does_not_hold_is_named_with_what_it_holds(by_hand):
    model, optimizer = model_and_optimizer(0)
    with rgt.run(run_id="m") as run:
        run.save(1, model=model)
    with rgt.run(run_id="m") as run, pytest.raises(CheckpointError) as caught:
        run.resume(model=model, optimizer=optimizer)
    assert "holds no 'optimizer' (it holds 'model')" in caught.value.message
    assert "run.save(step, optimizer=optimizer)" in caught.value.fix


def test_the_scripts_own_files_go_to_a_directory_of_the_run(by_hand, monkeypatch):
    with rgt.run(run_id="a") as run:
        assert run.out_dir.resolve() == (by_hand / "checkpoints" / "a" / "out").resolve()
        assert run.out_dir.is_dir()
    monkeypatch.setenv("RGT_OUT_DIR", str(by_hand / "job-out"))
    with rgt.run(run_id="b") as run:
        assert run.out_dir == by_hand / "job-out" and run.out_dir.is_dir()
