"""The controller as ``rgt watch`` and ``rgt run --status`` show it: one line of text."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from rich.text import Text

from rgt.base.clock import duration
from rgt.base.errors import RgtError
from rgt.controller.record import ControllerRecord, read_record, state

STYLES = {"running": "cyan", "exited": "green", "failed": "red", "lost": "red"}


def describe(record: ControllerRecord) -> tuple[str, str]:
    """The controller's line and its style name."""
    status, code = state(record)
    what = " ".join([record.profile, *record.targets]) or record.profile
    since = f"started {record.started_at} ({_age(record.started_at)} ago)"
    if status == "running":
        head = f"running, pid {record.pid}"
    elif status == "exited":
        head = f"exited {code}, pid {record.pid}"
        status = "exited" if code == 0 else "failed"
    else:
        head = f"gone without an exit code (killed?), pid {record.pid}"
    return (f"controller on {record.host}: {head}, profile {what}, {since}, "
            f"log {record.log}"), status


def controller_line(project: Path) -> Text | None:
    """The project's detached controller for the watch view, or None when it never had one."""
    try:
        record = read_record(project)
    except RgtError as error:
        return Text(f"controller: {error.message}", style="yellow")
    if record is None:
        return None
    line, status = describe(record)
    return Text(line, style=STYLES[status])


def _age(started_at: str) -> str:
    try:
        started = datetime.fromisoformat(started_at)
    except ValueError:
        return "?"
    return duration((datetime.now(timezone.utc) - started).total_seconds())
