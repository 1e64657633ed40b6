"""Multi-process (DDP) training on real processes: 2 gloo ranks on the CPU via `rgt train`.

A planted user model (``ddpnets.nets:Net``, written into a test directory) makes steps slow
enough to interrupt, and can make one rank hang. The interrupted run must end bit-identical to
an uninterrupted 2-process run.
"""

from __future__ import annotations

import json
import os
import signal
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from conftest import TINY, rgt, rgt_process, write_config
from rgt.config import load_config
from rgt.plan.runplan import plan_runs

pytestmark = pytest.mark.integration
TIMEOUT = 180

NETS = textwrap.dedent(
    """
    import os
    import time

    from rgt.models import SmallCNN


    class Net(SmallCNN):
        # dropout: each rank draws its own masks, so per-rank RNG state matters on resume
        def __init__(self, input_shape, num_classes, sleep_s=0.0, hang_rank=-1, hang_after=0):
            super().__init__(input_shape, num_classes, channels=4, dropout=0.3)
            self.sleep_s, self.hang_rank, self.hang_after = sleep_s, hang_rank, hang_after
            self.calls = 0

        def forward(self, inputs):
            if self.training:
                self.calls += 1
                rank = int(os.environ.get("RANK", "0"))
                if rank == self.hang_rank and self.calls > self.hang_after:
                    time.sleep(3600)  # a hung rank: only a kill ends it
                time.sleep(self.sleep_s)
            return super().forward(inputs)
    """
)


@pytest.fixture(scope="module")
def nets_path(tmp_path_factory) -> Path:
    """A directory holding the planted model package, on PYTHONPATH for every process."""
    root = tmp_path_factory.mktemp("ddpnets")
    (root / "ddpnets").mkdir()
    (root / "ddpnets" / "__init__.py").write_text("")
    (root / "ddpnets" / "nets.py").write_text(NETS)
    return root


@pytest.fixture(scope="module", autouse=True)
def _importable(nets_path):
    """The planted package importable here (run ids) and in every `rgt` process."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(nets_path))
        patch.setenv("PYTHONPATH", os.pathsep.join(
            [str(nets_path), *filter(None, [os.environ.get("PYTHONPATH")])]))
        yield


def ddp_config(tiny_config: dict, **params) -> dict:
    """Two processes, 2 epochs of 40 steps (32 samples per step), a checkpoint every 10."""
    defaults = tiny_config["defaults"]
    defaults["train"].update(epochs=2, batch_size=16, processes=2, process_group_timeout_s=30)
    defaults["model"] = {"name": "ddpnets.nets:Net", "params": params}
    defaults["checkpoint"].update(every_steps=10, heartbeat_seconds=0.001)
    tiny_config["experiments"] = {"tiny": {"baseline": "plain", "seeds": [0],
                                           "variants": {"plain": {}}}}
    return tiny_config


def project_with(directory: Path, config: dict) -> tuple[Path, str]:
    path = write_config(directory, config)
    return path, plan_runs(load_config(path))[0].run_id


def train_args(config: Path, run_id: str) -> list[str]:
    return ["train", "--config", str(config), "--run-id", run_id]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted 2-process run: its project directory and run id."""
    directory = tmp_path_factory.mktemp("reference")
    config, run_id = project_with(directory, ddp_config(yaml.safe_load(TINY.read_text()),
                                                        sleep_s=0.03))
    result = rgt(train_args(config, run_id), directory, TIMEOUT)
    assert result.returncode == 0, result.stdout + result.stderr
    return directory, run_id


def run_record(directory: Path, run_id: str) -> dict:
    return json.loads((directory / "runs" / run_id / "run.json").read_text())


def test_two_process_run_seals_world_size_and_batches(reference):
    directory, run_id = reference
    record = run_record(directory, run_id)
    assert (record["world_size"], record["per_rank_batch"], record["effective_batch"]) == (
        2, 16, 32)
    assert record["steps"] == 2 * 40  # ceil(1257 train samples / 32) per epoch
    history = (directory / "runs" / run_id / "train.csv").read_text().splitlines()
    assert len(history) == 3  # header + one row per epoch
    reports = sorted((directory / "checkpoints" / run_id / "ranks").glob("rank-*.json"))
    assert [json.loads(p.read_text())["state"] for p in reports] == ["finished", "finished"]
    again = rgt(train_args(directory / "config" / "config.yaml", run_id), directory, TIMEOUT)
    assert again.returncode == 0 and "already sealed" in again.stdout  # no relaunch


def _wait(predicate, process, what: str):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        if process.poll() is not None:
            raise AssertionError(f"ended before {what}: {process.communicate()[0]}")
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def _saved_step(state_dir: Path) -> int:
    steps = []
    for marker in state_dir.glob("step-*.json"):
        try:
            steps.append(json.loads(marker.read_text())["step"])
        except (OSError, ValueError):
            continue
    return max(steps, default=-1)


def _rank_pid(state_dir: Path, rank: int) -> int | None:
    try:
        return json.loads((state_dir / "ranks" / f"rank-{rank}.json").read_text())["pid"]
    except (OSError, ValueError):
        return None


def _beat(state_dir: Path) -> int:
    try:
        return json.loads((state_dir / "heartbeat.json").read_text())["step"]
    except (OSError, ValueError):
        return -1


def test_kill_a_rank_then_preempt_then_resume_is_bit_identical(tmp_path, tiny_config,
                                                                 reference):
    config, run_id = project_with(tmp_path, ddp_config(tiny_config, sleep_s=0.03))
    assert run_id == reference[1]
    state_dir = tmp_path / "checkpoints" / run_id

    first = rgt_process(train_args(config, run_id), tmp_path)
    _wait(lambda: _saved_step(state_dir) >= 20, first, "a checkpoint at step 20")
    os.kill(_wait(lambda: _rank_pid(state_dir, 1), first, "rank 1's pid"), signal.SIGKILL)
    output, _ = first.communicate(timeout=TIMEOUT)
    assert first.returncode == 1, output
    assert "rank 1 (pid" in output and "died without reporting" in output, output
    status = json.loads((state_dir / "status.json").read_text())
    assert status["state"] == "failed" and "rank 1" in status["error"]
    killed_at = _saved_step(state_dir)

    second = rgt_process(train_args(config, run_id), tmp_path)
    _wait(lambda: _beat(state_dir) >= killed_at + 25, second, "25 more steps")
    second.send_signal(signal.SIGTERM)
    output, _ = second.communicate(timeout=TIMEOUT)
    assert second.returncode == 75, output
    assert f"resumed from step-{killed_at:09d}.pt" in output
    status = json.loads((state_dir / "status.json").read_text())
    assert status["state"] == "preempted" and _saved_step(state_dir) == status["step"]

    result = rgt(train_args(config, run_id), tmp_path, TIMEOUT)
    assert result.returncode == 0, result.stdout + result.stderr
    record, expected = run_record(tmp_path, run_id), run_record(*reference)
    assert record["weights_sha256"] == expected["weights_sha256"]
    assert record["selected_weights_sha256"] == expected["selected_weights_sha256"]
    assert (tmp_path / "runs" / run_id / "train.csv").read_text() == (
        reference[0] / "runs" / run_id / "train.csv").read_text()
    assert record["attempts"] == 3


def test_a_hung_rank_fails_the_run_within_the_timeout_naming_it(tmp_path, tiny_config):
    config = ddp_config(tiny_config, hang_rank=1, hang_after=5)
    config["defaults"]["train"].update(epochs=1, process_group_timeout_s=3)
    path, run_id = project_with(tmp_path, config)
    started = time.monotonic()
    result = rgt(train_args(path, run_id), tmp_path, TIMEOUT)
    elapsed = time.monotonic() - started
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "rank 1 (pid" in output and "stopped responding" in output, output
    assert "rank 0 timed out after 3 s" in output and "fix:" in output
    status = json.loads((tmp_path / "checkpoints" / run_id / "status.json").read_text())
    assert status["state"] == "failed" and "rank 1" in status["error"]
    assert elapsed < 90, f"the hang took {elapsed:.0f} s to end"


def test_more_processes_than_gpus_is_a_config_error_with_the_config_fix_only(tmp_path,
                                                                             tiny_config):
    import torch

    if torch.cuda.device_count() >= 2:
        pytest.skip("this host has a GPU for each of the 2 processes")
    config = ddp_config(tiny_config)
    config["defaults"]["train"]["device"] = "cuda"  # this host has fewer GPUs than processes
    path, run_id = project_with(tmp_path, config)
    result = rgt(train_args(path, run_id), tmp_path, TIMEOUT)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "train.processes = 2 but only" in output and "one process per GPU" in output
    assert "fix: set train.processes to the number of GPUs" in output
    assert "rerun the same command" not in output
    status = json.loads((tmp_path / "checkpoints" / run_id / "status.json").read_text())
    assert status["state"] == "failed" and "GPU(s)" in status["error"]
