"""The Lightning and Hugging Face adapters on a user's own script, as real processes: SIGKILL,
SIGTERM and SIGUSR1 at random steps, each followed by a relaunch, end bit-identical to an
uninterrupted run (weights and logged history); the running script holds the writer lock;
Lightning in a Slurm job leaves SIGUSR1 to the run; a loader a resume cannot replay is refused;
without the framework the import is a clear error."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from rgt.base.errors import CheckpointError
from rgt.train.writer_lock import writer_lock
from script_drills import finish, sealed, start, status, wait_for_step

pytestmark = pytest.mark.integration

SCRIPTS = ROOT / "tests" / "data" / "adapters"
# name -> (script, optimizer steps it trains in the drills)
ADAPTERS = {"lightning": (SCRIPTS / "train_lightning.py", 24),
            "hf": (SCRIPTS / "train_hf.py", 24)}
SLEEP = "0.1"
# Lightning in a Slurm job installs its own SIGUSR1 handler (a checkpoint of its own and
# `scontrol requeue`) unless one exists: the Lightning drill's SIGUSR1 launch poses as a Slurm job
# to show that the run's handler is the one that acts.
SLURM_JOB = {"SLURM_NTASKS": "1", "SLURM_JOB_NAME": "train", "SLURM_JOB_ID": "4242",
             "SLURM_PROCID": "0", "SLURM_LOCALID": "0", "SLURM_NODEID": "0"}


@pytest.fixture
def launch():
    """Start an adapter script as a training job; whatever still runs at the end is killed."""
    started = []

    def launch_(name: str, cwd: Path, run_id: str, **env: str) -> subprocess.Popen:
        script, steps = ADAPTERS[name]
        started.append(start(script, cwd, run_id, ADAPTER_STEPS=str(steps), **env))
        return started[-1]

    yield launch_
    for process in started:
        if process.poll() is None:
            process.kill()
            process.communicate(timeout=30)


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_sigkill_sigterm_and_sigusr1_at_random_steps_then_relaunch_is_bit_identical(
        tmp_path, launch, name):
    steps = ADAPTERS[name][1]
    # The uninterrupted run trains alongside the drill (which mostly waits).
    (tmp_path / "reference").mkdir()
    uninterrupted = launch(name, tmp_path / "reference", "r")
    # One random step in each third, after the first checkpoint, and far enough apart that a
    # launch resumes before the step at which it is signalled.
    rng = random.Random(name)
    kill_at, term_at, usr1_at = (rng.randrange(6, steps // 3), rng.randrange(steps // 3 + 3,
                                 2 * steps // 3), rng.randrange(2 * steps // 3 + 3, steps - 2))
    drill = f"SIGKILL at {kill_at}, SIGTERM at {term_at}, SIGUSR1 at {usr1_at}"

    process = launch(name, tmp_path, "k", ADAPTER_SLEEP=SLEEP)
    wait_for_step(process, tmp_path, "k", kill_at)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)

    process = launch(name, tmp_path, "k", ADAPTER_SLEEP=SLEEP)
    wait_for_step(process, tmp_path, "k", term_at)
    refused = pytest.raises(CheckpointError, match=f"already being written by pid {process.pid}")
    with refused, writer_lock(tmp_path / "checkpoints" / "k"):
        pass
    process.send_signal(signal.SIGTERM)
    code, output = finish(process)
    assert code == 75, output
    assert "resumed k from step-" in output and "received SIGTERM" in output
    assert status(tmp_path, "k")["state"] == "preempted"
    assert status(tmp_path, "k")["exit_code"] == 75

    as_slurm_job = SLURM_JOB if name == "lightning" else {}
    process = launch(name, tmp_path, "k", ADAPTER_SLEEP=SLEEP, **as_slurm_job)
    wait_for_step(process, tmp_path, "k", usr1_at)
    process.send_signal(signal.SIGUSR1)
    code, output = finish(process)
    assert code == 75, output
    assert "received SIGUSR1" in output
    if as_slurm_job:
        assert "SLURM auto-requeueing enabled" in output
        assert "Handling auto-requeue signal" not in output

    code, output = finish(launch(name, tmp_path, "k"))
    assert code == 0, output
    code, reference_output = finish(uninterrupted)
    assert code == 0, reference_output
    assert sealed(tmp_path, "k") == sealed(tmp_path / "reference", "r"), drill
    assert status(tmp_path, "k")["state"] == "finished"
    assert status(tmp_path, "k")["attempts"] == 4


def test_a_train_loader_a_resume_cannot_replay_is_refused_with_the_fix(tmp_path, launch):
    code, output = finish(launch("lightning", tmp_path, "s", ADAPTER_SHUFFLE="1"))
    assert code == 1, output
    assert "error: the train DataLoader draws its order with RandomSampler" in output
    assert "fix: pass sampler=ResumableSampler(dataset, seed=...)" in output
    assert "Traceback" not in output
    assert status(tmp_path, "s")["state"] == "failed"


@pytest.mark.parametrize(("module", "extra", "package"),
                         [("rgt.adapters.lightning", "lightning", "lightning"),
                          ("rgt.adapters.hf", "hf", "transformers")])
def test_an_adapter_without_its_framework_says_what_to_install(module, extra, package):
    hide = f"import sys; sys.modules[{package!r}] = None; import {module}"
    done = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"error: rgt.adapters.{extra} needs" in done.stderr
    assert f"fix: pip install 'remote-gpu-trainer[{extra}]'" in done.stderr
