"""``MIRROR.json``: what the newest mirrored checkpoint of a run is, where from, and how old.

Written atomically in the run's local state directory (``checkpoints/<run-id>/MIRROR.json``)
only after the mirrored checkpoint arrived complete (its marker parses, size and sha256 match,
``torch.load(weights_only=True)`` accepts it). Readers never contact a host.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from rgt.base.clock import parse_time
from rgt.base.files import read_json, write_json

SCHEMA = "rgt/mirror/v1"
FILE_NAME = "MIRROR.json"


@dataclass(frozen=True)
class MirrorRecord:
    """The newest complete checkpoint of one run held off the host."""

    run_id: str
    host: str
    """The SSH alias it was mirrored from."""
    step: int
    total_steps: int | None
    file: str
    """The checkpoint's file name in the same directory (``step-000000123.pt``)."""
    bytes: int
    sha256: str
    checkpoint_saved_at: str
    """When the host wrote it (the marker's ``created_at``, ISO 8601 UTC)."""
    mirrored_at: str
    transfer_seconds: float
    bytes_sent: int
    interval_seconds: float
    """The mirror interval in force (``rgt.mirror.policy``)."""
    remote_step: int | None = None
    """The host's newest step (its heartbeat) when this mirror was taken."""
    step_seconds: float | None = None
    """Mean seconds per training step measured from the host's heartbeats (None: unknown)."""
    interval_formula: str = ""
    """How ``interval_seconds`` follows from size, link and MTBF (``MirrorInterval.formula``)."""
    checked_at: str = ""
    """When the mirror last looked at the host (every interval, new checkpoint or not)."""
    checkpoint_every_seconds: float | None = None
    """The longest the trainer goes without a checkpoint, as planned with the interval."""
    host_step: int | None = None
    """The host's newest complete checkpoint when it was last checked."""
    behind: str = ""
    """Why the mirror is not keeping its interval (empty while it is)."""
    mirrored_by: str = "controller"
    """``controller`` (pulled by the laptop's mirror) or ``host`` (pushed by the host's own)."""
    schema: str = SCHEMA

    @property
    def loss_bound_seconds(self) -> float | None:
        """The most work (in seconds) a host lost without warning costs: one mirror interval
        plus one checkpoint interval (None when the checkpoint interval is not planned)."""
        if self.checkpoint_every_seconds is None:
            return None
        return self.interval_seconds + self.checkpoint_every_seconds

    def age_seconds(self, now: datetime | None = None) -> float:
        """Seconds since the host saved this checkpoint."""
        now = now or datetime.now(timezone.utc)
        return max(0.0, (now - parse_time(self.checkpoint_saved_at)).total_seconds())

    def write(self, state_dir: Path) -> None:
        """Write ``state_dir/MIRROR.json`` atomically."""
        write_json(Path(state_dir) / FILE_NAME, asdict(self))


def read_mirror(state_dir: Path) -> MirrorRecord | None:
    """The run's mirror record, or None when it has none (or it is not a v1 record)."""
    return record_from(read_json(Path(state_dir) / FILE_NAME))


def record_from(body: object) -> MirrorRecord | None:
    """A mirror record from its parsed JSON (a file here, or a bucket's object); None when it
    is not a v1 record."""
    if not isinstance(body, dict) or body.get("schema") != SCHEMA:
        return None
    fields = set(MirrorRecord.__dataclass_fields__)
    try:
        return MirrorRecord(**{key: value for key, value in body.items() if key in fields})
    except TypeError:
        return None


def newer(*records: MirrorRecord | None) -> MirrorRecord | None:
    """The record of the newest step among ``records`` (None when there is none)."""
    present = [record for record in records if record is not None]
    return max(present, key=lambda record: record.step, default=None)


@dataclass(frozen=True)
class WorkAtRisk:
    """What is lost if the host vanishes now: the work since the newest mirrored checkpoint."""

    steps: int | None
    hours: float

    def describe(self) -> str:
        steps = "an unknown number of" if self.steps is None else str(self.steps)
        return f"{steps} steps (~{self.hours:.2f} h of training)"


def work_at_risk(record: MirrorRecord | None, remote_step: int | None,
                 started_at: datetime | None = None,
                 now: datetime | None = None) -> WorkAtRisk:
    """Steps and hours a host loss would cost, given the host's newest step.

    With no mirror, everything since ``started_at`` (the run's first launch) is at risk.
    Hours come from the steps and the measured step time when both are known, else from the
    age of the newest mirrored checkpoint.
    """
    now = now or datetime.now(timezone.utc)
    if record is None:
        hours = (now - started_at).total_seconds() / 3600 if started_at else 0.0
        return WorkAtRisk(remote_step, max(0.0, hours))
    steps = None if remote_step is None else max(0, remote_step - record.step)
    if steps is not None and record.step_seconds:
        return WorkAtRisk(steps, steps * record.step_seconds / 3600)
    return WorkAtRisk(steps, record.age_seconds(now) / 3600)
