"""The host-side mirror: a detached process on the rented host that pushes each run's newest
complete checkpoint to a bucket the user owns, so that neither a closed laptop nor a killed
controller stops checkpoints from leaving the host.

Started with the jobs (beside the watchdog, one per project root: a lock on
``<root>/mirror/lock``), it checks every interval (fixed-rate, as the controller's mirror;
``rgt.mirror.policy``): for each run whose job runs (and once more when it has ended), it tells
the trainer the checkpoint ceiling (``cadence.json``), and when the host holds a complete
checkpoint newer than the bucket's ``MIRROR.json``, uploads it (``rgt.mirror.bucket_store``:
resumable, its sha256 checked against its marker), then its marker, then the record, the same
``rgt/mirror/v1`` record the controller's mirror writes (``mirrored_by: host``), and prunes the
bucket to the newest two. When no job runs and every run's newest checkpoint is in the bucket,
it exits: it never keeps a machine busy. A bucket it cannot use (unreachable, credentials
refused) is logged in ``<root>/mirror/mirror.log`` and ``status.json``; the jobs go on.
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from rgt.base.clock import utc_now, utc_now_ms
from rgt.base.errors import RgtError
from rgt.base.files import exclusive, read_json, write_json
from rgt.mirror.bucket import BucketTarget
from rgt.mirror.bucket_store import BucketStore
from rgt.mirror.policy import checkpoint_ceiling, mirror_interval
from rgt.mirror.record import FILE_NAME, MirrorRecord
from rgt.remote.jobs import RemoteLayout, parse_probe, probe_script
from rgt.train.cadence import write_ceiling
from rgt.train.checkpoint import CheckpointInfo, CheckpointStore

KEEP = 2
PROBE_TIMEOUT_S = 60
EXIT_BUCKET_UNUSABLE = 3


@dataclass(frozen=True)
class HostMirrorSettings:
    """What ``rgt host-mirror`` was started with."""

    root: str
    target: BucketTarget
    host: str
    every_s: float | None = None
    mtbf_hours: float = 6.0

    @property
    def directory(self) -> Path:
        return Path(self.root) / "mirror"


def log(message: str) -> None:
    """One timestamped line to the mirror's log (its stdout)."""
    print(f"{utc_now()} {message}", flush=True)


def run_host_mirror(settings: HostMirrorSettings) -> int:
    """Mirror until no job runs and the bucket holds every run's newest checkpoint."""
    settings.directory.mkdir(parents=True, exist_ok=True)
    with exclusive(settings.directory / "lock") as held:
        if not held:
            log("another host-side mirror holds the lock of this root: exiting")
            return 0
        store = BucketStore(settings.target, settings.directory / "uploads")
        try:
            store.check()
        except RgtError as error:
            log(f"the bucket cannot be used: {error}; the jobs go on, unmirrored")
            write_json(settings.directory / "status.json",
                       {"updated_at": utc_now(), "target": settings.target.url,
                        "error": str(error)})
            return EXIT_BUCKET_UNUSABLE
        log(f"mirroring {settings.root} to {settings.target.where()}")
        return HostMirror(settings, store).run()


class HostMirror:
    """The loop: every interval, each run's newest checkpoint to the bucket."""

    def __init__(self, settings: HostMirrorSettings, store: BucketStore):
        self.settings, self.store = settings, store
        self.link: float | None = None
        self.largest = 0
        self.last_seconds = 0.0
        self.seen: set[str] = set()
        self.behind: dict[str, str] = {}

    def run(self) -> int:
        while True:
            started = time.monotonic()
            running = running_jobs(self.settings.root)
            self.seen |= running
            current = {run_id: self.mirror_run(run_id, run_id in running)
                       for run_id in sorted(self.seen)}
            self.last_seconds = time.monotonic() - started
            self.write_status(running, current)
            if not running and all(current.values()):
                log("no job runs and the bucket holds every run's newest checkpoint: exiting")
                return 0
            time.sleep(max(0.0, started + self.interval().seconds - time.monotonic()))

    def interval(self):
        return mirror_interval(self.largest, self.settings.mtbf_hours, self.link,
                               self.settings.every_s)

    def mirror_run(self, run_id: str, running: bool) -> bool:
        """One check of one run; True when the bucket holds its newest complete checkpoint."""
        state_dir = Path(self.settings.root) / "checkpoints" / run_id
        interval = self.interval()
        if running:
            write_ceiling(state_dir, checkpoint_ceiling(interval.seconds, self.last_seconds),
                          f"host-side mirror of {self.settings.host}")
        complete = CheckpointStore(state_dir).complete() if state_dir.is_dir() else []
        if not complete:
            return True
        try:
            self.push(run_id, state_dir, complete[0], interval)
        except RgtError as error:
            self.behind[run_id] = f"the mirror failed at {utc_now_ms()}: {error}"
            log(f"mirror of {run_id} failed ({error}); the bucket's copy is intact, retrying "
                "next interval")
            return False
        self.behind.pop(run_id, None)
        return True

    def push(self, run_id: str, state_dir: Path, newest: CheckpointInfo, interval) -> None:
        """Upload ``newest`` (then its marker, then the record) unless the bucket has it."""
        remote = self.store.record(run_id)
        self.largest = max(self.largest, newest.bytes)
        if remote is not None and remote.step >= newest.step:
            return
        sent = self.store.upload(run_id, newest.path, newest.sha256)
        if sent.bytes_sent and sent.seconds > 0:
            self.link = sent.bytes_sent / sent.seconds
        marker = json.loads(newest.marker.read_text(encoding="utf-8"))
        self.store.put_json(self.store.target.key(run_id, newest.marker.name), marker)
        record = self.record(run_id, state_dir, newest, marker, sent, interval)
        self.store.put_json(self.store.target.key(run_id, FILE_NAME), asdict(record))
        self.store.prune(run_id, KEEP)
        log(f"mirrored {run_id} step {newest.step} to {self.settings.target.url} "
            f"({sent.bytes_sent} bytes, sha256 verified)")

    def record(self, run_id: str, state_dir: Path, newest: CheckpointInfo, marker: dict, sent,
               interval) -> MirrorRecord:
        """The ``rgt/mirror/v1`` record of this upload, as the controller's mirror writes it."""
        beat = read_json(state_dir / "heartbeat.json") or {}
        now = utc_now_ms()
        return MirrorRecord(
            run_id, self.settings.host, newest.step, beat.get("total_steps"),
            newest.path.name, newest.bytes, newest.sha256, marker.get("created_at", ""), now,
            round(sent.seconds, 3), sent.bytes_sent, round(interval.seconds, 3),
            beat.get("step"), None, interval.formula(), checked_at=now,
            checkpoint_every_seconds=round(interval.seconds, 3), host_step=newest.step,
            mirrored_by="host")

    def write_status(self, running: set[str], current: dict[str, bool]) -> None:
        """``<root>/mirror/status.json``: what the host-side mirror last did, run by run."""
        write_json(self.settings.directory / "status.json", {
            "updated_at": utc_now(), "target": self.settings.target.url,
            "interval_seconds": round(self.interval().seconds, 3),
            "runs": {run_id: {"running": run_id in running, "up_to_date": done,
                              "behind": self.behind.get(run_id, "")}
                     for run_id, done in current.items()}})


def running_jobs(root: str) -> set[str]:
    """The run ids whose job runs now under ``root`` (the executor's own probe, run here)."""
    jobs = Path(root) / "jobs"
    ids = sorted(path.name for path in jobs.iterdir() if path.is_dir()) if jobs.is_dir() else []
    if not ids:
        return set()
    result = subprocess.run(["bash", "-c", probe_script(RemoteLayout(root), ids)],
                            capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
    return {run_id for run_id, status in parse_probe(result.stdout).items()
            if status.state == "running"}
