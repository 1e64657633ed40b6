"""Copy a run's newest complete checkpoint off the host, and back onto a new host.

A mirrored checkpoint arrives through ``rgt.remote.transfer.pull`` (resumable ``.part`` files,
sha256 checked against the host's marker), its marker is placed only after the checkpoint file,
and ``MIRROR.json`` is rewritten only after the store accepts the pair: an interrupted mirror
leaves a ``.part`` file beside the previous good checkpoint, never in its place.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from rgt.base.clock import parse_time, utc_now_ms
from rgt.base.errors import RgtError
from rgt.base.files import write_json
from rgt.base.hashing import sha256_file
from rgt.mirror.record import MirrorRecord, read_mirror
from rgt.mirror.state_listing import SMALL_FILES, Marker, StateSurvey, parse_survey, survey_command
from rgt.remote.ssh import RemoteHost
from rgt.remote.transfer import pull, push
from rgt.train.checkpoint import CheckpointStore

KEEP = 2
log = logging.getLogger("rgt.mirror")


@dataclass(frozen=True)
class MirrorTarget:
    """One run: its state directory on the host and its mirror here."""

    run_id: str
    remote_dir: str
    local_dir: Path


def survey(host: RemoteHost, python: str, remote_dir: str) -> StateSurvey:
    """The host's view of one run's state directory (one short command)."""
    result = host.run(survey_command(python, remote_dir), timeout=60)
    try:
        return parse_survey(result.stdout)
    except (ValueError, KeyError, TypeError) as error:
        raise RgtError(f"{host.spec.alias} sent an unreadable checkpoint survey ({error})",
                       f"check that {python} runs on the host") from None


def mirror_once(host: RemoteHost, python: str, target: MirrorTarget,
                interval_seconds: float, interval_formula: str = "") -> MirrorRecord | None:
    """Mirror the newest complete checkpoint if it is newer than the mirror's; the record.

    Returns the (possibly unchanged) mirror record, or None when neither side has one.
    Raises ``RgtError`` (incl. ``TransferError``) when a transfer fails: the previous mirror
    stays as it was.
    """
    state = survey(host, python, target.remote_dir)
    previous = read_mirror(target.local_dir)
    newest = state.newest
    _pull_small_files(host, target, state)
    if newest is None or (previous and previous.step >= newest.step
                          and _still_holds(target.local_dir, previous)):
        return previous
    stats = pull(host, target.remote_dir, [newest.file], target.local_dir,
                 expected={newest.file: newest.sha256})
    # The marker goes last, as the host's own store writes it (from the survey: the host may
    # prune this checkpoint meanwhile).
    write_json(target.local_dir / newest.marker_file, newest.body)
    _check_arrival(target.local_dir, newest)
    record = MirrorRecord(
        target.run_id, host.spec.alias, newest.step, _total_steps(state), newest.file,
        newest.bytes, newest.sha256, newest.created_at, utc_now_ms(), stats.seconds,
        stats.bytes_sent, interval_seconds, state.remote_step, _step_seconds(previous, state),
        interval_formula)
    record.write(target.local_dir)
    _prune(target.local_dir)
    return record


def _pull_small_files(host: RemoteHost, target: MirrorTarget, state: StateSurvey) -> None:
    """Logs, status and heartbeat: best effort (they change while we copy them)."""
    names = [name for name in SMALL_FILES if name in state.small_files]
    if not names:
        return
    try:
        pull(host, target.remote_dir, names, target.local_dir)
    except RgtError as error:
        log.info("small files of %s not mirrored this time: %s", target.run_id, error)


def _check_arrival(local_dir: Path, marker: Marker) -> None:
    store = CheckpointStore(local_dir, keep=KEEP)
    if not any(info.step == marker.step and info.sha256 == marker.sha256
               for info in store.complete()):
        raise RgtError(f"mirrored {marker.file} in {local_dir} does not match its marker",
                       "the next mirror fetches it again; the previous mirror is untouched")


def _still_holds(local_dir: Path, record: MirrorRecord) -> bool:
    path = Path(local_dir) / record.file
    return path.is_file() and path.stat().st_size == record.bytes


def _total_steps(state: StateSurvey) -> int | None:
    for record in (state.heartbeat, state.status):
        if record and isinstance(record.get("total_steps"), int):
            return record["total_steps"]
    return None


def _step_seconds(previous: MirrorRecord | None, state: StateSurvey) -> float | None:
    """Seconds per step from two heartbeats (the previous mirror's and now)."""
    beat = state.heartbeat
    if not (previous and previous.remote_step is not None and beat and beat.get("updated_at")):
        return previous.step_seconds if previous else None
    steps = beat["step"] - previous.remote_step
    seconds = (parse_time(beat["updated_at"]) - parse_time(previous.mirrored_at)).total_seconds()
    return seconds / steps if steps > 0 and seconds > 0 else previous.step_seconds


def _prune(local_dir: Path) -> None:
    """Keep the newest ``KEEP`` complete mirrored checkpoints; delete older ones, marker first."""
    for info in CheckpointStore(local_dir, keep=KEEP).complete()[KEEP:]:
        info.marker.unlink(missing_ok=True)
        info.path.unlink(missing_ok=True)


def seed_host(host: RemoteHost, python: str, target: MirrorTarget) -> int | None:
    """Push the mirror's newest checkpoint to a host that holds an older one (or none).

    Returns the step pushed, or None when the host already has as new a checkpoint (or there
    is no mirror). The checkpoint file goes first and its marker second, both sha256-verified,
    so the trainer on the host never sees a marker without its file.
    """
    newest = next((info for info in CheckpointStore(target.local_dir, keep=KEEP).complete()
                   if sha256_file(info.path) == info.sha256), None)
    if newest is None:
        return None
    remote = survey(host, python, target.remote_dir).newest
    if remote is not None and remote.step >= newest.step:
        return None
    push(host, {newest.path.name: newest.path}, target.remote_dir)
    extra = {name: target.local_dir / name for name in ("status.json",)
             if (target.local_dir / name).is_file()}
    push(host, {newest.marker.name: newest.marker, **extra}, target.remote_dir)
    return newest.step
