"""The mirror's pure parts: the survey reply parser (on the script's real output), the interval
formula, the mirror record and the work a host loss would cost."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest
import torch

from rgt.mirror.policy import FLOOR_SECONDS, checkpoint_ceiling, mirror_interval
from rgt.mirror.record import MirrorRecord, read_mirror, work_at_risk
from rgt.mirror.state_listing import parse_survey, survey_command
from rgt.train.cadence import CADENCE_FILE, read_ceiling
from rgt.train.checkpoint import CheckpointStore


def surveyed(directory) -> str:
    return subprocess.run(survey_command(sys.executable, str(directory)), capture_output=True,
                          text=True, check=True, timeout=60).stdout


def test_survey_lists_complete_checkpoints_newest_first_and_the_heartbeat(tmp_path):
    store = CheckpointStore(tmp_path, keep=3)
    for step in (5, 10):
        store.save(step, {"w": torch.zeros(3)})
    (tmp_path / "step-000000015.pt").write_bytes(b"torn")  # no marker: still being written
    (tmp_path / "heartbeat.json").write_text(json.dumps({"step": 17, "total_steps": 40}))
    (tmp_path / "train.log").write_text("log\n")
    state = parse_survey(surveyed(tmp_path))
    assert [marker.step for marker in state.complete] == [10, 5]
    assert state.newest.marker_file == "step-000000010.json"
    assert "pt_bytes" not in state.newest.body and state.newest.body["step"] == 10
    assert state.remote_step == 17 and state.small_files["train.log"] == 4


def test_survey_of_a_missing_directory_and_of_a_marker_whose_file_is_short(tmp_path):
    assert parse_survey(surveyed(tmp_path / "absent")).exists is False
    info = CheckpointStore(tmp_path).save(3, {"w": torch.zeros(100)})
    info.path.write_bytes(info.path.read_bytes()[:50])
    assert parse_survey(surveyed(tmp_path)).newest is None


def test_parse_survey_refuses_what_is_not_a_survey():
    with pytest.raises(ValueError, match="mirror-survey"):
        parse_survey('{"schema": "something/else"}')


def test_interval_follows_size_link_and_mtbf():
    small = mirror_interval(1_000_000, mtbf_hours=24, link_bytes_per_s=10e6)
    assert small.seconds == pytest.approx((2 * 24 * 3600 * 0.1) ** 0.5)
    assert mirror_interval(1_000, 24, 1e9).seconds == FLOOR_SECONDS
    slow_link = mirror_interval(10**9, mtbf_hours=0.01, link_bytes_per_s=1e6)
    assert slow_link.seconds == slow_link.transfer_seconds == 1000  # never faster than a copy
    fixed = mirror_interval(10**9, 24, every_seconds=30)
    assert fixed.seconds == 30 and "fixed" in fixed.formula()
    assert "sqrt(2 x MTBF 24 h" in small.formula()


def record(step: int, saved_minutes_ago: float, step_seconds: float | None) -> MirrorRecord:
    saved = datetime.now(timezone.utc) - timedelta(minutes=saved_minutes_ago)
    return MirrorRecord("r1", "gpu1", step, 1000, f"step-{step:09d}.pt", 10, "0" * 64,
                        saved.isoformat().replace("+00:00", "Z"), saved.isoformat(), 1.0, 10,
                        60.0, step, step_seconds)


def test_record_round_trips_and_ignores_other_files(tmp_path):
    written = record(400, 3, 2.0)
    written.write(tmp_path)
    assert read_mirror(tmp_path) == written
    (tmp_path / "MIRROR.json").write_text('{"schema": "rgt/other"}')
    assert read_mirror(tmp_path) is None


def test_work_at_risk_in_steps_and_hours():
    risk = work_at_risk(record(400, 3, 9.0), remote_step=520)
    assert (risk.steps, risk.hours) == (120, pytest.approx(0.3))
    assert "120 steps (~0.30 h" in risk.describe()
    by_age = work_at_risk(record(400, 30, None), remote_step=None)
    assert by_age.steps is None and by_age.hours == pytest.approx(0.5, abs=0.01)
    started = datetime.now(timezone.utc) - timedelta(hours=2)
    assert work_at_risk(None, 50, started_at=started).hours == pytest.approx(2, abs=0.01)


def test_watch_rows_show_the_mirror_its_age_interval_and_the_steps_at_risk(tmp_path):
    from rgt.watch.mirrors import add_mirror_columns
    from rgt.watch.view import mirror_cell, mirror_line

    written = record(400, 3, 9.0)
    written = MirrorRecord(**{**written.__dict__, "interval_formula": "every 60 s = ..."})
    written.write(tmp_path / "r1")
    rows = add_mirror_columns([{"run_id": "r1", "state": "running", "step": 520},
                               {"run_id": "r2", "state": "running", "step": 7},
                               {"run_id": None, "host": "gpu1", "state": "no_runs"}], tmp_path)
    assert (rows[0]["mirror_step"], rows[0]["at_risk_steps"]) == (400, 120)
    assert rows[0]["mirror_interval_s"] == 60.0 and rows[0]["at_risk_hours"] == 0.3
    assert mirror_cell(rows[0]).startswith("step 400, 3m") and "(-120 steps)" in mirror_cell(
        rows[0])
    assert rows[1]["mirror_step"] is None and "none" in mirror_cell(rows[1])
    assert "every 60 s" in mirror_line(rows[0]).plain


def test_the_survey_tells_the_trainer_the_ceiling_once_and_only_where_the_run_exists(tmp_path):
    command = survey_command(sys.executable, str(tmp_path), 4.0, "mirror of gpu1")
    subprocess.run(command, check=True, capture_output=True, timeout=60)
    assert read_ceiling(tmp_path / CADENCE_FILE) == 4.0
    stamp = (tmp_path / CADENCE_FILE).stat().st_mtime_ns
    subprocess.run(command, check=True, capture_output=True, timeout=60)
    assert (tmp_path / CADENCE_FILE).stat().st_mtime_ns == stamp  # unchanged: not rewritten
    subprocess.run(survey_command(sys.executable, str(tmp_path / "absent"), 4.0),
                   check=True, capture_output=True, timeout=60)
    assert not (tmp_path / "absent").exists()  # the trainer creates its directory, not us
    state = parse_survey(surveyed(tmp_path))  # no ceiling planned: the file is left alone
    assert state.now is not None and read_ceiling(tmp_path / CADENCE_FILE) == 4.0


def test_the_checkpoint_ceiling_leaves_room_for_the_copy_within_one_interval():
    assert checkpoint_ceiling(16.0, 0.2) == 15.0  # at least a second of margin
    assert checkpoint_ceiling(60.0, 5.0) == 50.0  # twice the last survey and copy
    assert checkpoint_ceiling(5.0, 10.0) == 1.0  # never below a second


def checked_record(checked_seconds_ago: float, behind: str = "") -> MirrorRecord:
    checked = datetime.now(timezone.utc) - timedelta(seconds=checked_seconds_ago)
    return replace(record(400, 1, 1.0), interval_seconds=5.0, checkpoint_every_seconds=5.0,
                   checked_at=checked.isoformat(), behind=behind)


def test_watch_says_why_the_mirror_is_behind_or_that_nobody_mirrors():
    from rgt.watch.mirrors import behind

    assert behind(checked_record(2), "running") is None
    assert behind(checked_record(2, "the last mirror took 9.0 s"), "running") == (
        "the last mirror took 9.0 s")
    gone = behind(checked_record(60), "running")
    assert "not checked for 60 s" in gone and "controller's mirror" in gone
    assert behind(checked_record(60), "finished") is None  # nothing left to mirror
    assert checked_record(2).loss_bound_seconds == 10.0
