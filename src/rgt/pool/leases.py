"""The controller's own record of where each pooled job runs: ``.rgt/pool/<run-id>.json``.

The record and the job's ``lease`` file on the host carry the same placement ``epoch``. A job
moves to another host only with a new epoch, written here before it is launched there; the old
host's copy, no longer renewed, fences itself (``rgt.remote.jobs.Lease``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from rgt.base.clock import utc_now_ms
from rgt.base.files import read_json, write_json

SCHEMA = "rgt/pool-lease/v1"


@dataclass(frozen=True)
class Placement:
    """Where one job runs (``host``) and under which ``epoch``."""

    run_id: str
    host: str
    epoch: int
    since: str
    schema: str = SCHEMA


class LeaseBook:
    """The placements of one project (one file per job, written atomically)."""

    def __init__(self, project: Path):
        self.directory = Path(project) / ".rgt" / "pool"

    def get(self, run_id: str) -> Placement | None:
        """The job's current placement, or None when it was never placed."""
        body = read_json(self.directory / f"{run_id}.json")
        if not isinstance(body, dict) or body.get("schema") != SCHEMA:
            return None
        return Placement(body["run_id"], body["host"], int(body["epoch"]), body["since"])

    def place(self, run_id: str, host: str) -> Placement:
        """Record the job on ``host``: same epoch if it stays, the next one if it moves."""
        current = self.get(run_id)
        if current is not None and current.host == host:
            return current
        placement = Placement(run_id, host, (current.epoch + 1) if current else 1,
                              utc_now_ms())
        write_json(self.directory / f"{run_id}.json", asdict(placement))
        return placement
