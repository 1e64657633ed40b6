"""Mirroring one run's checkpoints off a real loopback host, and seeding a host from a mirror:
only complete checkpoints arrive, an interrupted mirror leaves the previous one intact."""

from __future__ import annotations

import sys

import pytest
import torch

from faults import DropAfter
from rgt.base.errors import RgtError
from rgt.mirror.record import MirrorRecord, read_mirror
from rgt.mirror.sync import MirrorPlan, MirrorTarget, mirror_once, seed_host
from rgt.remote.ssh import RemoteHost
from rgt.train.checkpoint import CheckpointStore

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
PYTHON = sys.executable


def state(size: int, seed: int) -> dict:
    return {"weights": torch.randn(size, generator=torch.Generator().manual_seed(seed))}


@pytest.fixture
def target(remote_dir, tmp_path) -> MirrorTarget:
    return MirrorTarget("run-a", str(remote_dir / "run-a"), tmp_path / "mirror" / "run-a")


def test_mirror_takes_only_complete_checkpoints(remote_host, target):
    remote = CheckpointStore(target.remote_dir)
    remote.save(10, state(1000, 1))
    (remote.directory / "step-000000020.pt").write_bytes(b"a save still being written")
    (remote.directory / "heartbeat.json").write_text('{"step": 23, "total_steps": 90}')
    record = mirror_once(remote_host, PYTHON, target, interval_seconds=60)
    assert (record.step, record.remote_step, record.total_steps) == (10, 23, 90)
    assert read_mirror(target.local_dir) == record
    assert not (target.local_dir / "step-000000020.pt").exists()
    assert (target.local_dir / "heartbeat.json").is_file()
    loaded, info = CheckpointStore(target.local_dir).load_latest()
    assert info.step == 10 and torch.equal(loaded["weights"], state(1000, 1)["weights"])


def test_a_newer_checkpoint_replaces_the_mirror_and_old_ones_are_pruned(remote_host, target):
    remote = CheckpointStore(target.remote_dir, keep=5)
    for step in (1, 2, 3):
        remote.save(step, state(100, step))
        mirror_once(remote_host, PYTHON, target, interval_seconds=60)
    steps = [info.step for info in CheckpointStore(target.local_dir).complete()]
    assert steps == [3, 2] and read_mirror(target.local_dir).step == 3
    again = mirror_once(remote_host, PYTHON, target, interval_seconds=60)
    assert again.step == 3 and again.bytes_sent == read_mirror(target.local_dir).bytes_sent


def test_every_record_written_states_the_plan_and_its_bound(remote_host, target, monkeypatch):
    """`rgt watch` and the lag drill read MIRROR.json at any moment: no write may lack the
    interval and the checkpoint interval planned with it."""
    written = []
    write = MirrorRecord.write
    monkeypatch.setattr(MirrorRecord, "write",
                        lambda record, state_dir: (written.append(record),
                                                   write(record, state_dir)))
    CheckpointStore(target.remote_dir).save(4, state(100, 4))
    mirror_once(remote_host, PYTHON, target, MirrorPlan(30.0, "fixed", ceiling_seconds=300.0))
    assert written and {(each.interval_seconds, each.loss_bound_seconds) for each in written} \
        == {(30.0, 60.0)}


def test_interrupted_mirror_keeps_the_previous_checkpoint_loadable(ssh_spec, target):
    remote = CheckpointStore(target.remote_dir)
    remote.save(1, state(1000, 1))
    with RemoteHost(ssh_spec) as host:
        mirror_once(host, PYTHON, target, interval_seconds=60)
    big = remote.save(2, state(2_000_000, 2))  # 8 MB: the cut lands mid-file
    with DropAfter(ssh_spec, limit=3 << 20) as host, pytest.raises(RgtError):
        mirror_once(host, PYTHON, target, interval_seconds=60)
    assert read_mirror(target.local_dir).step == 1
    assert (target.local_dir / (big.path.name + ".part")).is_file()
    loaded, info = CheckpointStore(target.local_dir).load_latest()
    assert info.step == 1 and torch.equal(loaded["weights"], state(1000, 1)["weights"])
    with RemoteHost(ssh_spec) as host:
        record = mirror_once(host, PYTHON, target, interval_seconds=60)
    assert record.step == 2 and 0 < record.bytes_sent < big.bytes  # resumed, not restarted
    assert CheckpointStore(target.local_dir).load_latest()[1].step == 2


def test_seed_pushes_the_mirror_to_a_host_without_the_run(remote_host, target, remote_dir):
    CheckpointStore(target.local_dir).save(7, state(500, 7))
    fresh = MirrorTarget("run-a", str(remote_dir / "elsewhere" / "run-a"), target.local_dir)
    assert seed_host(remote_host, PYTHON, fresh) == 7
    loaded, info = CheckpointStore(fresh.remote_dir).load_latest()
    assert info.step == 7 and torch.equal(loaded["weights"], state(500, 7)["weights"])
    assert seed_host(remote_host, PYTHON, fresh) is None  # the host has it now


def test_seed_skips_a_corrupt_mirror_and_pushes_the_older_good_one(remote_host, target,
                                                                   remote_dir):
    store = CheckpointStore(target.local_dir, keep=3)
    store.save(4, state(500, 4))
    newest = store.save(8, state(500, 8))
    data = bytearray(newest.path.read_bytes())
    data[-10] ^= 0xFF
    newest.path.write_bytes(bytes(data))
    fresh = MirrorTarget("run-a", str(remote_dir / "other" / "run-a"), target.local_dir)
    assert seed_host(remote_host, PYTHON, fresh) == 4
