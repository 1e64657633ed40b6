"""Outlive the instance: a run starts on host A, A vanishes mid-training (sshd stopped, its run
directory deleted), the pipeline is re-run with host B, and the run resumes on B from the
checkpoint mirrored off A, ending bit-identical to an uninterrupted run."""

from __future__ import annotations

import json
import os
import shutil
import signal

import pytest
import test_remote_executor as rx

from conftest import rgt
from rgt.mirror.record import read_mirror
from sshd import start_sshd

pytestmark = [pytest.mark.integration, pytest.mark.ssh]


@pytest.fixture
def two_hosts(tmp_path_factory):
    """Two rented machines: separate sshds, ports and disks; one ssh_config reaching both."""
    a = start_sshd(tmp_path_factory.mktemp("host-a"), alias="box-a")
    b = start_sshd(tmp_path_factory.mktemp("host-b"), alias="box-b")
    config = tmp_path_factory.mktemp("client") / "ssh_config"
    config.write_text(a.ssh_config.read_text() + "\n" + b.ssh_config.read_text())
    yield a, b, config
    a.release()
    b.release()


def host_args(host, ssh_config, root: str) -> list[str]:
    return ["--profile", str(rx.ROOT / "profiles" / "ssh"), "--rgt-host", host.alias,
            "--rgt-ssh-config", str(ssh_config), "--rgt-python", rx.sys.executable,
            "--rgt-remote-root", str(host.disk / root), "--seconds-between-status-checks", "1",
            "--rgt-mirror-every", "1"]


def mirrored_step(project, run_id: str) -> int:
    record = read_mirror(project / "checkpoints" / run_id)
    return record.step if record else -1


def test_host_lost_mid_training_resumes_on_another_host_from_the_mirror(two_hosts, tmp_path,
                                                                        slow):
    a, b, ssh_config = two_hosts
    project = rx.make_project(tmp_path, slow)
    [run_id] = rx.run_ids(project)
    process = rx.snakemake_process(project, host_args(a, ssh_config, "root"))
    rx.wait_for(lambda: mirrored_step(project, run_id) >= 20, "a mirrored checkpoint", process)
    os.killpg(process.pid, signal.SIGKILL)  # the laptop dies with the host
    process.communicate(timeout=60)
    mirrored = read_mirror(project / "checkpoints" / run_id)
    assert mirrored.host == "box-a" and mirrored.remote_step >= mirrored.step
    a.release()  # host A is destroyed: its processes, its sshd and its disk
    shutil.rmtree(a.disk / "root")
    assert rx.snakemake(project, [*host_args(b, ssh_config, "root"), "--unlock"])[0] == 0
    code, output = rx.snakemake(project, host_args(b, ssh_config, "root"))
    assert code == 0, output[-4000:]
    assert f"pushed the mirrored checkpoint of step {mirrored.step}" in output
    log = (b.disk / "root" / "checkpoints" / run_id / "train.log").read_text()
    assert f"resumed from step-{mirrored.step:09d}.pt" in log, log[-2000:]
    reference = tmp_path / "reference"
    reference.mkdir()
    rx.make_project(reference, slow)
    assert rgt(["train", "--run-id", run_id], reference, timeout=300).returncode == 0
    moved = json.loads((project / "runs" / run_id / "run.json").read_text())
    local = json.loads((reference / "runs" / run_id / "run.json").read_text())
    assert moved["weights_sha256"] == local["weights_sha256"]
    assert (project / "runs" / run_id / "train.csv").read_text() == (
        reference / "runs" / run_id / "train.csv").read_text()
