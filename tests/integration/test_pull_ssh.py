"""`rgt pull` against the real loopback sshd: a run planted with real torch files on the host's
"disk" comes home verified; an interrupted pull resumes with only the missing bytes; running,
absent, symlinked and corrupt runs are refused or quarantined."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

from conftest import ROOT
from faults import DropAfter
from rgt.base.hashing import sha256_file
from rgt.cli import main
from rgt.pull.closeout import partial_dir
from rgt.pull.fetch import build_manifest, fetch_manifest, transfer_bundle
from rgt.remote.ssh import ConnectionLost
from sshd import ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
RUN = "0123456789abcdef"
BIG = 6 << 20  # the checkpoint: streamed on its own, past a 2 MiB drop


class Site:
    """A project on this side and its root on the loopback host."""

    def __init__(self, project: Path, root: Path, sshd_server, stopped: Path):
        self.project, self.root, self.sshd, self.stopped = project, root, sshd_server, stopped
        self.hosts = project / "config" / "hosts.yaml"
        self.export = project / "export"

    def write_hosts(self, **fields) -> None:
        entry = {"platform": "runpod", "remote_root": str(self.root), "python": sys.executable,
                 "stop_command": ["touch", str(self.stopped)], **fields}
        self.hosts.write_text(yaml.safe_dump({"hosts": {ALIAS: entry}}))

    def args(self, *args: str) -> list[str]:
        return [*args, "--hosts", str(self.hosts), "--ssh-config", str(self.sshd.ssh_config),
                "--export", str(self.export)]

    def pull(self, run_id: str = RUN) -> int:
        return main(["pull", run_id, "--host", ALIAS, *self.args()])


def build_site(sshd_server, remote_dir, tmp_path, monkeypatch) -> Site:
    """A project in ``tmp_path`` (the working directory) whose hosts.yaml points the loopback
    alias at ``remote_dir/proj`` on platform runpod, stopped by touching ``tmp_path/stopped``."""
    project = tmp_path / "project"
    shutil.copytree(ROOT / "config" / "platforms", project / "config" / "platforms")
    monkeypatch.chdir(project)
    monkeypatch.setenv("COLUMNS", "400")  # rich tables and lines unwrapped in captured output
    site = Site(project, remote_dir / "proj", sshd_server, tmp_path / "stopped")
    site.write_hosts()
    return site


@pytest.fixture
def site(sshd_server, remote_dir, tmp_path, monkeypatch) -> Site:
    return build_site(sshd_server, remote_dir, tmp_path, monkeypatch)


def plant_run(root: Path, run_id: str = RUN) -> None:
    """A finished run as `rgt train` on the host leaves it, with real torch files."""
    runs, ckpts, job = (root / area / run_id for area in ("runs", "checkpoints", "jobs"))
    for directory in (runs, ckpts, job):
        directory.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    weights = torch.nn.Linear(16, 4).state_dict()
    (runs / "run.json").write_text(json.dumps({"schema": "rgt/run/v1", "run_id": run_id,
                                               "status": "finished"}))
    (runs / "config.yaml").write_text("seed: 0\n")
    (runs / "train.csv").write_text("epoch,step,train_loss\n1,10,0.5\n")
    torch.save(weights, runs / "model.pt")
    state = {"model": weights, "step": 10, "rng": {"torch": torch.get_rng_state()},
             "big": torch.randn(BIG // 4)}
    torch.save(state, ckpts / "step-000000010.pt")
    (ckpts / "step-000000010.json").write_text(json.dumps({"step": 10}))
    (ckpts / "status.json").write_text(json.dumps({"state": "finished"}))
    (ckpts / "train.log").write_text("epoch 1\n")
    (job / "launches").write_text("1\n")
    (job / "exit_code").write_text("0\n")
    (job / "job.log").write_text("done\n")


def start_job(root: Path, run_id: str = RUN) -> subprocess.Popen:
    """A live detached job of ``run_id``: its own process group, the run id in its argv."""
    process = subprocess.Popen(["bash", "-c", f": rgt-job {run_id}; sleep 60; true"],
                               start_new_session=True)
    job = root / "jobs" / run_id
    job.mkdir(parents=True, exist_ok=True)
    (job / "pid").write_text(f"{process.pid}\n")
    (job / "exit_code").unlink(missing_ok=True)
    return process


def stop_job(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


def tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): sha256_file(p)
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_pull_brings_a_run_home_verified_and_a_second_pull_is_a_no_op(site, capsys):
    plant_run(site.root)
    assert site.pull() == 0, capsys.readouterr().err
    bundle = site.export / RUN
    assert "verified" in capsys.readouterr().out
    assert tree(bundle / "run") == tree(site.root / "runs" / RUN)
    assert tree(bundle / "checkpoints") == tree(site.root / "checkpoints" / RUN)
    verified = json.loads((bundle / "PULL_VERIFIED.json").read_text())
    assert verified["run_id"] == RUN and verified["files"] == 11
    assert (site.root / "jobs" / RUN / "PULL_MANIFEST.json").is_file()
    assert main(["pull", "--verify-only", str(bundle), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"ok": True, "problems": []}
    before = tree(bundle)
    assert site.pull() == 0
    assert "already pulled and verified" in capsys.readouterr().out
    assert tree(bundle) == before and not partial_dir(site.export, RUN).exists()


def test_an_interrupted_pull_resumes_sending_only_what_is_missing(site, ssh_spec, capsys):
    plant_run(site.root)
    partial, root = partial_dir(site.export, RUN), str(site.root)
    with DropAfter(ssh_spec, limit=2 << 20) as host, pytest.raises(ConnectionLost):
        manifest = build_manifest(host, sys.executable, root, RUN)
        fetch_manifest(host, root, manifest, partial)
        transfer_bundle(host, root, manifest, partial)
    part = partial / "checkpoints" / "step-000000010.pt.part"
    kept = part.stat().st_size
    assert 0 < kept < BIG
    done = [p for p in (partial / "checkpoints").iterdir() if p.suffix != ".part"]
    assert len(done) == 3  # the small files of the first group came in their tar batch
    already = kept + sum(p.stat().st_size for p in done)
    assert site.pull() == 0
    out = capsys.readouterr().out
    sent, files, skipped = re.search(r"transferred ([\d,]+) bytes \((\d+) files; (\d+) already",
                                     out).groups()
    total = manifest["totals"]["bytes"]
    assert int(sent.replace(",", "")) == total - already < total
    assert (int(files), int(skipped)) == (11 - 3, 3)
    assert main(["pull", "--verify-only", str(site.export / RUN), "--json"]) == 0


def test_pull_refuses_a_run_whose_job_is_still_running(site, capsys):
    plant_run(site.root)
    process = start_job(site.root)
    try:
        assert site.pull() == 1
    finally:
        stop_job(process)
    err = capsys.readouterr().err
    assert f"run {RUN} is still running on {ALIAS}" in err and "fix:" in err
    assert not site.export.exists()


def test_pull_refuses_a_run_the_host_does_not_have(site, capsys):
    assert site.pull("ffffffffffffffff") == 1
    err = capsys.readouterr().err
    assert "has no files" in err and "remote_root" in err and "Traceback" not in err


def test_pull_refuses_a_run_holding_a_symlink_and_names_it(site, capsys, tmp_path):
    plant_run(site.root)
    (tmp_path / "elsewhere").write_text("outside the run")
    (site.root / "runs" / RUN / "notes.txt").symlink_to(tmp_path / "elsewhere")
    assert site.pull() == 1
    assert "run/notes.txt (symlink)" in capsys.readouterr().err
    assert not site.export.exists()


def test_a_corrupt_checkpoint_on_the_host_ends_in_quarantine(site, capsys):
    plant_run(site.root)
    checkpoint = site.root / "checkpoints" / RUN / "step-000000010.pt"
    checkpoint.write_bytes(checkpoint.read_bytes()[:4096])
    assert site.pull() == 1
    captured = capsys.readouterr()
    target = site.project / "quarantine" / f"{RUN}--1"
    assert str(target) in captured.err and "unloadable" in captured.out
    reason = json.loads((target / "REASON.json").read_text())
    assert [(p["path"], p["kind"]) for p in reason["problems"]] == \
        [("checkpoints/step-000000010.pt", "unloadable")]
    assert not (site.export / RUN).exists()
