"""`rgt up` against a real loopback sshd: the audit is read off the host and stored; a plan
whose checkpoints cannot fit is refused with the numbers."""

from __future__ import annotations

import json
import sys

import pytest
import yaml

from conftest import ROOT, rgt, write_config
from sshd import ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.ssh]


@pytest.fixture
def host(sshd_server):
    """The session's loopback sshd (tests/conftest.py)."""
    return sshd_server


def _up(host, project, *extra):
    return rgt(["up", ALIAS, "--ssh-config", str(host.ssh_config), "--root",
                str(host.disk / "rgt"), "--python", sys.executable,
                "--platform", "ssh", *extra], project, timeout=300)


@pytest.fixture
def project(tmp_path, tiny_config):
    write_config(tmp_path, tiny_config)
    (tmp_path / "config" / "platforms").symlink_to(ROOT / "config" / "platforms")
    return tmp_path


def test_up_audits_the_host_and_stores_it(host, project):
    result = _up(host, project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "torch 2." in result.stdout and "plan fits" in result.stdout
    record = json.loads((project / ".rgt" / "hosts" / ALIAS / "audit.json").read_text())
    assert record["python"]["executable"] == sys.executable
    assert record["disk"]["free"] > 0 and record["budget"]["fits"] is True
    # The platform gotchas (rgt.platforms.gotchas) are read off the host in the same audit.
    gotchas = {g["check"]: g for g in record["gotchas"]}
    assert set(gotchas) == {"inode-headroom", "cgroup-memory", "shm-size", "threads-cap",
                            "hf-cache-disk"}
    assert all(g["severity"] in ("ok", "warning") for g in gotchas.values()), gotchas
    assert "/dev/shm is" in gotchas["shm-size"]["message"]
    assert "DP15 shm-size" in result.stdout and "U40  threads-cap" in result.stdout
    # Reached once: registered in config/hosts.yaml, with the exact command to run next.
    hosts = yaml.safe_load((project / "config" / "hosts.yaml").read_text())["hosts"]
    assert hosts[ALIAS] == {"platform": "ssh", "python": sys.executable,
                            "remote_root": str(host.disk / "rgt")}
    assert f"snakemake --profile ssh --rgt-host {ALIAS}" in result.stderr


def test_up_refuses_a_plan_that_cannot_fit(host, project, tiny_config):
    tiny_config["defaults"]["model"]["channels"] = 1024  # ~19 M parameters per run
    tiny_config["experiments"]["tiny"]["seeds"] = list(range(1000))
    write_config(project, tiny_config)
    result = _up(host, project, "--json")
    assert result.returncode == 1
    assert "do not fit" in result.stderr and "fix:" in result.stderr
    assert "Traceback" not in result.stderr
    refused = json.loads(result.stdout)["refused"]  # stdout: one JSON document, nothing else
    assert "do not fit" in refused["error"] and refused["fix"]


def test_up_refuses_an_unknown_host_key(host, project, tmp_path):
    config = tmp_path / "ssh_config"
    config.write_text(host.ssh_config.read_text().replace(
        str(host.known_hosts), str(tmp_path / "empty_known_hosts")))
    (tmp_path / "empty_known_hosts").write_text("")
    result = rgt(["up", ALIAS, "--ssh-config", str(config), "--root", str(host.disk / "x"),
                  "--python", sys.executable], project, timeout=120)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "SHA256:" in result.stderr
