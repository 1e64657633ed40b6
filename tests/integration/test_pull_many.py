"""`rgt pull --all --host` and weights-only bundles against the real loopback sshd: every run
not running comes home verified in parallel, a second call transfers nothing; a weights-only
bundle satisfies `rgt down` exactly while the mirror holds the run's newest checkpoint."""

from __future__ import annotations

import shutil

import pytest
import torch
from test_down_ssh import APPROVE, down
from test_pull_ssh import RUN, build_site, plant_run, start_job, stop_job

from rgt.cli import main
from rgt.mirror.record import MirrorRecord
from rgt.pull.closeout import read_verified
from rgt.train.checkpoint import CheckpointStore
from sshd import ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
OTHER, LIVE = "1111222233334444", "9999888877776666"


@pytest.fixture
def site(sshd_server, remote_dir, tmp_path, monkeypatch):
    return build_site(sshd_server, remote_dir, tmp_path, monkeypatch)


def pull_all(site) -> int:
    return main(["pull", "--all", "--host", ALIAS, "--parallel", "2", *site.args()])


def test_pull_all_brings_every_ended_run_home_and_a_second_call_moves_nothing(site, capsys):
    for run_id in (RUN, OTHER, LIVE):
        plant_run(site.root, run_id)
    live = start_job(site.root, LIVE)
    try:
        assert pull_all(site) == 1  # one run is still training: not everything is home
        first = capsys.readouterr()
    finally:
        stop_job(live)
    assert f"{LIVE}: still running: not pulled" in first.out
    assert "1 of 3 runs on rgt-loop did not end verified" in first.err
    for run_id in (RUN, OTHER):
        assert f"{run_id}: verified" in first.out
        assert read_verified(site.export / run_id)["files"] > 0
    assert not (site.export / LIVE).exists()
    (site.root / "jobs" / LIVE / "exit_code").write_text("0\n")  # it has ended since
    assert pull_all(site) == 0, capsys.readouterr().err
    second = capsys.readouterr().out
    assert f"pulling run {LIVE}" in second and f"pulling run {RUN}" not in second
    assert "3 runs on rgt-loop: every one verified" in second


def checkpointed_run(site, run_id: str = RUN) -> CheckpointStore:
    """A finished run on the host whose checkpoints have real markers (as `rgt train` writes)."""
    plant_run(site.root, run_id)
    state = site.root / "checkpoints" / run_id
    for stale in state.glob("step-*"):
        stale.unlink()
    store = CheckpointStore(state)
    for step in (10, 20):
        store.save(step, {"w": torch.full((1000,), float(step))})
    return store


def mirror_of(site, store: CheckpointStore, run_id: str = RUN) -> None:
    """The project's mirror holding the host's newest checkpoint, as the mirror leaves it."""
    newest = store.complete()[0]
    local = site.project / "checkpoints" / run_id
    local.mkdir(parents=True)
    shutil.copy(newest.path, local / newest.path.name)
    shutil.copy(newest.marker, local / newest.marker.name)
    MirrorRecord(run_id, ALIAS, newest.step, 20, newest.path.name, newest.bytes, newest.sha256,
                 "2030-01-01T00:00:00Z", "2030-01-01T00:00:01Z", 0.1, newest.bytes, 60.0
                 ).write(local)


def test_a_weights_only_bundle_satisfies_down_while_the_mirror_holds_the_newest_checkpoint(
        site, capsys):
    store = checkpointed_run(site)
    assert main(["pull", RUN, "--host", ALIAS, "--weights-only", *site.args()]) == 0
    bundle = site.export / RUN
    assert read_verified(bundle)["weights_only"] is True
    assert not list(bundle.glob("checkpoints/*.pt"))  # left on the host...
    assert sorted(p.name for p in bundle.glob("checkpoints/step-*.json")) == [
        "step-000000010.json", "step-000000020.json"]  # ...their markers came
    assert main(["pull", "--verify-only", str(bundle)]) == 0
    capsys.readouterr()
    assert down(site, "--dry-run", "--approve", APPROVE) == 1  # no mirror: refused
    err = capsys.readouterr().err
    assert "is weights-only and its newest checkpoint is not safely mirrored" in err
    assert f"`rgt pull {RUN} --host {ALIAS}` for the full bundle" in err
    mirror_of(site, store)
    assert down(site, "--dry-run", "--approve", APPROVE) == 0, capsys.readouterr().err
    (site.project / "checkpoints" / RUN / "step-000000020.pt").write_bytes(b"torn")
    capsys.readouterr()
    assert down(site, "--dry-run", "--approve", APPROVE) == 1  # the mirrored copy is damaged
    assert "the mirrored step-000000020.pt is gone" in capsys.readouterr().err
