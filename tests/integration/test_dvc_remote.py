"""Share results: `dvc push` the sealed runs and the data, then a fresh clone's `dvc pull &&
dvc repro` rebuilds every figure and the evidence with no training job — against the embedded
local remote and against a real local S3 server (tests/s3server.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, TINY
from evidence_helpers import synthetic_project

pytestmark = pytest.mark.integration
BIN = Path(sys.executable).parent
TIMEOUT = 240
DELIVERED = ("evidence/EVIDENCE.json", "evidence/metrics/digits/dropout.json",
             "figures/test_accuracy/figure.png", "figures/test_accuracy/provenance.json")


def run(args: list[str], cwd: Path, env: dict | None = None) -> str:
    """A command with the venv first on PATH (DVC stages call `python -m rgt`); its output."""
    env = {**(env or os.environ), "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["timeout", "-k", "10", str(TIMEOUT), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT + 30)
    assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done.stdout + done.stderr


def git(cwd: Path, *args: str) -> str:
    return run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd)


@pytest.fixture(scope="module")
def origin(tmp_path_factory) -> Path:
    """A project with finished runs, delivered by `dvc repro`, runs tracked by DVC, committed."""
    project = synthetic_project(tmp_path_factory.mktemp("origin"), ROOT, TINY,
                                ("dvc.yaml", ".dvc", ".gitignore"))
    run([sys.executable, "-m", "rgt", "aggregate", "--out", "evidence/results.json"], project)
    git(project, "init", "-q")
    run([str(BIN / "dvc"), "repro", "-q"], project)
    run([str(BIN / "dvc"), "add", "-q", "runs"], project)
    return project


def publish(origin: Path, *remote: str, env: dict | None = None) -> None:
    """Push runs and data to the default remote (or ``remote``), commit everything."""
    run([str(BIN / "dvc"), "push", "-q", *remote], origin, env)
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "results", "--allow-empty")


def pull_and_rebuild(origin: Path, clone: Path, env: dict | None = None) -> str:
    """A fresh clone: `dvc pull`, the delivery removed, then `dvc repro`; repro's output."""
    git(origin.parent, "clone", "-q", str(origin), str(clone))
    assert not (clone / "runs").exists() and not (clone / "data").exists()
    run([str(BIN / "dvc"), "pull", "-q"], clone, env)
    for path in DELIVERED:
        (clone / path).unlink()
    return run([str(BIN / "dvc"), "repro"], clone, env)


def assert_rebuilt_without_training(origin: Path, clone: Path, output: str) -> None:
    assert (clone / "runs/dropout-1/results.json").read_bytes() == \
        (origin / "runs/dropout-1/results.json").read_bytes()
    assert list((clone / "data").glob("digits-*/inputs.npy"))
    for path in DELIVERED:
        assert (clone / path).read_bytes() == (origin / path).read_bytes(), path
    assert "Running stage 'figure@test_accuracy'" in output
    assert "train" not in output and not (clone / "checkpoints").exists()


def test_a_fresh_clone_pulls_from_the_embedded_remote_and_rebuilds(origin, tmp_path):
    publish(origin)
    assert list((origin / "dvc-remote").rglob("*"))  # the default remote, inside the project
    clone = tmp_path / "clone"
    output = pull_and_rebuild(origin, clone)
    assert_rebuilt_without_training(origin, clone, output)


def test_a_fresh_clone_pulls_from_an_s3_remote_and_rebuilds(origin, tmp_path, s3_server):
    bucket = s3_server.make_bucket("rgt-share")
    dvc = str(BIN / "dvc")
    run([dvc, "remote", "add", "-d", "shared", f"s3://{bucket}/results"], origin)
    run([dvc, "remote", "modify", "shared", "endpointurl", s3_server.endpoint], origin)
    publish(origin, env={**os.environ, **s3_server.env()})
    clone = tmp_path / "clone"
    shutil.rmtree(origin / "dvc-remote", ignore_errors=True)  # only S3 has the files now
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "remote elsewhere", "--allow-empty")
    output = pull_and_rebuild(origin, clone, {**os.environ, **s3_server.env()})
    assert_rebuilt_without_training(origin, clone, output)
