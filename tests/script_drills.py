"""Drills on a user's own training script run as an rgt training job: start it as a real process
with the job's environment, wait for a step in its heartbeat, read what it sealed."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path


def start(script: Path, cwd: Path, run_id: str, *args: str, **env: str) -> subprocess.Popen:
    """The script (with ``args``) as a training job ``run_id`` in ``cwd`` (heartbeat at every
    step)."""
    environment = {**os.environ, "RGT_RUN_ID": run_id, "RGT_HEARTBEAT_SECONDS": "0",
                   "PYTHONUNBUFFERED": "1", "HF_HUB_OFFLINE": "1", **env}
    return subprocess.Popen([sys.executable, str(script), *args], cwd=cwd, env=environment,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def finish(process: subprocess.Popen, timeout: float = 180) -> tuple[int, str]:
    """Its exit code and output, once it ends."""
    output, _ = process.communicate(timeout=timeout)
    return process.returncode, output


def sealed(cwd: Path, run_id: str) -> tuple[str, str]:
    """The sealed run's weights hash and logged history (``train.csv``)."""
    record = json.loads((cwd / "runs" / run_id / "run.json").read_text())
    return record["weights_sha256"], (cwd / "runs" / run_id / "train.csv").read_text()


def status(cwd: Path, run_id: str) -> dict:
    """The run's ``status.json``."""
    return json.loads((cwd / "checkpoints" / run_id / "status.json").read_text())


def heartbeat_step(cwd: Path, run_id: str, pid: int) -> int:
    """The step of the newest heartbeat of process ``pid``; -1 before its first (an earlier
    launch's heartbeat says nothing about this one)."""
    try:
        beat = json.loads((cwd / "checkpoints" / run_id / "heartbeat.json").read_text())
    except (OSError, ValueError):
        return -1
    return beat["step"] if beat.get("pid") == pid else -1


def wait_for_step(process: subprocess.Popen, cwd: Path, run_id: str, step: int,
                  timeout: float = 120) -> None:
    """Return once the running script's heartbeat reaches ``step``."""
    deadline = time.monotonic() + timeout
    while heartbeat_step(cwd, run_id, process.pid) < step:
        assert process.poll() is None, process.stdout.read()
        assert time.monotonic() < deadline, "the script never reached the step"
        time.sleep(0.005)


def kill_at_random_steps(launch, cwd: Path, run_id: str, steps: range, seed: int,
                         kills: int = 2) -> None:
    """SIGKILL the script, started anew by ``launch()`` each time, at ``kills`` random steps
    of ``steps`` (in order)."""
    for kill_at in sorted(random.Random(seed).sample(steps, kills)):
        process = launch()
        wait_for_step(process, cwd, run_id, kill_at)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
