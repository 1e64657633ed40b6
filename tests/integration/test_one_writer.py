"""One writer per run, whatever starts it: a second `rgt train` of a run in training is refused
naming the first one's pid and host; Snakemake killed with SIGKILL mid-training leaves its
trainer running, and after `--unlock` the rerun follows that trainer instead of starting a
second one: the run is trained by one process and sealed once."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, TINY, rgt, write_config

pytestmark = pytest.mark.integration
TIMEOUT = 300
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
# A linear model that sleeps in each forward pass (~6 s of training) and waits, step after
# step, while the project holds a file named `hold`: a test holds the first trainer there until
# the second one has met it, so no machine is fast or loaded enough for the first to finish
# before the second starts.
SLOW_MODEL = """import time
from pathlib import Path

import torch


class Slow(torch.nn.Module):
    def __init__(self, input_shape, num_classes):
        super().__init__()
        self.head = torch.nn.Linear(int(torch.tensor(input_shape).prod()), num_classes)

    def forward(self, x):
        time.sleep(0.03)
        while Path("hold").exists():
            time.sleep(0.05)
        return self.head(x.flatten(1))
"""


@pytest.fixture
def project(tmp_path) -> Path:
    """The workflow with one slow run (its model a module of the project)."""
    for name in ("Snakefile", "rules"):
        subprocess.run(["cp", "-r", str(ROOT / name), str(tmp_path / name)], check=True)
    config = yaml.safe_load(TINY.read_text())
    config["defaults"]["model"] = {"name": "slowmodel:Slow"}
    config["defaults"]["train"]["epochs"] = 8
    config["defaults"]["checkpoint"].update(every_steps=10, heartbeat_seconds=0.2)
    config["experiments"]["tiny"].update(seeds=[0], variants={"plain": {}})
    write_config(tmp_path, config)
    (tmp_path / "slowmodel.py").write_text(SLOW_MODEL)
    return tmp_path


def environment(project: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(project), "PYTHONUNBUFFERED": "1"}


def run_id(project: Path) -> str:
    [row] = json.loads(rgt(["plan", "--json"], project, 120).stdout)
    return row["run_id"]


def wait_for(predicate, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"no {what} within {timeout} s")


@contextmanager
def holding(project: Path) -> Iterator[None]:
    """Hold the slow model's trainer between steps for the block (released however it ends,
    so a failing test leaves no trainer waiting forever)."""
    hold = project / "hold"
    hold.touch()
    try:
        yield
    finally:
        hold.unlink()


def training(project: Path, run: str) -> bool:
    try:
        beat = json.loads((project / "checkpoints" / run / "heartbeat.json").read_text())
    except (OSError, ValueError):
        return False
    return beat.get("step", 0) > 0


def train_process(project: Path, run: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "rgt", "train", "--run-id", run],
                            cwd=project, env=environment(project), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def log_lines(project: Path, run: str, needle: str) -> int:
    log = (project / "checkpoints" / run / "train.log").read_text()
    return sum(needle in line for line in log.splitlines())


def test_a_second_rgt_train_of_a_run_in_training_is_refused_naming_the_first(project):
    run = run_id(project)
    first = train_process(project, run)
    wait_for(lambda: training(project, run), "training")
    with holding(project):
        second = subprocess.run([sys.executable, "-m", "rgt", "train", "--run-id", run],
                                cwd=project, env=environment(project), capture_output=True,
                                text=True, timeout=TIMEOUT)
    assert second.returncode == 1, second.stdout + second.stderr
    assert f"already being written by pid {first.pid} on {socket.gethostname()}" in \
        second.stderr
    assert "Traceback" not in second.stderr
    output, _ = first.communicate(timeout=TIMEOUT)
    assert first.returncode == 0, output[-2000:]
    assert log_lines(project, run, "finished: sealed") == 1
    assert log_lines(project, run, "starting tiny/plain") == 1  # the second never started


def snakemake(project: Path, *args: str, log: Path) -> subprocess.Popen:
    """Snakemake itself (no wrapper: a test kills this very process), its output in ``log``
    (a pipe would stay open as long as the trainer it leaves behind)."""
    command = [SNAKEMAKE, "--profile", str(ROOT / "profiles" / "local"), *args]
    return subprocess.Popen(command, cwd=project, env=environment(project),
                            stdout=log.open("w"), stderr=subprocess.STDOUT, text=True)


def trainer_pids(run: str) -> set[int]:
    """The `rgt train` processes of ``run`` alive now (read from /proc, never by name)."""
    pids = set()
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError):
            continue
        if b"train" in argv and run.encode() in argv and b"-m" in argv:
            pids.add(int(entry.name))
    return pids


def test_snakemake_killed_mid_training_then_rerun_trains_each_run_once(project, tmp_path):
    run = run_id(project)
    target = f"runs/{run}/run.json"
    first = snakemake(project, target, log=tmp_path / "first.log")
    wait_for(lambda: training(project, run), "training")
    with holding(project):
        first.kill()  # SIGKILL to Snakemake alone: its trainer goes on, an orphan
        first.wait(timeout=60)
        [orphan] = trainer_pids(run)
        unlock = snakemake(project, "--unlock", target, log=tmp_path / "unlock.log")
        assert unlock.wait(timeout=TIMEOUT) == 0
        rerun = snakemake(project, target, log=tmp_path / "rerun.log")
        wait_for(lambda: "following it until it ends" in (tmp_path / "rerun.log").read_text(),
                 "the rerun following the orphan")
    assert rerun.wait(timeout=TIMEOUT) == 0, (tmp_path / "rerun.log").read_text()[-3000:]
    output = (tmp_path / "rerun.log").read_text()
    # The orphan alone trained (one start, no resume, one attempt); the rerun's trainer only
    # followed it, and the run was sealed once.
    assert f"already being trained by pid {orphan} on {socket.gethostname()}" in output
    assert "following it until it ends" in output
    assert log_lines(project, run, "finished: sealed") == 1
    assert log_lines(project, run, "starting tiny/plain") == 1
    assert log_lines(project, run, "resumed from") == 0
    record = json.loads((project / "runs" / run / "run.json").read_text())
    assert record["attempts"] == 1 and record["status"] == "finished"
