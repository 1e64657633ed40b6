"""One audit: `rgt up` and the executor apply a platform's inode cap by the same rule, to the
mount its platform file names, and both name the cap when it refuses a plan."""

from __future__ import annotations

import subprocess
import sys

import pytest
import test_remote_executor as rx
import yaml

from conftest import ROOT, rgt
from sshd import ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.ssh]


def mount_of(path) -> str:
    return subprocess.run(["df", "-P", str(path)], capture_output=True, text=True,
                          check=True).stdout.splitlines()[-1].split()[-1]


def with_platform(project, name: str, cap_mount: str):
    """A platform like `ssh` whose one-file cap lies on ``cap_mount``."""
    facts = yaml.safe_load((ROOT / "config" / "platforms" / "ssh.yaml").read_text())
    facts.update(name=name, display_name="CappedCloud", inode_cap=1, inode_cap_mount=cap_mount)
    (project / "config" / "platforms" / f"{name}.yaml").write_text(yaml.safe_dump(facts))


def up(sshd_server, project, platform: str):
    return rgt(["up", ALIAS, "--ssh-config", str(sshd_server.ssh_config), "--root",
                str(sshd_server.disk / "audit-root"), "--python", sys.executable,
                "--platform", platform], project, timeout=300)


def test_rgt_up_and_the_executor_apply_the_cap_to_the_mount_it_names(sshd_server, tmp_path,
                                                                      small):
    project = rx.make_project(tmp_path, small)
    disk_mount = mount_of(sshd_server.disk)
    with_platform(project, "capped", disk_mount)
    with_platform(project, "elsewhere", "/capped-network-fs")
    named = f"CappedCloud's inode cap of 1 on {disk_mount}"
    assert up(sshd_server, project, "elsewhere").returncode == 0  # another mount: no cap
    refused = up(sshd_server, project, "capped")  # recorded, though its plan cannot fit
    assert refused.returncode == 1 and named in refused.stderr, refused.stderr
    code, output = rx.snakemake(project, [*rx.remote_args(sshd_server, "ssh", "audit-root"),
                                          "--rgt-platform", "capped"])
    assert code != 0 and named in output, output[-3000:]
    assert not (sshd_server.disk / "audit-root" / "jobs").exists()  # nothing launched
