"""`rgt up` against a real loopback sshd: the audit is read off the host and stored; a plan
whose checkpoints cannot fit is refused with the numbers."""

from __future__ import annotations

import json
import os
import pwd
import sys
from pathlib import Path

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
    recorded = hosts[ALIAS].pop("recorded")
    assert hosts[ALIAS] == {"platform": "ssh", "python": sys.executable,
                            "remote_root": str(host.disk / "rgt"),
                            "ssh_config": str(host.ssh_config)}
    assert recorded["by"] == "rgt up"
    assert f"snakemake --profile ssh --rgt-host {ALIAS}" in result.stderr


def test_up_without_a_root_records_the_login_directory_expanded_on_the_host(host, project):
    result = rgt(["up", ALIAS, "--ssh-config", str(host.ssh_config), "--python",
                  sys.executable], project, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    expected = host.state / "home" / "rgt" / project.name  # the host's login directory
    entry = yaml.safe_load((project / "config" / "hosts.yaml").read_text())["hosts"][ALIAS]
    assert entry["remote_root"] == str(expected) and expected.is_dir()
    assert "from the login directory (the platform's facts name no durable dir)" in result.stderr
    login = Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert not (login / "~").exists() and not (host.state / "home" / "~").exists()
    # The record remembers everything: the next call needs no flag, and changes nothing.
    again = rgt(["up", ALIAS], project, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"{ALIAS} is recorded in config/hosts.yaml as it is" in again.stderr
    watched = rgt(["watch", "--once"], project, timeout=120)  # no --ssh-config either
    assert watched.returncode == 0 and "no runs" in watched.stdout, watched.stdout


def test_up_sizes_nothing_for_a_job_whose_smoke_has_not_run(host, project):
    job = {"defaults": {"job": {"command": "python train.py --seed {seed}",
                                "sources": ["train.py"], "metrics": {"loss": {
                                    "direction": "lower"}}},
                        "checkpoint": {"keep": 2, "mtbf_hours": 6.0, "every_steps": 5,
                                       "heartbeat_seconds": 0.5}},
           "experiments": {"lm": {"baseline": "plain", "seeds": [1],
                                  "variants": {"plain": {}}}}}
    write_config(project, job)
    (project / "train.py").write_text("print('a script of my own')\n")
    result = _up(host, project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "checkpoints not sized: no variant of the plan has a smoke record" in result.stdout
    assert "Traceback" not in result.stderr


def test_up_names_an_interpreter_that_does_not_exist(host, project):
    result = rgt(["up", ALIAS, "--ssh-config", str(host.ssh_config), "--root",
                  str(host.disk / "rgt"), "--python", "/opt/no-such-env/bin/python"],
                 project, timeout=300)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert ("the job interpreter did not run: /opt/no-such-env/bin/python does not exist on "
            "the host") in result.stderr
    assert "rgt up ALIAS --python PATH" in result.stderr
    assert not (project / "config" / "hosts.yaml").exists()  # nothing wrong was recorded


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
