"""`rgt doctor --host` against a real loopback sshd (tests/sshd.py, standing for a rented
machine): the platform gotchas are read off the host over SSH and judged."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import ROOT, rgt
from sshd import ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.ssh]


@pytest.fixture
def host(sshd_server):
    """The session's loopback sshd (tests/conftest.py)."""
    return sshd_server


def _doctor(host, cwd, *extra):
    return rgt(["doctor", "--host", ALIAS, "--ssh-config", str(host.ssh_config), "--root",
                str(host.disk / "rgt"), *extra], cwd, timeout=120)


def _local_shm_bytes() -> int:
    out = subprocess.run(["df", "-PB1", "/dev/shm"], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    return int(out.splitlines()[-1].split()[1])


def test_doctor_host_reads_the_gotchas_off_the_host(host, tmp_path):
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "platforms").symlink_to(ROOT / "config" / "platforms")
    result = _doctor(host, tmp_path, "--json")
    found = json.loads(result.stdout)
    assert [g["check"] for g in found] == ["inode-headroom", "cgroup-memory", "shm-size",
                                           "threads-cap", "hf-cache-disk"], result.stderr
    assert all(g["severity"] in ("ok", "warning") for g in found), found  # all were readable
    warned = any(g["severity"] == "warning" for g in found)
    assert result.returncode == (1 if warned else 0)
    # The loopback host is this machine: the /dev/shm it reports is the real one.
    from rgt.platforms.host_audit import format_bytes
    assert f"/dev/shm is {format_bytes(_local_shm_bytes())}" in found[2]["message"]
    # The session's HOME (tests/sshd.py) has no HF cache: its nearest existing parent is judged.
    assert str(host.state / "home" / ".cache" / "huggingface") in found[4]["message"]


def test_doctor_host_refuses_an_unknown_alias(host, tmp_path):
    result = rgt(["doctor", "--host", "no-such-alias", "--ssh-config", str(host.ssh_config),
                  "--root", str(host.disk / "rgt")], tmp_path, timeout=60)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "no-such-alias" in result.stderr and "fix:" in result.stderr
