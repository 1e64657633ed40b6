"""The controller record ``.rgt/controller/controller.json`` and whether its process still runs.

A pid alone is not proof: after a reboot or a long time the kernel hands the same pid to some
other process. A record counts as alive only when the pid runs, its argv still names this
controller's exit file and Snakemake, and its start time (``/proc/<pid>/stat``) is the recorded
one.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.base.files import write_json
from rgt.base.processes import pid_alive

SCHEMA = "rgt/controller/v1"
CONTROLLER_DIR = Path(".rgt") / "controller"
RECORD_NAME = "controller.json"


@dataclass(frozen=True)
class ControllerRecord:
    """One detached controller: its process, what it runs, and where it writes."""

    pid: int
    pgid: int
    sid: int
    proc_start: int | None
    argv: list[str]
    profile: str
    targets: list[str]
    extra: list[str]
    cwd: str
    log: str
    exit_file: str
    started_at: str
    host: str
    schema: str = field(default=SCHEMA)


def controller_dir(project: Path) -> Path:
    """Where the record, logs, exit files and lock of ``project``'s controller live."""
    return Path(project) / CONTROLLER_DIR


def record_path(project: Path) -> Path:
    """The controller record of ``project``."""
    return controller_dir(project) / RECORD_NAME


def write_record(project: Path, record: ControllerRecord) -> None:
    """Atomically replace the controller record."""
    write_json(record_path(project), asdict(record))


def parse_record(data: object, source: str) -> ControllerRecord:
    """A record from its JSON mapping; ``RgtError`` naming the file when it is not one."""
    fix = (f"if no controller runs, delete {source}; otherwise stop it "
           "(kill -TERM <pid>) and delete the file")
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise RgtError(f"{source} is not a controller record (schema {SCHEMA} expected)", fix)
    names = set(ControllerRecord.__dataclass_fields__)
    missing = sorted(names - set(data) - {"schema"})
    if missing:
        raise RgtError(f"{source} lacks {', '.join(missing)}", fix)
    record = ControllerRecord(**{name: data[name] for name in names if name in data})
    if not isinstance(record.pid, int) or isinstance(record.pid, bool) or record.pid <= 0:
        raise RgtError(f"{source}: pid {record.pid!r} is not a process id", fix)
    return record


def read_record(project: Path) -> ControllerRecord | None:
    """The project's controller record, or None when no controller was ever started."""
    path = record_path(project)
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise RgtError(f"{path} is not JSON ({error})",
                       f"if no controller runs, delete {path}") from error
    return parse_record(data, str(path))


def process_start(pid: int) -> int | None:
    """The start time of ``pid`` in clock ticks since boot, or None when it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[19])  # field 22 of proc(5); the split drops pid and comm
    except (OSError, IndexError, ValueError):
        return None


def is_alive(record: ControllerRecord) -> bool:
    """The recorded process runs and is still this controller (not a recycled pid)."""
    if not pid_alive(record.pid):
        return False
    try:
        cmdline = Path(f"/proc/{record.pid}/cmdline").read_bytes()
    except OSError:
        return False
    if b"snakemake" not in cmdline or record.exit_file.encode() not in cmdline:
        return False
    return record.proc_start is None or process_start(record.pid) == record.proc_start


def exit_status(record: ControllerRecord) -> dict | None:
    """What the supervisor wrote when Snakemake ended (``exit_code``, ``finished_at``)."""
    try:
        data = json.loads(Path(record.exit_file).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("exit_code"), int) else None


def state(record: ControllerRecord) -> tuple[str, int | None]:
    """``("running", None)``, ``("exited", code)`` or ``("lost", None)``.

    ``lost``: the process is gone without an exit code (SIGKILL, out of memory, a reboot).
    """
    if is_alive(record):
        return "running", None
    finished = exit_status(record)
    if finished is None:
        return "lost", None
    return "exited", finished["exit_code"]
