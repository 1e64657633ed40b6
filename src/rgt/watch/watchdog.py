"""The host-side watchdog: keeps run state on the host's disk when no laptop is watching.

Started detached with the jobs (``rgt.remote.watchdog_start``). Every interval it
takes the same snapshot ``rgt watch`` takes (``rgt.watch.collect``, run locally) and writes

    <root>/watchdog/heartbeat.json  {updated_at, started_at, pid, jobs: {run_id: state}, gpu,
                                     idle_since, alarm, auto_stop}
    <root>/watchdog/status.json     {updated_at, runs: {run_id: {state, step, total, loss,
                                     heartbeat_age_s, cause, cause_detail}}}

When no job has been running or stalled for ``idle_alarm_after_s`` (after its jobs ended, or
since it started) it writes ``<root>/watchdog/ALARM``, logs it and, only if the user opted in
with a verb the platform data marks non-destructive, runs the host stop command once and records
it in ``<root>/watchdog/STOPPED``. Then it exits: it never becomes a meter itself.

With a price and a cap (``rgt.watch.spend_cap``) it also enforces the spending cap: past the
host's, it checkpoints the jobs, then stops the host the same way (or alarms) and exits; past a
run's, it checkpoints that job. Each alarm is posted once to the user's webhook, if any.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rgt.base.clock import utc_now
from rgt.base.files import exclusive, read_json, write_json
from rgt.watch.classify import classify
from rgt.watch.collect import Snapshot, SnapshotError, parse_snapshot, snapshot_script
from rgt.watch.rows import json_number, run_progress
from rgt.watch.spend_cap import HOLD, Caps, checkpoint_jobs, notify, over_host_cap, runs_over_cap
from rgt.watch.states import ACTIVE, heartbeat_age, run_state

SNAPSHOT_TIMEOUT_S = 60
STOP_TIMEOUT_S = 300


@dataclass(frozen=True)
class Settings:
    """What the watchdog was started with (``rgt watchdog`` options)."""

    root: str
    interval_s: float = 30.0
    idle_alarm_after_s: float = 1800.0
    stall_after_s: float = 600.0
    auto_stop: bool = False
    stop_irreversible: bool | None = None  # what the controller's platform data says
    stop_command: list[str] = field(default_factory=list)
    caps: Caps = field(default_factory=Caps)
    webhook_file: str | None = None  # holds the alarm webhook's URL (a secret: mode 600)

    @property
    def directory(self) -> Path:
        return Path(self.root) / "watchdog"

    def auto_stop_mode(self) -> str:
        """``off``, ``armed`` or ``refused: <why>`` (an irreversible or unknown verb)."""
        if not self.auto_stop:
            return "off"
        if not self.stop_command:
            return "refused: no --stop-command given"
        if self.stop_irreversible is not False:
            return ("refused: the platform's meter-stop verb is irreversible (or was not "
                    "declared reversible with --stop-irreversible false)")
        return "armed"


def log(message: str) -> None:
    """One timestamped line to the watchdog's log (its stdout)."""
    print(f"{utc_now()} {message}", flush=True)


def run_watchdog(settings: Settings) -> int:
    """Watch until the idle alarm (and stop, when armed); returns the exit code."""
    settings.directory.mkdir(parents=True, exist_ok=True)
    with exclusive(settings.directory / "lock") as held:
        if not held:
            log("another watchdog holds the lock of this root: exiting")
            return 0
        set_aside_previous(settings.directory)
        log(f"watching {settings.root} every {settings.interval_s:g} s; idle alarm after "
            f"{settings.idle_alarm_after_s:g} s; auto-stop {settings.auto_stop_mode()}")
        return _loop(settings)


def _loop(settings: Settings) -> int:
    started = time.time()
    last_active = started
    while True:
        try:
            snapshot = local_snapshot(settings.root)
        except (SnapshotError, subprocess.TimeoutExpired) as error:
            log(f"snapshot failed ({error}); trying again")  # neither idle nor busy: unknown
            time.sleep(settings.interval_s)
            continue
        states = {facts.run_id: run_state(facts, snapshot.now, settings.stall_after_s)
                  for facts in snapshot.runs}
        if any(state in ACTIVE for state in states.values()):
            last_active = snapshot.now
        write_status(settings, snapshot)
        capped = enforce_caps(settings, snapshot, states)
        if capped:
            write_heartbeat(settings, snapshot, states, started, last_active, capped)
            return 0
        idle_for = snapshot.now - last_active
        alarm = None
        if idle_for >= settings.idle_alarm_after_s:
            alarm = raise_alarm(settings, states, last_active, idle_for)
        write_heartbeat(settings, snapshot, states, started, last_active, alarm)
        if alarm:
            return 0
        time.sleep(settings.interval_s)


def local_snapshot(root: str) -> Snapshot:
    """The snapshot ``rgt watch`` would take over SSH, taken here."""
    result = subprocess.run(["bash", "-c", snapshot_script(root)], capture_output=True,
                            text=True, timeout=SNAPSHOT_TIMEOUT_S)
    return parse_snapshot(result.stdout)


def write_status(settings: Settings, snapshot: Snapshot) -> None:
    """``status.json``: every run's computed state, progress and cause."""
    runs = {}
    for facts in snapshot.runs:
        state = run_state(facts, snapshot.now, settings.stall_after_s)
        progress = run_progress(facts, None)
        cause = classify(facts, state, snapshot.oom_kills)
        runs[facts.run_id] = {
            "state": state, "step": progress.step, "total": progress.total,
            "loss": json_number((facts.heartbeat or {}).get("loss")),
            "heartbeat_age_s": heartbeat_age(facts, snapshot.now),
            "cause": cause.name if cause else None,
            "cause_detail": cause.detail if cause else None,
        }
    write_json(settings.directory / "status.json", {"updated_at": utc_now(), "runs": runs})


def write_heartbeat(settings: Settings, snapshot: Snapshot, states: dict[str, str],
                    started: float, last_active: float, alarm: dict | None) -> None:
    """``heartbeat.json``: proof the watchdog lives, and what it last saw."""
    idle = not any(state in ACTIVE for state in states.values())
    write_json(settings.directory / "heartbeat.json", {
        "updated_at": utc_now(), "started_at": utc_now(started), "pid": os.getpid(),
        "jobs": states, "gpu": [asdict(gpu) for gpu in snapshot.gpus or []],
        "idle_since": utc_now(last_active) if idle else None, "alarm": alarm,
        "auto_stop": settings.auto_stop_mode(),
    })


def raise_alarm(settings: Settings, states: dict[str, str], last_active: float,
                idle_for: float) -> dict:
    """Write ``ALARM``, log it, and stop the machine when auto-stop is armed."""
    ended = ", ".join(f"{run_id} {state}" for run_id, state in sorted(states.items()))
    alarm = {"raised_at": utc_now(), "kind": "idle", "idle_since": utc_now(last_active),
             "idle_for_s": round(idle_for, 1), "jobs": states,
             "message": f"host idle for {idle_for:.0f} s with no running job "
                        f"({ended or 'no jobs'}); its meter may still be running"}
    return sound_alarm(settings, alarm, "idle")


def sound_alarm(settings: Settings, alarm: dict, kind: str) -> dict:
    """Write ``ALARM``, log it, stop the machine when auto-stop is armed, post the webhook."""
    write_json(settings.directory / "ALARM", alarm)
    log(f"ALARM: {alarm['message']}")
    mode = settings.auto_stop_mode()
    if mode == "armed":
        stop_machine(settings)
    elif mode != "off":
        log(f"auto-stop {mode}; not stopping the machine")
    stopped = read_json(settings.directory / "STOPPED") if mode == "armed" else None
    notify(settings.webhook_file, {"kind": kind, "host": settings.caps.host,
                                   "message": alarm["message"], "jobs": alarm["jobs"],
                                   "auto_stop": mode, "stopped": stopped}, log)
    return alarm


def enforce_caps(settings: Settings, snapshot: Snapshot, states: dict[str, str]) -> dict | None:
    """Checkpoint the runs past their cap; past the host's, checkpoint every job, stop or alarm,
    and return the alarm (the watchdog then exits). None while the host is within its cap."""
    caps = settings.caps
    if not caps.armed:
        return None
    by_id = {facts.run_id: facts for facts in snapshot.runs}
    for run_id, why in runs_over_cap(caps, snapshot, states).items():
        if not (Path(settings.root) / "jobs" / run_id / HOLD).exists():
            log(f"{why}: checkpointing it")
            checkpoint_jobs(settings.root, [by_id[run_id]], why)
            notify(settings.webhook_file, {"kind": "run_spend_cap", "host": caps.host,
                                           "run_id": run_id, "message": why}, log)
    why = over_host_cap(caps, snapshot)
    if why is None:
        return None
    active = [facts for facts in snapshot.runs if states.get(facts.run_id) in ACTIVE]
    log(f"{why}: checkpointing {', '.join(f.run_id for f in active) or 'no running job'}")
    checkpoint_jobs(settings.root, active, why)
    ended = wait_for_jobs(settings, [facts.run_id for facts in active])
    alarm = {"raised_at": utc_now(), "kind": "spend_cap", "jobs": ended,
             "message": f"{why}; its jobs were checkpointed and stopped "
                        f"({', '.join(f'{k} {v}' for k, v in sorted(ended.items())) or 'none'})"}
    return sound_alarm(settings, alarm, "spend_cap")


def wait_for_jobs(settings: Settings, run_ids: list[str]) -> dict[str, str]:
    """Wait (up to the cap's grace) for the checkpointed jobs to end; their last states."""
    deadline = time.monotonic() + settings.caps.grace_s
    while True:
        try:
            snapshot = local_snapshot(settings.root)
        except (SnapshotError, subprocess.TimeoutExpired):
            snapshot = None
        states = {} if snapshot is None else {
            facts.run_id: run_state(facts, snapshot.now, settings.stall_after_s)
            for facts in snapshot.runs if facts.run_id in run_ids}
        settled = snapshot is not None and not any(s in ACTIVE for s in states.values())
        # The status says "preempted" once the checkpoint is complete; the job has ended once
        # its wrapper recorded the exit code (the machine is not stopped under a live process).
        if (settled and all(_exit_recorded(settings.root, run_id) for run_id in run_ids)) or \
                time.monotonic() >= deadline:
            return states
        time.sleep(min(settings.interval_s, 1.0))


def _exit_recorded(root: str, run_id: str) -> bool:
    return (Path(root) / "jobs" / run_id / "exit_code").is_file()


def stop_machine(settings: Settings) -> None:
    """Run the host stop command once, recording the attempt before and its result after."""
    record = settings.directory / "STOPPED"
    if record.exists():
        log("STOPPED already recorded: not running the stop command again")
        return
    entry = {"started_at": utc_now(), "command": settings.stop_command, "exit_code": None}
    write_json(record, entry)  # first: a machine that goes down mid-command still has it
    log(f"auto-stop: running {settings.stop_command}")
    try:
        done = subprocess.run(settings.stop_command, capture_output=True, text=True,
                              timeout=STOP_TIMEOUT_S)
        entry.update(exit_code=done.returncode, output=(done.stdout + done.stderr)[-2000:])
    except (OSError, subprocess.TimeoutExpired) as error:
        entry.update(error=f"{type(error).__name__}: {error}")
    write_json(record, {**entry, "ended_at": utc_now()})
    log(f"auto-stop finished: {entry.get('exit_code', entry.get('error'))}")


def set_aside_previous(directory: Path) -> None:
    """Rename a previous watchdog's ALARM/STOPPED (kept, never deleted): a new watchdog starts
    with new jobs, and ``rgt watch`` must not show yesterday's alarm as today's."""
    for name in ("ALARM", "STOPPED"):
        path = directory / name
        if path.exists():
            path.rename(directory / f"{name}.{int(path.stat().st_mtime)}")
