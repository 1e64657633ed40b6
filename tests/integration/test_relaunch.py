"""The relaunch policy through the real executor on the loopback host: a preempted job (SIGTERM,
exit 75) is relaunched by the same Snakemake call and ends bit-identical to an uninterrupted
run; a job whose code raises is not relaunched, and its log's tail is shown and kept here; a
negative retry budget is refused before anything is launched."""

from __future__ import annotations

import json
import os
import signal

import pytest
import test_remote_executor as rx
from test_pool import reference_weights, weights

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
RELAUNCH = ["--rgt-retries", "2", "--rgt-retry-backoff", "1"]
PLANTED = '''import torch

CALLS = [0]


class Net(torch.nn.Module):
    """A model whose training breaks after 100 forwards: past the smoke gate, on the host."""

    def __init__(self, input_shape, num_classes):
        super().__init__()
        channels, height, width = input_shape
        self.body = torch.nn.Sequential(torch.nn.Flatten(),
                                        torch.nn.Linear(channels * height * width, num_classes))

    def forward(self, inputs):
        CALLS[0] += self.training
        if CALLS[0] > 100:
            raise RuntimeError("planted failure in the user's model")
        return self.body(inputs)
'''


def test_a_preempted_job_is_relaunched_by_the_same_call_and_ends_bit_identical(
        sshd_server, tmp_path, slow):
    project = rx.make_project(tmp_path, slow)
    [run_id] = rx.run_ids(project)
    root = sshd_server.disk / "preempt-root"
    process = rx.snakemake_process(project, [*rx.remote_args(sshd_server, "ssh",
                                                             "preempt-root"), *RELAUNCH])
    # Held (SIGSTOP) as soon as it is seen at step 20, so it cannot finish before the signal lands.
    trainer = rx.held_trainer(sshd_server, "preempt-root", run_id, 20, process)
    assert rx.heartbeat_step(sshd_server, "preempt-root", run_id) < 6 * 79
    os.kill(trainer, signal.SIGTERM)  # a spot reclaim's warning
    os.kill(trainer, signal.SIGCONT)
    output, _ = process.communicate(timeout=rx.TIMEOUT)
    assert process.returncode == 0, output[-4000:]
    assert "was preempted (exit 75, checkpointed): relaunching in 1 s (relaunch 1 of 2)" in output
    assert rx.launches(sshd_server, "preempt-root", run_id) == 2
    log = (root / "checkpoints" / run_id / "train.log").read_text()
    assert "received SIGTERM" in log and "resumed from step-" in log
    assert json.loads((project / "runs" / run_id / "run.json").read_text())["attempts"] == 2
    assert weights(project, run_id) == reference_weights(tmp_path, slow, [run_id])[run_id]


def test_a_job_that_raises_is_not_relaunched_and_its_log_tail_is_shown_and_kept(
        sshd_server, tmp_path, small):
    project = rx.make_project(tmp_path, small)
    (project / "planted.py").write_text(PLANTED)
    small["defaults"]["model"] = {"name": "planted:Net"}
    small["defaults"]["train"].update(epochs=3, batch_size=16)
    small["experiments"]["tiny"]["variants"] = {"plain": {}}
    rx.write_config(project, small)
    [run_id] = rx.run_ids(project)
    code, output = rx.snakemake(project, [*rx.remote_args(sshd_server, "ssh", "raise-root"),
                                          *RELAUNCH])
    assert code != 0
    assert "failed with exit code 1: a code error, not relaunched" in output, output[-4000:]
    assert "RuntimeError: planted failure in the user's model" in output
    assert rx.launches(sshd_server, "raise-root", run_id) == 1
    kept = project / ".rgt" / "logs" / run_id
    assert "planted failure" in (kept / "job.log").read_text()
    assert "starting tiny/plain" in (kept / "train.log").read_text()


def test_a_negative_retry_budget_is_refused_before_anything_is_launched(sshd_server, tmp_path,
                                                                         small):
    project = rx.make_project(tmp_path, small)
    code, output = rx.snakemake(project, [*rx.remote_args(sshd_server, "ssh", "budget-root"),
                                          "--rgt-retries", "-1"])
    assert code != 0
    assert "--rgt-retries -1 is negative" in output and "0 (never)" in output
    assert not (sshd_server.disk / "budget-root" / "jobs").exists()
