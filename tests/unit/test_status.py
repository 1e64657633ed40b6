"""Run states computed from files: planned, running, finished, failed (with the reason)."""

from __future__ import annotations

import json
import os
import socket

from rgt.grid.status_command import run_state


def _write(path, document):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))


def _status(state, pid, host=None):
    return {"state": state, "pid": pid, "host": host or socket.gethostname(), "step": 40,
            "total_steps": 240, "error": "ValueError: boom"}


def test_no_files_means_planned(tmp_path):
    assert run_state(tmp_path / "run", tmp_path / "state")[0] == "planned"


def sealed(run_dir, **record):
    """A sealed run directory: its files, then run.json listing their sizes."""
    run_dir.mkdir(parents=True, exist_ok=True)
    for name in ("config.yaml", "train.csv", "model.pt"):
        (run_dir / name).write_text(f"{name}\n")
    files = {name: {"bytes": len(name) + 1} for name in ("config.yaml", "train.csv", "model.pt")}
    _write(run_dir / "run.json", {"run_id": run_dir.name, "status": "finished", "steps": 240,
                                  "attempts": 2, "files": files, **record})


def test_sealed_run_is_finished(tmp_path):
    sealed(tmp_path / "run")
    assert run_state(tmp_path / "run", tmp_path / "state") == ("finished",
                                                               "240 steps, 2 attempt(s)")


def test_a_truncated_record_or_a_short_file_is_damaged_never_finished(tmp_path):
    sealed(tmp_path / "run")
    _write(tmp_path / "state" / "status.json", {**_status("finished", 1), "step": 240})
    record = (tmp_path / "run" / "run.json").read_text()
    (tmp_path / "run" / "run.json").write_text(record[: len(record) // 2])  # torn
    state, detail = run_state(tmp_path / "run", tmp_path / "state")
    assert state == "damaged" and "run.json is damaged (not complete JSON)" in detail
    assert "rerun `rgt train --run-id run`" in detail
    (tmp_path / "run" / "run.json").write_text(record)
    (tmp_path / "run" / "model.pt").write_text("m")
    assert run_state(tmp_path / "run", tmp_path / "state") == (
        "damaged", "model.pt has 1 bytes, its seal says 9; rerun `rgt train --run-id run` to "
                   "seal it again from its checkpoints (or move it aside and `rgt restore` the "
                   "shared copy)")


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


def test_the_newest_complete_checkpoint_is_shown_with_where_it_is_and_its_age(tmp_path):
    from datetime import datetime, timedelta, timezone

    import torch

    from rgt.grid.status_command import newest_checkpoint
    from rgt.mirror.record import MirrorRecord
    from rgt.train.checkpoint import CheckpointStore

    state_dir = tmp_path / "state"
    assert newest_checkpoint(state_dir) is None
    store = CheckpointStore(state_dir)
    store.save(10, {"w": torch.zeros(2)})
    saved = store.save(20, {"w": torch.ones(2)})
    (state_dir / "step-000000030.pt").write_bytes(b"torn")  # no marker: never counted
    later = datetime.now(timezone.utc) + timedelta(minutes=12)
    found = newest_checkpoint(state_dir, later)
    assert (found["where"], found["host"], found["step"]) == ("local", None, 20)
    assert found["text"] == "local: step 20, 12 min old" and 715 < found["age_seconds"] < 725
    MirrorRecord("r", "gpu1", 20, 1000, saved.path.name, saved.bytes, saved.sha256,
                 found["saved_at"], found["saved_at"], 1.0, saved.bytes, 60.0).write(state_dir)
    found = newest_checkpoint(state_dir, later)
    assert (found["where"], found["host"]) == ("mirror", "gpu1")
    assert found["text"] == "mirror of gpu1: step 20, 12 min old"


def test_status_json_and_table_carry_the_checkpoint_column(tmp_path, tiny_config, capsys,
                                                           monkeypatch):
    import torch
    import yaml

    from rgt.cli import main
    from rgt.config import load_config
    from rgt.plan.runplan import plan_runs
    from rgt.train.checkpoint import CheckpointStore

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "250")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(tiny_config))
    first = plan_runs(load_config("config/config.yaml"))[0].run_id
    CheckpointStore(tmp_path / "checkpoints" / first).save(7, {"w": torch.zeros(1)})
    assert main(["status", "--json"]) == 0
    rows = {row["run_id"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows[first]["checkpoint"]["step"] == 7
    assert [row["checkpoint"] for run_id, row in rows.items() if run_id != first] == [None] * 3
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "newest checkpoint" in out and "local: step 7, 0 min old" in out


def test_the_table_says_which_finished_runs_are_not_shared_yet(capsys):
    from rgt.grid.status_command import _print_table

    row = {"run_id": "a" * 16, "exp_id": "e", "variant": "v", "seed": 0, "state": "finished",
           "detail": "1 steps", "in_plan": True, "metrics": {}, "checkpoint": None}
    _print_table([{**row, "shared": False}, {**row, "run_id": "b" * 16, "shared": True}])
    out = " ".join(capsys.readouterr().out.split())
    assert out.count("not shared yet") == 1


def test_a_copy_without_the_optional_files_is_still_the_sealed_run(tmp_path):
    sealed(tmp_path / "run")
    record = json.loads((tmp_path / "run" / "run.json").read_text())
    record["files"]["events.out.tfevents.1.host"] = {"bytes": 648}  # not brought from a host
    (tmp_path / "run" / "run.json").write_text(json.dumps(record))
    assert run_state(tmp_path / "run", tmp_path / "state")[0] == "finished"
    (tmp_path / "run" / "model.pt").unlink()
    assert run_state(tmp_path / "run", tmp_path / "state")[0] == "damaged"
