"""The rented-GPU walkthrough's failure paths, as a newcomer meets them through the shipped
profile: a mistyped alias fails at once naming the ssh config read; a host that never answers
is retried with a steady 'still unreachable' line and given up; neither is recorded as used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, write_config
from s3server import free_port

pytestmark = pytest.mark.integration
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
TIMEOUT = 300


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """One variant, one seed; an ssh config with a host whose port nobody listens on."""
    import yaml

    from conftest import TINY

    directory = tmp_path_factory.mktemp("walkthrough")
    for name in ("Snakefile", "rules"):
        subprocess.run(["cp", "-r", str(ROOT / name), str(directory / name)], check=True)
    config = yaml.safe_load(TINY.read_text())
    config["experiments"]["tiny"].update(seeds=[0], variants={"plain": {}})
    write_config(directory, config)
    (directory / "ssh_config").write_text(
        f"Host silent\n  HostName 127.0.0.1\n  Port {free_port()}\n")
    return directory


def snakemake(project: Path, host: str, *extra: str) -> tuple[int, str, float]:
    """`snakemake --profile profiles/ssh --rgt-host HOST` as the README has it; (exit, output,
    seconds)."""
    started = time.monotonic()
    done = subprocess.run(
        ["timeout", "-k", "10", str(TIMEOUT), SNAKEMAKE, "--profile", str(ROOT / "profiles/ssh"),
         "--rgt-host", host, "--rgt-ssh-config", str(project / "ssh_config"),
         "--rgt-remote-root", "/nowhere/rgt", "--seconds-between-status-checks", "1", *extra],
        cwd=project, capture_output=True, text=True, timeout=TIMEOUT + 30,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    return done.returncode, done.stdout + done.stderr, time.monotonic() - started


def seen_hosts(project: Path) -> dict:
    path = project / ".rgt" / "seen-hosts.json"
    return json.loads(path.read_text()) if path.exists() else {}


def test_a_mistyped_alias_fails_at_once_naming_the_ssh_config(project):
    code, output, _ = snakemake(project, "gpubx")
    assert code != 0
    assert f"gpubx is not a Host in {project / 'ssh_config'} (the ssh config read)" in output
    assert "retrying" not in output and "gpubx" not in seen_hosts(project)
    assert "keeps running on" not in output  # nothing started anywhere


def test_a_host_that_never_answers_is_reported_steadily_then_given_up(project):
    code, output, seconds = snakemake(project, "silent", "--rgt-unreachable-timeout", "5")
    assert code != 0, output[-3000:]
    assert "silent unreachable (" in output and "no job started" in output
    assert "still unreachable for" in output
    assert "never reached: giving up" in output and "--rgt-unreachable-timeout 5" in output
    assert seconds < TIMEOUT and "silent" not in seen_hosts(project)
