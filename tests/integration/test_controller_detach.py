"""``rgt run --detach`` on the real workflow: the controller outlives its killed parent shell,
refuses a second start while alive, shows in ``rgt watch`` and records Snakemake's exit code.

The copied workflow gets one extra rule, ``gate``, that waits for a ``release`` file, so the
controller stays alive exactly as long as the checks need; next to it one real smoke job runs.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, TINY, rgt
from rgt.controller.record import ControllerRecord, is_alive, read_record
from rgt.plan.runplan import plan_runs

pytestmark = [pytest.mark.integration]
GATE_RULE = """

rule gate:
    output:
        "gate.done",
    shell:
        "while [ ! -e release ]; do sleep 0.2; done; touch {output}"
"""


def wait_for(predicate, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.2)


def gated_project(directory: Path) -> tuple[Path, str]:
    """The workflow, profiles/local and a one-seed tiny config; the smoke target of it."""
    for name in ("Snakefile", "rules"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, directory / name)
    shutil.copytree(ROOT / "profiles" / "local", directory / "profiles" / "local")
    with open(directory / "Snakefile", "a") as handle:
        handle.write(GATE_RULE)
    config = yaml.safe_load(TINY.read_text())
    config["experiments"]["tiny"].update(seeds=[0], variants={"plain": {}})
    (directory / "config").mkdir()
    (directory / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    from rgt.config import load_config

    smoke_id = plan_runs(load_config(str(directory / "config" / "config.yaml")))[0].smoke_id
    return directory, f"smoke/{smoke_id}.json"


def kill_group(pgid: int) -> None:
    for number in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, number)
        except ProcessLookupError:
            return
        time.sleep(1)


@pytest.fixture(scope="module")
def detached(tmp_path_factory):
    """A controller started by a shell in its own session; that session is then hung up and
    SIGKILLed. Yields the project, the smoke target and the controller record."""
    project, smoke = gated_project(tmp_path_factory.mktemp("controller"))
    script = (f"{sys.executable} -m rgt run --detach local gate.done {smoke} -- --cores 2; "
              "sleep 30")
    with open(project / "shell.out", "w") as out:
        shell = subprocess.Popen(["bash", "-c", script], cwd=project, stdout=out,
                                 stderr=subprocess.STDOUT, start_new_session=True)
    record: ControllerRecord | None = None
    try:
        wait_for(lambda: "controller started" in (project / "shell.out").read_text(),
                 "`controller started` from rgt run --detach")
        record = read_record(project)
        os.killpg(shell.pid, signal.SIGHUP)  # what closing the terminal sends
        os.killpg(shell.pid, signal.SIGKILL)
        shell.wait(timeout=30)
        yield project, smoke, record, shell.pid
    finally:
        (project / "release").touch()
        kill_group(shell.pid)
        if record is not None and is_alive(record):
            kill_group(record.pgid)


def processes() -> dict[int, list[str]]:
    """Every live (not zombie) process: pid -> the /proc/<pid>/stat fields after the name."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # a process that ended while we looked
        if fields[0] != "Z":
            found[int(stat.parent.name)] = fields
    return found


def children(pid: int) -> list[int]:
    """The live pids whose parent is ``pid``."""
    return [child for child, fields in processes().items() if int(fields[1]) == pid]


def snakemake_child(pid: int) -> bool:
    """A live child of ``pid`` runs Snakemake."""
    for child in children(pid):
        try:
            if b"snakemake" in Path(f"/proc/{child}/cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


def group_members(pgid: int) -> list[int]:
    """The live pids of process group ``pgid``."""
    return [pid for pid, fields in processes().items() if int(fields[2]) == pgid]


def test_detached_controller_survives_its_killed_parent_shell(detached):
    project, _, record, shell_pid = detached
    wait_for(lambda: not group_members(shell_pid), "end of the parent shell's group", 10)
    assert is_alive(record) and os.getsid(record.pid) == record.pid != shell_pid
    wait_for(lambda: snakemake_child(record.pid), "Snakemake under the supervisor", 30)
    assert record.log.startswith(str(project / ".rgt" / "controller"))
    assert (project / ".rgt" / "controller" / "latest.log").resolve() == Path(record.log)


def test_second_detach_is_refused_naming_pid_and_log(detached):
    project, smoke, record, _ = detached
    result = rgt(["run", "--detach", "local", smoke], project, timeout=60)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"pid {record.pid}" in result.stderr and record.log in result.stderr
    assert read_record(project) == record  # the running controller's record is untouched


def test_watch_shows_the_running_controller(detached):
    project, _, record, _ = detached
    result = rgt(["watch", "--once"], project, timeout=60)
    text = " ".join(result.stdout.split())  # rich wraps long lines at spaces
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"running, pid {record.pid}" in text and record.log in text


def test_released_controller_finishes_and_records_exit_code_zero(detached):
    project, smoke, record, _ = detached
    (project / "release").touch()
    wait_for(lambda: Path(record.exit_file).exists(), "exit code file", timeout=120)
    assert json.loads(Path(record.exit_file).read_text())["exit_code"] == 0
    assert (project / "gate.done").exists() and (project / smoke).exists()
    wait_for(lambda: not is_alive(record), "controller exit", timeout=30)
    text = " ".join(rgt(["watch", "--once"], project, timeout=60).stdout.split())
    assert f"exited 0, pid {record.pid}" in text
    assert "snakemake exited with 0" in Path(record.log).read_text()
