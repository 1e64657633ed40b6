"""`rgt doctor --log`: the captured real failure logs (tests/data/logs/<case>/, see
test_watch_classify.py) classified by rgt watch's classifier and mapped to catalogue entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rgt.cli import main

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"


def doctor_log(capsys, case: str, *extra: str) -> dict:
    logs = [str(LOGS / case / "train.log"), str(LOGS / case / "job.log")]
    assert main(["doctor", "--log", logs[0], "--log", logs[1], "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("case", "cause", "evidence", "entries"), [
    ("cuda_oom", "cuda_oom", "CUDA out of memory", {"M2", "M3", "M8", "M4"}),
    ("disk_full", "disk_full", "No space left on device", {"U6", "U7"}),
    ("nonfinite", "nonfinite", "train_loss nan", {"P9", "P8"}),
    ("preempted", "preempted", "preempted at step", {"C3"}),
    ("code_error", "code_error", "mat1 and mat2 shapes cannot be multiplied", set()),
    ("user_error", "user_error", "is not in the plan", set()),
])
def test_each_captured_failure_names_its_entries(capsys, case, cause, evidence, entries):
    report = doctor_log(capsys, case)
    assert report["cause"] == cause and evidence in report["detail"]
    assert entries <= {entry["entry"] for entry in report["entries"]}
    assert report["advice"]
    assert all(entry["fix"] for entry in report["entries"])


def test_a_bare_killed_needs_the_exit_code_to_be_called_host_oom(capsys):
    assert doctor_log(capsys, "sigkill")["cause"] == "unknown"
    report = doctor_log(capsys, "sigkill", "--exit-code", "137", "--oom-kills", "1")
    assert report["cause"] == "host_oom" and "exit 137" in report["detail"]
    assert {"M3", "U41", "U9"} <= {entry["entry"] for entry in report["entries"]}


def test_a_refusal_by_rgt_carries_its_own_fix(capsys):
    report = doctor_log(capsys, "user_error")
    assert "fix: the config, data or training code changed" in report["advice"]


def test_a_finished_run_is_healthy(capsys):
    report = doctor_log(capsys, "finished", "--exit-code", "0")
    assert report["cause"] == "healthy" and report["entries"] == []


def test_the_table_prints_the_cause_and_the_fixes(capsys):
    assert main(["doctor", "--log", str(LOGS / "cuda_oom" / "job.log")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("cause: cuda_oom") and "expandable_segments" in out


def test_a_missing_log_is_a_clear_error(capsys, tmp_path):
    assert main(["doctor", "--log", str(tmp_path / "nope.log")]) == 1
    err = capsys.readouterr().err
    assert "is not a file" in err and "fix:" in err
