"""The failure classifier on logs captured from real failures (tests/data/logs/<case>/).

Each case directory holds train.log, job.log and facts.json (the exit code the job wrapper
recorded, the last heartbeat loss) produced by really causing the failure with the real
`rgt train` (tests/data/logs/capture.py; each file's first line says how). cuda_oom raises the
real torch.OutOfMemoryError class with the CUDA allocator's message (no GPU here).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rgt.watch.classify import classify, last_attempt
from rgt.watch.states import DEAD, FAILED, FINISHED, PREEMPTED, RUNNING, STALLED, RunFacts

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"


def body(path: Path) -> str:
    """A captured file without its one-line '#' provenance header."""
    header, _, rest = path.read_text().partition("\n")
    assert header.startswith("# "), f"{path} lacks its provenance header"
    return rest


def captured(case: str) -> RunFacts:
    facts = json.loads(body(LOGS / case / "facts.json"))
    loss = facts["heartbeat_loss"]
    return RunFacts(run_id=case, exit_code=facts["exit_code"],
                    heartbeat=None if loss is None else {"loss": float(loss), "step": 40},
                    train_log=body(LOGS / case / "train.log"),
                    job_log=body(LOGS / case / "job.log"))


@pytest.mark.parametrize(("case", "state", "oom_kills", "cause", "evidence"), [
    ("disk_full", FAILED, 0, "disk_full", "[Errno 28] No space left on device"),
    ("cuda_oom", FAILED, 0, "cuda_oom", "torch.OutOfMemoryError: CUDA out of memory"),
    ("sigkill", FAILED, 1, "host_oom", "exit 137"),
    ("sigkill", FAILED, None, "host_oom", "count: unknown"),
    ("code_error", FAILED, 0, "code_error",
     "RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x32 and 64x10)"),
    ("preempted", PREEMPTED, 0, "preempted", "exit 75"),
    ("user_error", FAILED, 0, "user_error", "run 0123456789abcdef is not in the plan"),
    ("dead", DEAD, 0, "unknown", "nothing recorded an exit"),
])
def test_each_captured_failure_gets_its_cause(case, state, oom_kills, cause, evidence):
    found = classify(captured(case), state, oom_kills)
    assert found is not None and found.name == cause, found
    assert evidence in found.detail


def test_a_sigkill_without_an_oom_kill_counted_is_not_called_host_oom():
    found = classify(captured("sigkill"), FAILED, oom_kills=0)
    assert found.name == "unknown" and "no OOM kill" in found.detail


def test_disk_full_wins_over_the_misleading_final_runtime_error():
    # torch.save turns ENOSPC into "RuntimeError: [enforce fail ...] unexpected pos" at the end.
    run = captured("disk_full")
    assert "RuntimeError: [enforce fail" in run.job_log.strip().splitlines()[-1]
    assert classify(run, FAILED).name == "disk_full"


def test_nonfinite_loss_is_flagged_on_a_finished_run():
    run = captured("nonfinite")
    assert run.exit_code == 0
    found = classify(run, FINISHED)
    assert found.name == "nonfinite" and "nan" in found.detail


def test_nonfinite_from_the_log_alone():
    run = captured("nonfinite")
    without_heartbeat = RunFacts(run_id="x", train_log=run.train_log)
    assert classify(without_heartbeat, FINISHED).name == "nonfinite"
    assert "train_loss nan" in classify(without_heartbeat, FINISHED).detail


@pytest.mark.parametrize("case", ["finished", "preempted", "code_error"])
def test_healthy_runs_have_no_cause(case):
    assert classify(captured("finished"), FINISHED) is None
    assert classify(RunFacts(run_id="x", train_log=body(LOGS / case / "train.log")),
                    RUNNING) is None


def test_a_stalled_run_gets_a_cause_only_when_the_log_names_one():
    assert classify(captured("dead"), STALLED) is None
    stalled_full = RunFacts(run_id="x", job_log=captured("disk_full").job_log)
    assert classify(stalled_full, STALLED).name == "disk_full"


def test_an_earlier_attempts_failure_is_not_this_attempts():
    earlier = captured("disk_full")
    second = ("2026-11-29 22:00:00,000 INFO resumed from step-000000010.pt (step 10/40)\n"
              "2026-11-29 22:00:01,000 INFO epoch 1/2 step 20/40 train_loss 0.5 val_loss 0.4 "
              "val_accuracy 0.9\n")
    run = RunFacts(run_id="x", train_log=earlier.job_log + second)
    assert last_attempt(run.train_log) == second
    assert classify(run, DEAD).name == "unknown"


def test_a_cut_off_traceback_is_still_a_code_error():
    tail = "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
    assert classify(RunFacts(run_id="x", exit_code=1, job_log=tail), FAILED).name == "code_error"
