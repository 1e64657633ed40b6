"""CheckpointStore: atomic saves, completion markers, verified loads, safe pruning."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from rgt.base.errors import CheckpointError
from rgt.base.hashing import sha256_file
from rgt.train import checkpoint
from rgt.train.checkpoint import CheckpointStore, CheckpointWarning


def small_state(step: int) -> dict:
    """A tiny state whose tensor values identify the step it was saved at."""
    return {"step": step, "weights": torch.full((64,), float(step))}


def files_on_disk(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()}


def step_names(*steps: int) -> set[str]:
    return {f"step-{s:09d}.{ext}" for s in steps for ext in ("pt", "json")}


def full_training_state() -> dict:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model(torch.randn(4, 8)).sum().backward()
    optimizer.step()
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)
    legacy = np.random.RandomState(7).get_state()
    version, internal, gauss = random.Random(3).getstate()
    return {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "step": 17,
        "epoch": 2,
        "batch_in_epoch": 5,
        "rng": {
            "python": [version, list(internal), gauss],
            "numpy": [legacy[0], legacy[1].tolist(), *legacy[2:]],
            "torch": torch.get_rng_state(),
        },
        "config_digest": "ab" * 32,
        "history": [{"step": 10, "loss": 0.5}],
    }


def assert_same(actual, expected) -> None:
    """Deep equality where tensors must match exactly in dtype, shape and values."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, torch.Tensor) and actual.dtype == expected.dtype
        assert torch.equal(actual, expected)
    elif isinstance(expected, dict):
        assert actual.keys() == expected.keys()
        for key in expected:
            assert_same(actual[key], expected[key])
    elif isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected, strict=True):
            assert_same(a, e)
    else:
        assert actual == expected


def test_full_state_round_trips_with_weights_only(tmp_path):
    state = full_training_state()
    info = CheckpointStore(tmp_path).save(17, state)

    loaded, loaded_info = CheckpointStore(tmp_path).load_latest()
    assert_same(loaded, state)
    assert loaded_info.step == 17 and loaded_info.seconds == 0.0 and info.seconds > 0
    assert (loaded_info.sha256, loaded_info.bytes) == (info.sha256, info.bytes)


def test_marker_describes_the_bytes_on_disk(tmp_path):
    info = CheckpointStore(tmp_path).save(3, small_state(3))

    marker = json.loads(info.marker.read_text())
    assert info.path.name == "step-000000003.pt" and info.marker.name == "step-000000003.json"
    assert marker["schema"] == "rgt/checkpoint/v1" and marker["step"] == 3
    assert marker["file"] == info.path.name
    assert marker["bytes"] == info.bytes == info.path.stat().st_size
    assert marker["sha256"] == info.sha256 == sha256_file(info.path)
    assert marker["created_at"].endswith("Z")
    assert not list(tmp_path.glob("*.tmp"))


def test_save_never_rereads_a_checkpoint(tmp_path, monkeypatch):
    def forbidden(path):
        raise AssertionError(f"save re-read {path}")

    monkeypatch.setattr(checkpoint, "sha256_file", forbidden)
    store = CheckpointStore(tmp_path)
    for step in range(1, 6):
        store.save(step, small_state(step))
    assert [info.step for info in store.complete()] == [5, 4]


def test_keep_two_prunes_to_the_two_newest(tmp_path):
    store = CheckpointStore(tmp_path, keep=2)
    for step in range(1, 6):
        store.save(step, small_state(step))

    assert [info.step for info in store.complete()] == [5, 4]
    assert files_on_disk(tmp_path) == step_names(5, 4)


def test_keep_three_keeps_three(tmp_path):
    store = CheckpointStore(tmp_path, keep=3)
    for step in range(10, 60, 10):
        store.save(step, small_state(step))
    assert files_on_disk(tmp_path) == step_names(50, 40, 30)


@pytest.mark.parametrize("keep", [1, 0, -1])
def test_keep_below_two_is_rejected_with_a_fix(tmp_path, keep):
    with pytest.raises(CheckpointError) as raised:
        CheckpointStore(tmp_path, keep=keep)
    assert raised.value.fix


def test_empty_or_missing_directory_loads_nothing(tmp_path):
    assert CheckpointStore(tmp_path).load_latest() is None
    assert CheckpointStore(tmp_path / "absent").load_latest() is None
    assert CheckpointStore(tmp_path).complete() == []


def flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize(("damage", "reason"), [(flip_a_byte, "sha256"), (truncate, "bytes")])
def test_corrupt_newest_is_skipped_and_kept(tmp_path, damage, reason):
    store = CheckpointStore(tmp_path)
    store.save(1, small_state(1))
    newest = store.save(2, small_state(2))
    damage(newest.path)

    with pytest.warns(CheckpointWarning, match=rf"step-000000002\.pt.*{reason}"):
        state, info = CheckpointStore(tmp_path).load_latest()
    assert info.step == 1 and torch.equal(state["weights"], small_state(1)["weights"])
    assert newest.path.exists() and newest.marker.exists()


def test_file_without_marker_is_skipped_and_kept(tmp_path):
    store = CheckpointStore(tmp_path)
    store.save(1, small_state(1))
    orphan = store.save(2, small_state(2))
    orphan.marker.unlink()

    with pytest.warns(CheckpointWarning, match=r"step-000000002\.pt.*no completion marker"):
        state, info = CheckpointStore(tmp_path).load_latest()
    assert info.step == 1 and state["step"] == 1
    assert orphan.path.exists()
    assert [i.step for i in store.complete()] == [1]


def test_marker_with_wrong_sha_is_skipped(tmp_path):
    store = CheckpointStore(tmp_path)
    store.save(1, small_state(1))
    newest = store.save(2, small_state(2))
    marker = json.loads(newest.marker.read_text())
    newest.marker.write_text(json.dumps({**marker, "sha256": "0" * 64}))

    with pytest.warns(CheckpointWarning, match=r"step-000000002\.pt.*sha256"):
        _, info = CheckpointStore(tmp_path).load_latest()
    assert info.step == 1


def test_unparseable_marker_is_skipped(tmp_path):
    store = CheckpointStore(tmp_path)
    store.save(1, small_state(1))
    store.save(2, small_state(2)).marker.write_text('{"schema": "rgt/checkpoint/v1", "st')

    with pytest.warns(CheckpointWarning, match=r"step-000000002\.pt.*unreadable marker"):
        _, info = CheckpointStore(tmp_path).load_latest()
    assert info.step == 1
    assert [i.step for i in store.complete()] == [1]


def test_nothing_usable_returns_none_with_warnings(tmp_path):
    info = CheckpointStore(tmp_path).save(1, small_state(1))
    flip_a_byte(info.path)
    with pytest.warns(CheckpointWarning):
        assert CheckpointStore(tmp_path).load_latest() is None


def test_pruning_keeps_corrupt_and_incomplete_checkpoints(tmp_path):
    store = CheckpointStore(tmp_path)
    (tmp_path / "step-000000000.pt").write_bytes(b"torn")  # incomplete: no marker
    store.save(1, small_state(1))
    store.save(2, small_state(2))
    flip_a_byte(tmp_path / "step-000000002.pt")

    for step in (3, 4):
        with pytest.warns(CheckpointWarning, match=r"step-000000002\.pt.*kept"):
            store.save(step, small_state(step))

    # 2 is corrupt so it does not count: the two newest good ones are 4 and 3.
    assert files_on_disk(tmp_path) == step_names(4, 3, 2) | {"step-000000000.pt"}


def test_corrupt_checkpoint_does_not_count_towards_keep(tmp_path):
    store = CheckpointStore(tmp_path)
    store.save(1, small_state(1))
    store.save(2, small_state(2))
    flip_a_byte(tmp_path / "step-000000002.pt")

    with pytest.warns(CheckpointWarning):
        store.save(3, small_state(3))
    assert files_on_disk(tmp_path) == step_names(3, 2, 1)


def test_resaving_a_step_replaces_it(tmp_path):
    store = CheckpointStore(tmp_path)
    store.save(5, small_state(1))
    store.save(5, small_state(5))

    state, info = store.load_latest()
    assert info.step == 5 and torch.equal(state["weights"], small_state(5)["weights"])


def test_negative_step_is_rejected(tmp_path):
    with pytest.raises(CheckpointError):
        CheckpointStore(tmp_path).save(-1, small_state(0))


def test_saving_a_step_again_sets_a_corrupt_earlier_save_aside(tmp_path):
    store = CheckpointStore(tmp_path, keep=2)
    store.save(1, {"step": 1})
    info = store.save(2, {"step": 2})
    info.path.write_bytes(info.path.read_bytes()[:-10])  # torn by a crash
    store.save(2, {"step": 2})
    corrupt = tmp_path / "step-000000002.pt.corrupt-1"
    assert corrupt.exists() and (tmp_path / "step-000000002.json.corrupt-1").exists()
    assert store.load_latest()[1].step == 2
