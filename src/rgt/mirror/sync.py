"""Copy a run's newest complete checkpoint off the host, and back onto a new host.

A mirrored checkpoint arrives through ``rgt.remote.transfer.pull`` (resumable ``.part`` files,
sha256 checked against the host's marker), its marker is placed only after the checkpoint file,
and ``MIRROR.json`` is rewritten only after the store accepts the pair: an interrupted mirror
leaves a ``.part`` file beside the previous good checkpoint, never in its place.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
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


def survey(host: RemoteHost, python: str, remote_dir: str, ceiling_seconds: float | None = None
           ) -> StateSurvey:
    """The host's view of one run's state directory (one short command), which also tells the
    trainer the checkpoint ceiling when one is planned."""
    command = survey_command(python, remote_dir, ceiling_seconds, f"mirror of {host.spec.alias}")
    result = host.run(command, timeout=60)
    try:
        return parse_survey(result.stdout)
    except (ValueError, KeyError, TypeError) as error:
        raise RgtError(f"{host.spec.alias} sent an unreadable checkpoint survey ({error})",
                       f"check that {python} runs on the host") from None


@dataclass(frozen=True)
class MirrorPlan:
    """What one mirror is asked to keep: its interval (and why), and the checkpoint ceiling
    told to the trainer (None: the checkpoint cadence is not planned with the mirror)."""

    interval_seconds: float
    formula: str = ""
    ceiling_seconds: float | None = None


def mirror_once(host: RemoteHost, python: str, target: MirrorTarget,
                interval_seconds: float | MirrorPlan, interval_formula: str = ""
                ) -> MirrorRecord | None:
    """Mirror the newest complete checkpoint if it is newer than the mirror's; the record.

    ``interval_seconds`` is the interval in force, or the whole ``MirrorPlan``. Every call
    rewrites ``MIRROR.json`` (when there is a mirrored checkpoint) with when it looked, the
    plan, the host's newest checkpoint and why the mirror is behind, if it is. Returns the
    record, or None when neither side has a checkpoint. Raises ``RgtError`` (incl.
    ``TransferError``) when a transfer fails: the previous mirror stays as it was.
    """
    plan = interval_seconds if isinstance(interval_seconds, MirrorPlan) else MirrorPlan(
        float(interval_seconds), interval_formula)
    state = survey(host, python, target.remote_dir, plan.ceiling_seconds)
    previous = read_mirror(target.local_dir)
    newest = state.newest
    _pull_small_files(host, target, state)
    if newest is None or (previous and previous.step >= newest.step
                          and _still_holds(target.local_dir, previous)):
        record = previous
    else:
        record = _mirror_newest(host, target, state, previous, plan)
    if record is None:
        return None
    record = replace(record, **checked(plan, state))
    record.write(target.local_dir)
    return record


def _mirror_newest(host: RemoteHost, target: MirrorTarget, state: StateSurvey,
                   previous: MirrorRecord | None, plan: MirrorPlan) -> MirrorRecord:
    """Copy the host's newest complete checkpoint here (file, then marker), record it with
    the plan (a reader never sees a record without its bound), then prune."""
    newest = state.newest
    stats = pull(host, target.remote_dir, [newest.file], target.local_dir,
                 expected={newest.file: newest.sha256})
    # The marker goes last, as the host's own store writes it (from the survey: the host may
    # prune this checkpoint meanwhile).
    write_json(target.local_dir / newest.marker_file, newest.body)
    _check_arrival(target.local_dir, newest)
    record = MirrorRecord(
        target.run_id, host.spec.alias, newest.step, _total_steps(state), newest.file,
        newest.bytes, newest.sha256, newest.created_at, utc_now_ms(), stats.seconds,
        stats.bytes_sent, 0.0, state.remote_step, _step_seconds(previous, state))
    record = replace(record, **checked(plan, state))
    record.write(target.local_dir)
    prune(target.local_dir)
    return record


def checked(plan: MirrorPlan, state: StateSurvey) -> dict:
    """The fields every check refreshes: when, the plan, the host's newest checkpoint, and
    why the mirror is behind (the trainer not checkpointing within the plan)."""
    newest = state.newest
    return {"checked_at": utc_now_ms(), **stated(plan),
            "host_step": newest.step if newest else None,
            "behind": _late_checkpoint(plan, state)}


def stated(plan: MirrorPlan) -> dict:
    """The record's fields that state the plan: the interval, why, and the checkpoint
    interval planned with it (the interval itself; None when the cadence is not planned)."""
    interval = round(plan.interval_seconds, 3)
    return {"interval_seconds": interval, "interval_formula": plan.formula,
            "checkpoint_every_seconds": None if plan.ceiling_seconds is None else interval}


def _late_checkpoint(plan: MirrorPlan, state: StateSurvey) -> str:
    """Why no new checkpoint reached the mirror although the plan promised one, if so."""
    newest, status = state.newest, state.status or {}
    if plan.ceiling_seconds is None or newest is None or status.get("state") != "running" \
            or state.now is None:
        return ""
    try:
        age = state.now - parse_time(newest.created_at).timestamp()
    except ValueError:
        return ""
    if age <= plan.interval_seconds:
        return ""
    return (f"the host's newest checkpoint (step {newest.step}) is {age:.0f} s old: the "
            f"trainer has not checkpointed within the planned {plan.interval_seconds:.0f} s "
            "(a save slower than a tenth of the interval, or a stalled trainer)")


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


def prune(local_dir: Path) -> None:
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
