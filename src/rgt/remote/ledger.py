"""The launch ledger: every training job started on a host, appended here before it starts.

``.rgt/launches.jsonl`` holds one JSON line per launch (host, remote root, run id, attempt, UTC
time). It is written on this side, so it outlives the host: the teardown gate (``rgt down``)
accounts for every run ever launched on a host from it, whatever config planned the run and
whatever the host still lists. Lines are only appended (one ``write`` each, then fsync), never
rewritten.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from rgt.base.clock import utc_now
from rgt.base.errors import RgtError

LEDGER = Path(".rgt") / "launches.jsonl"
SCHEMA = "rgt/launch/v1"


@dataclass(frozen=True)
class Launch:
    """One launch of a training job: where, which run, which attempt (1 = the first), when."""

    host: str
    root: str
    run_id: str
    attempt: int
    at: str

    def describe(self) -> str:
        return f"attempt {self.attempt}, {self.at}, under {self.root}"


class LedgerError(RgtError):
    """A ledger line cannot be read: the gate cannot account for what it recorded."""


def ledger_path(project: Path) -> Path:
    """The ledger of ``project``."""
    return Path(project) / LEDGER


def record_launch(project: Path, host: str, root: str, run_id: str) -> Launch:
    """Append the launch of ``run_id`` on ``host`` (before the job starts); the entry written."""
    attempt = 1 + sum(1 for entry in launches(project, host) if entry.run_id == run_id
                      and entry.root == root)
    launch = Launch(host, root, run_id, attempt, utc_now())
    path = ledger_path(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"schema": SCHEMA, **asdict(launch)}, sort_keys=True) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    return launch


def launches(project: Path, host: str | None = None) -> list[Launch]:
    """Every launch recorded in ``project`` (on ``host`` only, when given), oldest first.

    Raises:
        LedgerError: a line is not a launch record (named by its number, with the fix).
    """
    path = ledger_path(project)
    if not path.is_file():
        return []
    entries = [parse_line(text, number, path)
               for number, text in enumerate(path.read_text().splitlines(), 1) if text.strip()]
    return [entry for entry in entries if host is None or entry.host == host]


def parse_line(text: str, number: int, path: Path) -> Launch:
    """One ledger line as a ``Launch``; ``LedgerError`` naming the line when it is not one."""
    try:
        record = json.loads(text)
        if record.pop("schema") != SCHEMA:
            raise ValueError("another schema")
        return Launch(**record)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise LedgerError(f"line {number} of {path} is not a launch record ({error}): "
                          f"{text[:160]!r}",
                          f"restore the line from a backup, or, if you know which run it "
                          f"named, check that run by hand and remove the line from {path}"
                          ) from None


def by_root(entries: list[Launch]) -> dict[str, list[Launch]]:
    """The launches grouped by remote root, in the order the roots were first used."""
    grouped: dict[str, list[Launch]] = {}
    for entry in entries:
        grouped.setdefault(entry.root, []).append(entry)
    return grouped
