"""Shared fixtures: the tiny config, a project directory, and running `rgt` as a process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "tests" / "data" / "tiny.yaml"


def pytest_addoption(parser):
    parser.addoption("--run-gpu", action="store_true", help="run tests that need a CUDA GPU")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-gpu"):
        return
    skip_gpu = pytest.mark.skip(reason="needs --run-gpu and a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip_gpu)


@pytest.fixture
def tiny_config() -> dict:
    """The tiny config as a fresh mapping (mutate freely)."""
    return yaml.safe_load(TINY.read_text())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project directory holding the workflow and the tiny config as config/config.yaml."""
    for name in ("Snakefile", "rules"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    (tmp_path / "config").mkdir()
    shutil.copy(TINY, tmp_path / "config" / "config.yaml")
    return tmp_path


@pytest.fixture
def small(tiny_config) -> dict:
    """The tiny config with one seed."""
    tiny_config["experiments"]["tiny"]["seeds"] = [0]
    return tiny_config


@pytest.fixture
def slow(small) -> dict:
    """One run long enough to be interrupted (heartbeat every step, frequent checkpoints)."""
    small["defaults"]["train"].update(epochs=6, batch_size=16)
    small["defaults"]["checkpoint"].update(every_steps=10, heartbeat_seconds=0.001)
    del small["experiments"]["tiny"]["variants"]["dropout"]
    return small


def write_config(directory: Path, config: dict, name: str = "config.yaml") -> Path:
    """Write ``config`` as YAML under ``directory/config/`` and return its path."""
    path = directory / "config" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config))
    return path


def rgt_process(args: list[str], cwd: Path, **kwargs) -> subprocess.Popen:
    """Start ``python -m rgt ARGS`` in ``cwd`` (stdout and stderr captured)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "rgt", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            **kwargs)


def rgt(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``python -m rgt ARGS`` in ``cwd`` to completion."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.run([sys.executable, "-m", "rgt", *args], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=timeout)


# ---------------------------------------------------------------------------------------------
# Loopback OpenSSH server for the `ssh`-marked tests (tests/sshd.py; owned with rgt.remote).
# One real sshd per test session; each test gets its own connection and remote directory.
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def sshd_server(tmp_path_factory):
    """A running loopback sshd (fails, not skips, when openssh-server is missing)."""
    from sshd import SshdMissing, start_sshd

    try:
        server = start_sshd(tmp_path_factory.mktemp("sshd"))
    except SshdMissing as error:
        missing = str(error)
    else:
        yield server
        server.release()
        return
    pytest.fail(missing, pytrace=False)


@pytest.fixture
def ssh_spec(sshd_server):
    """The HostSpec of the loopback sshd's alias, resolved from its own ssh_config."""
    from rgt.remote.ssh import resolve_host
    from sshd import ALIAS

    return resolve_host(ALIAS, sshd_server.ssh_config)


@pytest.fixture
def remote_host(ssh_spec):
    """A RemoteHost on the loopback sshd, closed after the test."""
    from rgt.remote.ssh import RemoteHost

    with RemoteHost(ssh_spec, connect_timeout=5, retries=1) as host:
        yield host


@pytest.fixture
def remote_dir(sshd_server, request) -> Path:
    """A fresh directory on the loopback sshd's "disk" (the same filesystem as the tests)."""
    path = sshd_server.disk / request.node.name.replace("[", "-").replace("]", "")
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """A real local S3 server (moto, tests/s3server.py) that checks signatures; stopped at the
    end of the session."""
    from s3server import start_s3

    server = start_s3(tmp_path_factory.mktemp("s3"), auth=True)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def built_dist(tmp_path_factory):
    """The sdist and the wheel (built from that sdist) of this tree (tests/wheel_venv.py)."""
    from wheel_venv import build

    return build(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def wheel_venv(tmp_path_factory, built_dist):
    """``built_dist`` and a fresh venv with torch's CPU build and the pinned dependencies, but
    not rgt (tests/wheel_venv.py): made once per session."""
    from wheel_venv import with_venv

    made = with_venv(built_dist, tmp_path_factory.mktemp("venv") / "venv")
    print(f"\nwheel_venv: a fresh venv in {made.seconds:.1f} s; the wheel "
          f"{made.wheel.stat().st_size} bytes")
    return made
