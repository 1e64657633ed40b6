"""The plain-loop API on a user's own script, as real processes: SIGKILL at random steps and
SIGTERM resume bit-identical; a second writer is refused; bad metrics are clear errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import script_drills
from conftest import ROOT
from script_drills import finish, kill_at_random_steps, sealed, wait_for_step

SCRIPT = ROOT / "tests" / "data" / "plain_loop" / "train_mlp.py"
STEPS = 60


def start(cwd: Path, run_id: str, sleep: float = 0.0) -> subprocess.Popen:
    return script_drills.start(SCRIPT, cwd, run_id, PLAIN_STEPS=str(STEPS),
                               PLAIN_SLEEP=str(sleep))


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[str, str]:
    """An uninterrupted run's weights hash and history."""
    cwd = tmp_path_factory.mktemp("reference")
    code, output = finish(start(cwd, "r"))
    assert code == 0, output
    return sealed(cwd, "r")


def test_sigkill_at_random_steps_then_resume_is_bit_identical(tmp_path, reference):
    kill_at_random_steps(lambda: start(tmp_path, "k", sleep=0.01), tmp_path, "k",
                         range(3, STEPS - 5), seed=4)
    code, output = finish(start(tmp_path, "k"))
    assert code == 0, output
    assert "resumed k from step-" in output
    assert sealed(tmp_path, "k") == reference
    status = json.loads((tmp_path / "checkpoints" / "k" / "status.json").read_text())
    assert status["state"] == "finished" and status["attempts"] == 3


def test_sigterm_checkpoints_exits_75_and_resumes_bit_identical(tmp_path, reference):
    process = start(tmp_path, "t", sleep=0.01)
    wait_for_step(process, tmp_path, "t", 20)
    process.send_signal(signal.SIGTERM)
    code, output = finish(process)
    assert code == 75, output
    status = json.loads((tmp_path / "checkpoints" / "t" / "status.json").read_text())
    assert status["state"] == "preempted" and status["exit_code"] == 75
    assert "received SIGTERM" in output
    code, output = finish(start(tmp_path, "t"))
    assert code == 0, output
    assert sealed(tmp_path, "t") == reference


def test_a_second_writer_on_the_same_checkpoints_is_refused(tmp_path):
    first = start(tmp_path, "w", sleep=0.2)
    wait_for_step(first, tmp_path, "w", 2)
    # Held (SIGSTOP) from its step 2 on, the first still holds the lock when the second starts,
    # however fast or loaded the machine; a SIGKILL ends it stopped.
    first.send_signal(signal.SIGSTOP)
    try:
        code, output = finish(start(tmp_path, "w"))
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    assert code != 0
    assert "already being written by pid" in output and f"pid {first.pid}" in output
    assert "fix: stop that process first" in output and "Traceback" not in output


def test_without_a_run_id_the_script_says_how_to_give_one(tmp_path):
    environment = {k: v for k, v in os.environ.items() if not k.startswith("RGT_")}
    done = subprocess.run([sys.executable, str(SCRIPT)], cwd=tmp_path, env=environment,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "rgt.run() has no run id" in done.stderr and "run_id=" in done.stderr
