"""The controller record, the live-controller check (pid, argv and start time), the refusal,
profile resolution and the supervisor's exit code: real files and real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from rgt.base.errors import ConfigError, RgtError
from rgt.cli import main
from rgt.controller.detach import refuse_if_running
from rgt.controller.profile import resolve_profile, split_targets
from rgt.controller.record import (
    SCHEMA,
    ControllerRecord,
    is_alive,
    process_start,
    read_record,
    record_path,
    state,
    write_record,
)
from rgt.controller.show import controller_line


def make_record(project: Path, pid: int, **changes) -> ControllerRecord:
    directory = project / ".rgt" / "controller"
    record = ControllerRecord(
        pid=pid, pgid=pid, sid=pid, proc_start=process_start(pid),
        argv=["snakemake", "--profile", "local"], profile="local", targets=["all"], extra=[],
        cwd=str(project), log=str(directory / "20260101T000000Z.log"),
        exit_file=str(directory / "20260101T000000Z.exit.json"),
        started_at="2026-01-01T00:00:00+00:00", host="laptop")
    return replace(record, **changes)


@pytest.fixture
def fake_controller(tmp_path):
    """A live process whose argv looks like the supervisor's (names Snakemake and the exit
    file), so the live-controller check has something real to find; killed at teardown."""
    exit_file = tmp_path / ".rgt" / "controller" / "20260101T000000Z.exit.json"
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)",
                                str(exit_file), "--", "snakemake"])
    yield process
    process.kill()
    process.wait(timeout=10)


def test_record_round_trips_through_the_file(tmp_path):
    record = make_record(tmp_path, os.getpid())
    write_record(tmp_path, record)
    assert json.loads(record_path(tmp_path).read_text())["schema"] == SCHEMA
    assert read_record(tmp_path) == record


def test_no_record_is_none_and_a_broken_one_names_its_file(tmp_path):
    assert read_record(tmp_path) is None
    path = record_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"schema": SCHEMA, "pid": 12}))
    with pytest.raises(RgtError, match="lacks .*argv") as caught:
        read_record(tmp_path)
    assert str(path) in caught.value.message and "delete" in caught.value.fix
    path.write_text(json.dumps({"schema": "other/v9"}))
    with pytest.raises(RgtError, match="not a controller record"):
        read_record(tmp_path)


def test_refusal_names_the_live_controllers_pid_and_log(tmp_path, fake_controller):
    record = make_record(tmp_path, fake_controller.pid)
    write_record(tmp_path, record)
    assert is_alive(record) and state(record) == ("running", None)
    with pytest.raises(RgtError) as caught:
        refuse_if_running(tmp_path)
    assert f"pid {fake_controller.pid}" in caught.value.message
    assert record.log in caught.value.message and "rgt run --stop" in caught.value.fix


def test_a_recycled_or_dead_pid_is_not_a_live_controller(tmp_path, fake_controller):
    live = make_record(tmp_path, fake_controller.pid)
    # The same pid running something else (here: pytest itself), or started at another time.
    assert not is_alive(replace(live, pid=os.getpid(), proc_start=process_start(os.getpid())))
    assert not is_alive(replace(live, proc_start=live.proc_start + 1))
    assert not is_alive(replace(live, exit_file=str(tmp_path / "another.exit.json")))
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, timeout=30)
    dead = replace(live, pid=int(finished.stdout))
    assert not is_alive(dead) and state(dead) == ("lost", None)
    write_record(tmp_path, dead)
    refuse_if_running(tmp_path)  # a stale record does not block a new controller


def test_a_finished_controller_shows_its_exit_code(tmp_path):
    record = make_record(tmp_path, 999_999_999)
    Path(record.exit_file).parent.mkdir(parents=True)
    Path(record.exit_file).write_text(json.dumps({"exit_code": 3}))
    write_record(tmp_path, record)
    assert state(record) == ("exited", 3)
    line = controller_line(tmp_path)
    assert "exited 3" in line.plain and record.log in line.plain and line.style == "red"
    assert controller_line(tmp_path / "elsewhere") is None


def test_profile_resolves_to_the_projects_folder_a_path_or_an_error(tmp_path):
    (tmp_path / "profiles" / "local").mkdir(parents=True)
    (tmp_path / "mine").mkdir()
    assert resolve_profile("local", tmp_path) == str((tmp_path / "profiles" / "local").resolve())
    assert resolve_profile("mine", tmp_path) == str((tmp_path / "mine").resolve())
    with pytest.raises(ConfigError) as caught:
        resolve_profile("autodll", tmp_path)
    message = caught.value.message
    assert "PROFILE 'autodll'" in message and "profiles/autodll" in message
    assert "local" in caught.value.fix


def test_targets_and_snakemake_options_are_split():
    assert split_targets([]) == ([], [])
    assert split_targets(["all", "figures"]) == (["all", "figures"], [])
    assert split_targets(["all", "--", "-n", "x"]) == (["all"], ["-n", "x"])
    assert split_targets(["all", "--cores", "2"]) == (["all"], ["--cores", "2"])


def test_cli_errors_name_the_argument_and_the_fix(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["run"]) == 2
    assert "needs a PROFILE" in capsys.readouterr().err
    assert main(["run", "nowhere"]) == 2
    assert "PROFILE 'nowhere'" in capsys.readouterr().err
    (tmp_path / "profiles" / "local").mkdir(parents=True)
    assert main(["run", "local", "all", "--detach"]) == 2
    assert "put it before PROFILE" in capsys.readouterr().err
    assert main(["run", "--stop"]) == 0
    assert "no detached controller runs" in capsys.readouterr().out


@pytest.mark.parametrize(("script", "code"), [
    ("import sys; sys.exit(3)", 3),
    ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", 128 + 9),
])
def test_supervisor_records_the_exit_code(tmp_path, script, code):
    exit_file = tmp_path / "run.exit.json"
    result = subprocess.run([sys.executable, "-m", "rgt.controller.supervise", str(exit_file),
                             "--", sys.executable, "-c", script], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == code
    assert json.loads(exit_file.read_text())["exit_code"] == code
    assert f"snakemake exited with {code}" in result.stdout
