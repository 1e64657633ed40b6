"""Run states computed from files: planned, running, finished, failed (with the reason)."""

from __future__ import annotations

import json
import os
import socket

from rgt.status import run_state


def _write(path, document):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))


def _status(state, pid, host=None):
    return {"state": state, "pid": pid, "host": host or socket.gethostname(), "step": 40,
            "total_steps": 240, "error": "ValueError: boom"}


def test_no_files_means_planned(tmp_path):
    assert run_state(tmp_path / "run", tmp_path / "state")[0] == "planned"


def test_sealed_run_is_finished(tmp_path):
    _write(tmp_path / "run" / "run.json", {"status": "finished", "steps": 240, "attempts": 2})
    assert run_state(tmp_path / "run", tmp_path / "state") == ("finished",
                                                               "240 steps, 2 attempt(s)")


def test_live_process_is_running(tmp_path):
    _write(tmp_path / "state" / "status.json", _status("running", os.getpid()))
    assert run_state(tmp_path / "run", tmp_path / "state") == ("running", "step 40/240")


def test_vanished_process_is_failed_and_resumable(tmp_path):
    _write(tmp_path / "state" / "status.json", _status("running", 2**22 + 12345))
    state, detail = run_state(tmp_path / "run", tmp_path / "state")
    assert state == "failed" and "vanished" in detail and "resume" in detail


def test_other_host_process_is_trusted_as_running(tmp_path):
    _write(tmp_path / "state" / "status.json", _status("running", 1, host="gpu-box-7"))
    assert run_state(tmp_path / "run", tmp_path / "state")[0] == "running"


def test_preempted_and_failed_runs_say_why(tmp_path):
    _write(tmp_path / "state" / "status.json", _status("preempted", 1))
    assert "preempted at step 40/240" in run_state(tmp_path / "run", tmp_path / "state")[1]
    _write(tmp_path / "state" / "status.json", _status("failed", 1))
    assert run_state(tmp_path / "run", tmp_path / "state") == (
        "failed", "ValueError: boom at step 40/240")
