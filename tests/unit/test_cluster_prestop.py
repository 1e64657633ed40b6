"""The training pod's preStop hook (`python -m rgt.cluster.prestop`): it finds trainings by the
PID and host their status.json records, SIGTERMs a real `rgt train` so it checkpoints and exits
75, and gives up on a process that ignores SIGTERM after the grace it was given."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import rgt, rgt_process, write_config
from rgt.cli import main as rgt_main
from rgt.cluster.prestop import main, running_trainings, stop_trainings
from rgt.train.run_status import RunStatus

IGNORES_SIGTERM = ("import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                   "print('ready', flush=True); time.sleep(60)")


def record(checkpoints: Path, run_id: str, **status) -> None:
    directory = checkpoints / run_id
    directory.mkdir(parents=True)
    (directory / "status.json").write_text(json.dumps(status))


@pytest.fixture
def stubborn():
    """A live process that ignores SIGTERM (killed at the end)."""
    process = subprocess.Popen([sys.executable, "-c", IGNORES_SIGTERM], stdout=subprocess.PIPE,
                               text=True)
    assert process.stdout.readline().strip() == "ready"
    yield process
    process.kill()
    process.wait(timeout=30)


def test_only_live_running_trainings_of_this_host_are_targets(tmp_path, stubborn):
    host = socket.gethostname()
    record(tmp_path, "live", state="running", pid=stubborn.pid, host=host)
    record(tmp_path, "finished", state="finished", pid=stubborn.pid, host=host)
    record(tmp_path, "elsewhere", state="running", pid=stubborn.pid, host="other-pod")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    record(tmp_path, "vanished", state="running", pid=int(dead.stdout), host=host)
    (tmp_path / "torn").mkdir()
    (tmp_path / "torn" / "status.json").write_text('{"state": "runn')
    assert running_trainings(tmp_path) == {"live": stubborn.pid}


def test_a_process_that_ignores_sigterm_is_reported_after_the_grace(tmp_path, stubborn, capsys):
    record(tmp_path, "run1", state="running", pid=stubborn.pid, host=socket.gethostname())
    started = time.monotonic()
    assert main(["--checkpoints", str(tmp_path), "--grace", "0.5"]) == 0
    assert 0.5 <= time.monotonic() - started < 10
    assert stubborn.poll() is None  # never escalated to SIGKILL: the kubelet does that
    assert f"run run1 (pid {stubborn.pid}) still running" in capsys.readouterr().err


def test_a_real_training_checkpoints_and_exits_75(tmp_path, tiny_config):
    tiny_config["experiments"]["tiny"].update(seeds=[0], variants={"plain": {}})
    tiny_config["defaults"]["train"].update(epochs=8, batch_size=16)
    tiny_config["defaults"]["checkpoint"].update(every_steps=1000, heartbeat_seconds=0.001)
    write_config(tmp_path, tiny_config)
    (plan,) = json.loads(rgt(["plan", "--json"], tmp_path).stdout)
    process = rgt_process(["train", "--run-id", plan["run_id"]], tmp_path)
    checkpoints = tmp_path / "checkpoints"
    deadline = time.monotonic() + 120
    while not running_trainings(checkpoints) and time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()[0]
        time.sleep(0.05)
    assert list(running_trainings(checkpoints)) == [run_id := plan["run_id"]]
    assert stop_trainings(checkpoints, grace_seconds=60) == {}
    assert process.wait(timeout=30) == 75, process.communicate()[0]
    status = json.loads((checkpoints / run_id / "status.json").read_text())
    assert status["state"] == "preempted" and status["exit_code"] == 75
    newest = max((checkpoints / run_id).glob("step-*.json"))  # the preemption's own checkpoint
    assert json.loads(newest.read_text())["step"] == status["step"] > 0


def test_a_run_reads_running_only_once_sigterm_checkpoints(tmp_path, tiny_config, monkeypatch):
    # a pre-stop hook signals every run whose status reads running: published before the
    # handler was in place, a SIGTERM in between killed the run with no checkpoint (-15)
    tiny_config["experiments"]["tiny"].update(seeds=[0], variants={"plain": {}})
    tiny_config["defaults"]["train"].update(epochs=1)
    write_config(tmp_path, tiny_config)
    (plan,) = json.loads(rgt(["plan", "--json"], tmp_path).stdout)
    handlers, publish = [], RunStatus.set

    def recording(self, state, *args, **kwargs):
        if state == "running":
            handlers.append(signal.getsignal(signal.SIGTERM))
        return publish(self, state, *args, **kwargs)

    monkeypatch.setattr(RunStatus, "set", recording)
    monkeypatch.chdir(tmp_path)
    assert rgt_main(["train", "--run-id", plan["run_id"]]) == 0
    assert handlers and signal.SIG_DFL not in handlers
