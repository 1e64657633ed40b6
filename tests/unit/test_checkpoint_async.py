"""Background checkpoint saves: snapshot isolation, the same bytes as a synchronous save, one
save in flight, errors surfacing in the caller, reused (and, on CUDA, pinned) host buffers."""

from __future__ import annotations

import threading
from collections import OrderedDict

import pytest
import torch
from test_checkpoint import assert_same, full_training_state, small_state

from rgt.train import checkpoint, checkpoint_async, snapshot
from rgt.train.checkpoint import CheckpointStore, CheckpointWarning
from rgt.train.snapshot import HostSnapshot


def test_a_background_save_writes_the_bytes_a_synchronous_one_does(tmp_path):
    state = full_training_state()
    synchronous = CheckpointStore(tmp_path / "sync").save(17, state)
    with CheckpointStore(tmp_path / "async") as store:
        pending = store.save_async(17, state)
    info = pending.result()
    assert (info.sha256, info.bytes) == (synchronous.sha256, synchronous.bytes)
    loaded, _ = CheckpointStore(tmp_path / "async").load_latest()
    assert_same(loaded, state)
    assert 0 < pending.blocked_seconds == info.blocked_seconds and info.seconds > 0


def test_the_state_is_the_one_at_the_call_whatever_training_does_next(tmp_path):
    state = {"weights": torch.arange(6.0), "history": [{"step": 1}], "step": 1}
    expected = {"weights": torch.arange(6.0), "history": [{"step": 1}], "step": 1}
    with CheckpointStore(tmp_path) as store:
        store.save_async(1, state)
        state["weights"].mul_(0).add_(99)  # the optimizer's in-place update
        state["history"][0]["step"] = 2
        state["history"].append({"step": 3})
    loaded, _ = CheckpointStore(tmp_path).load_latest()
    assert_same(loaded, expected)


class _Gate:
    """Holds the store's writer inside its write until released."""

    def __init__(self, monkeypatch, store: CheckpointStore):
        self.entered, self.release = threading.Event(), threading.Event()
        real = store._save_now

        def held(step, state):
            self.entered.set()
            assert self.release.wait(30)
            return real(step, state)

        monkeypatch.setattr(store, "_save_now", held)


def test_one_save_in_flight_a_new_one_waits_and_the_wait_is_blocking_cost(tmp_path,
                                                                           monkeypatch):
    store = CheckpointStore(tmp_path)
    gate = _Gate(monkeypatch, store)
    first = store.save_async(1, small_state(1))
    assert gate.entered.wait(30) and not first.done()
    threading.Timer(0.3, gate.release.set).start()
    second = store.save_async(2, small_state(2))  # waits for the first to land
    assert first.done() and first.result().step == 1
    assert second.blocked_seconds >= 0.25 > first.blocked_seconds
    assert store.wait().step == 2 and store.wait() is None
    assert [info.step for info in store.complete()] == [2, 1]
    store.close()


def test_a_synchronous_save_lands_after_the_one_in_flight(tmp_path, monkeypatch):
    store = CheckpointStore(tmp_path)
    gate = _Gate(monkeypatch, store)
    store.save_async(1, small_state(1))
    assert gate.entered.wait(30)
    threading.Timer(0.2, gate.release.set).start()
    info = store.save(2, small_state(2))
    assert info.seconds == info.blocked_seconds >= 0.15
    assert [i.step for i in store.complete()] == [2, 1]


def test_a_failed_background_write_is_raised_in_the_caller_once(tmp_path, monkeypatch):
    store = CheckpointStore(tmp_path)

    def full_disk(path, state, pool):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(checkpoint, "write_state", full_disk)
    store.save_async(1, small_state(1))  # returns: the failure happens in the writer
    with pytest.raises(OSError, match="No space left"):
        store.save_async(2, small_state(2))
    monkeypatch.undo()
    store.save_async(3, small_state(3))
    store.close()
    assert [info.step for info in store.complete()] == [3]


def test_leaving_the_store_after_an_error_still_lands_the_save_in_flight(tmp_path):
    with pytest.raises(RuntimeError, match="training broke"), CheckpointStore(tmp_path) as store:
        store.save_async(4, small_state(4))
        raise RuntimeError("training broke")
    assert [info.step for info in CheckpointStore(tmp_path).complete()] == [4]


def test_without_room_for_a_snapshot_it_saves_synchronously(tmp_path, monkeypatch):
    monkeypatch.setattr(snapshot, "host_memory_available", lambda: 1024)
    store = CheckpointStore(tmp_path)
    with pytest.warns(CheckpointWarning, match="no room for a host-memory snapshot"):
        pending = store.save_async(1, {"weights": torch.zeros(4096)})
    assert pending.done() and pending.blocked_seconds == pending.result().seconds > 0
    assert checkpoint_async.HOST_MEMORY_SHARE * 1024 < 4096 * 4


def test_snapshot_buffers_are_reused_and_follow_the_state(tmp_path):
    snapshots = HostSnapshot()
    state = {"model": OrderedDict(w=torch.ones(3, 4), b=torch.zeros(4)), "step": 1}
    state["model"]._metadata = {"": {"version": 1}}
    first = snapshots.take(state).state
    second = snapshots.take(state).state
    assert second["model"]["w"].data_ptr() == first["model"]["w"].data_ptr()
    assert type(second["model"]) is OrderedDict and second["model"]._metadata == {
        "": {"version": 1}}
    assert snapshots.reserved_bytes == 16 * 4
    state["model"]["w"] = torch.ones(5)  # a reshaped parameter: a new buffer, the old dropped
    third = snapshots.take(state).state
    assert third["model"]["w"].shape == (5,) and snapshots.reserved_bytes == 9 * 4


def test_a_tensor_that_appears_twice_stays_one_tensor():
    shared = torch.arange(3.0)
    copied = HostSnapshot().take({"a": shared, "b": [shared, (shared, 2)]}).state
    assert copied["a"] is copied["b"][0] is copied["b"][1][0]
    assert copied["a"] is not shared and torch.equal(copied["a"], shared)


@pytest.mark.gpu
def test_cuda_tensors_are_copied_into_pinned_buffers_without_blocking(tmp_path):
    weights = torch.arange(1 << 20, dtype=torch.float32, device="cuda")
    taken = HostSnapshot().take({"w": weights})
    weights.add_(1.0)  # queued after the copy on the same stream: the copy sees the old value
    taken.wait_copied()
    assert taken.state["w"].is_pinned() and taken.state["w"].device.type == "cpu"
    assert torch.equal(taken.state["w"], torch.arange(1 << 20, dtype=torch.float32))
    with CheckpointStore(tmp_path) as store:
        store.save_async(1, {"w": weights})
        weights.add_(1.0)
    loaded, _ = CheckpointStore(tmp_path).load_latest()
    assert torch.equal(loaded["w"], (weights - 1.0).cpu())
