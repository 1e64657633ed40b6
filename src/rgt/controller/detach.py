"""Start, refuse and stop the detached controller of a project.

The controller runs in its own session (``setsid``), with stdin closed and stdout/stderr on
``.rgt/controller/<timestamp>.log``, so closing the terminal or logging out does not reach it.
An exclusive lock on ``.rgt/controller/lock`` makes the check "no live controller" and the
start one step: two ``rgt run --detach`` racing each other still leave one controller.
"""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.controller.record import (
    ControllerRecord,
    controller_dir,
    is_alive,
    process_start,
    read_record,
    write_record,
)


@contextmanager
def controller_lock(project: Path) -> Iterator[None]:
    """Hold the project's controller lock (waits for another ``rgt run`` starting now)."""
    directory = controller_dir(project)
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / "lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def refuse_if_running(project: Path) -> None:
    """``RgtError`` naming the pid and log of a live controller of ``project``."""
    record = read_record(project)
    if record is not None and is_alive(record):
        raise RgtError(
            f"a controller already runs for this project: pid {record.pid} (started "
            f"{record.started_at} on {record.host}), log {record.log}",
            fix=f"follow it with `tail -f {record.log}` or `rgt watch`; stop it with "
                "`rgt run --stop`, or wait until it ends")


def new_log_paths(project: Path) -> tuple[Path, Path]:
    """A fresh ``<timestamp>.log`` and its ``<timestamp>.exit.json`` (never reused)."""
    directory = controller_dir(project).resolve()
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    name, counter = stamp, 1
    while (directory / f"{name}.log").exists():
        counter += 1
        name = f"{stamp}-{counter}"
    return directory / f"{name}.log", directory / f"{name}.exit.json"


def point_latest(log: Path) -> None:
    """Make ``latest.log`` a symlink to ``log`` (replaced atomically)."""
    link = log.parent / "latest.log"
    tmp = log.parent / "latest.log.tmp"
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(log.name)
    os.replace(tmp, link)


def start_detached(project: Path, argv: list[str], profile: str, targets: list[str],
                   extra: list[str]) -> ControllerRecord:
    """Start ``argv`` (Snakemake) under the supervisor in a new session; return its record."""
    project = Path(project).resolve()
    with controller_lock(project):
        refuse_if_running(project)
        log, exit_file = new_log_paths(project)
        command = [sys.executable, "-m", "rgt.controller.supervise", str(exit_file), "--", *argv]
        with open(log, "ab") as out:
            process = subprocess.Popen(command, cwd=project, stdin=subprocess.DEVNULL,
                                       stdout=out, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        record = ControllerRecord(
            pid=process.pid, pgid=os.getpgid(process.pid), sid=os.getsid(process.pid),
            proc_start=process_start(process.pid), argv=argv, profile=profile,
            targets=list(targets), extra=list(extra), cwd=str(project), log=str(log),
            exit_file=str(exit_file),
            started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            host=socket.gethostname())
        write_record(project, record)
        point_latest(log)
    return record


def stop(project: Path) -> ControllerRecord | None:
    """Send SIGTERM to the live controller (the supervisor passes it to Snakemake, which stops
    its local jobs and leaves remote ones running); None when none runs."""
    record = read_record(project)
    if record is None or not is_alive(record):
        return None
    os.kill(record.pid, signal.SIGTERM)
    return record

