"""Fault drills on real processes: SIGKILL at random steps, SIGTERM, a corrupt checkpoint,
and re-running a sealed run. Each ends bit-identical to an uninterrupted run."""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path

import pytest

from conftest import rgt, rgt_process, write_config
from rgt.base.hashing import sha256_file
from rgt.config import load_config
from rgt.plan.runplan import plan_runs

pytestmark = pytest.mark.integration
TIMEOUT = 240


@pytest.fixture
def drill(tmp_path, tiny_config):
    """A project with a slower, often-checkpointing run (heartbeat every step)."""
    tiny_config["defaults"]["train"].update(epochs=4, batch_size=16)
    tiny_config["defaults"]["checkpoint"].update(every_steps=7, heartbeat_seconds=0.001)
    tiny_config["experiments"]["tiny"].update(seeds=[0])
    path = write_config(tmp_path, tiny_config)
    spec = next(s for s in plan_runs(load_config(path)) if s.variant == "dropout")
    return tmp_path, path, spec.run_id


def _train(project: Path, config: Path, run_id: str) -> int:
    result = rgt(["train", "--config", str(config), "--run-id", run_id], project, TIMEOUT)
    assert result.returncode in (0, 75), result.stdout + result.stderr
    return result.returncode


def _outcome(project: Path, run_id: str) -> dict:
    """What must be bit-identical: weights, selected weights, history and metrics."""
    run_dir = project / "runs" / run_id
    assert rgt(["evaluate", str(run_dir)], project, TIMEOUT).returncode == 0
    record = json.loads((run_dir / "run.json").read_text())
    return {"weights": record["weights_sha256"], "selected": record["selected_weights_sha256"],
            "history": (run_dir / "train.csv").read_text(),
            "results": json.loads((run_dir / "results.json").read_text())["metrics"]}


@pytest.fixture
def reference(tmp_path_factory, drill):
    """The uninterrupted run of the same run id, in its own directory."""
    _, config, run_id = drill
    other = tmp_path_factory.mktemp("reference")
    write_config(other, load_config(config).to_dict())
    assert _train(other, other / "config" / "config.yaml", run_id) == 0
    return _outcome(other, run_id)


def _wait_for_step(project: Path, run_id: str, step: int, process) -> int:
    beat = project / "checkpoints" / run_id / "heartbeat.json"
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline and process.poll() is None:
        try:
            seen = json.loads(beat.read_text())["step"]
        except (OSError, ValueError):
            seen = -1
        if seen >= step:
            return seen
        time.sleep(0.002)
    raise AssertionError(f"run ended or timed out before step {step}: {process.poll()}")


def test_sigkill_at_random_steps_then_resume_is_bit_identical(drill, reference):
    project, config, run_id = drill
    rng = random.Random(os.getpid())
    kill_steps = sorted(rng.sample(range(3, 300), 3))
    for step in kill_steps:
        process = rgt_process(["train", "--config", str(config), "--run-id", run_id], project)
        _wait_for_step(project, run_id, step, process)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=TIMEOUT)
    status = json.loads((project / "checkpoints" / run_id / "status.json").read_text())
    assert status["state"] == "running"  # SIGKILL leaves no chance to record anything
    assert _train(project, config, run_id) == 0
    assert _outcome(project, run_id) == reference, f"killed at steps {kill_steps}"
    record = json.loads((project / "runs" / run_id / "run.json").read_text())
    assert record["attempts"] == len(kill_steps) + 1


def test_sigterm_checkpoints_at_step_boundary_and_exits_75(drill, reference):
    project, config, run_id = drill
    process = rgt_process(["train", "--config", str(config), "--run-id", run_id], project)
    _wait_for_step(project, run_id, 40, process)
    process.send_signal(signal.SIGTERM)
    output, _ = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 75, output
    status = json.loads((project / "checkpoints" / run_id / "status.json").read_text())
    assert status["state"] == "preempted" and status["exit_code"] == 75
    markers = sorted((project / "checkpoints" / run_id).glob("step-*.json"))
    assert json.loads(markers[-1].read_text())["step"] == status["step"]
    assert not (project / "runs" / run_id / "run.json").exists()
    assert _train(project, config, run_id) == 0
    assert _outcome(project, run_id) == reference


def test_corrupt_newest_checkpoint_is_skipped_not_deleted(drill, reference):
    project, config, run_id = drill
    process = rgt_process(["train", "--config", str(config), "--run-id", run_id], project)
    _wait_for_step(project, run_id, 60, process)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=TIMEOUT)
    newest = sorted((project / "checkpoints" / run_id).glob("step-*.pt"))[-1]
    data = bytearray(newest.read_bytes())
    data[len(data) // 2] ^= 0xFF
    newest.write_bytes(bytes(data))
    result = rgt(["train", "--config", str(config), "--run-id", run_id], project, TIMEOUT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert newest.name in result.stdout + result.stderr  # the warning names the file
    assert newest.exists() or newest.with_name(newest.name + ".corrupt-1").exists()
    assert _outcome(project, run_id) == reference


def test_rerunning_a_sealed_run_touches_nothing(drill):
    project, config, run_id = drill
    assert _train(project, config, run_id) == 0
    run_dir = project / "runs" / run_id
    before = {p.name: (sha256_file(p), p.stat().st_mtime_ns) for p in run_dir.iterdir()}
    result = rgt(["train", "--config", str(config), "--run-id", run_id], project, TIMEOUT)
    assert result.returncode == 0 and "already sealed" in result.stdout
    assert {p.name: (sha256_file(p), p.stat().st_mtime_ns) for p in run_dir.iterdir()} == before


def test_opt_in_probes_leave_the_run_bit_identical(drill, reference):
    project, config, run_id = drill
    result = rgt(["train", "--probes", "--config", str(config), "--run-id", run_id], project,
                 TIMEOUT)
    assert result.returncode == 0, result.stdout + result.stderr
    probes = json.loads((project / "checkpoints" / run_id / "probes.json").read_text())
    assert {"no-grad-params", "optimizer-coverage", "nonfinite-module", "update-ratio",
            "applied-lr", "overfit-one-batch", "data-starvation"} <= set(probes)
    assert probes["no-grad-params"]["ok"] and probes["optimizer-coverage"]["ok"]
    assert _outcome(project, run_id) == reference
