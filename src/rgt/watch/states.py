"""A run's state, computed from facts on the host: its job record, status and heartbeat files.

Never from log lines. The facts come from one snapshot (``rgt.watch.collect``); everything here
is pure so that every case is a unit test.

States:

- ``running``: a process carrying the run id is alive and it showed progress (heartbeat, status
  write or launch) within the host's ``stall_after_s``;
- ``stalled``: alive, but no progress for longer than that;
- ``finished``: sealed (``runs/<id>/run.json``) or exit code 0;
- ``preempted``: exit code 75 (checkpointed on SIGTERM/SIGUSR1; a rerun resumes). Its own
  state, not ``failed``: nothing is wrong with the run, it only needs relaunching;
- ``failed``: any other exit code, or the trainer recorded ``failed`` itself;
- ``dead``: no live process and no exit record (the whole job was killed: OOM, reboot, kill -9).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rgt.base.clock import parse_utc

EXIT_PREEMPTED = 75
RUNNING, STALLED, FINISHED, PREEMPTED, FAILED, DEAD = (
    "running", "stalled", "finished", "preempted", "failed", "dead")
UNREACHABLE = "unreachable"  # the host did not answer: every run's state is unknown
ACTIVE = (RUNNING, STALLED)


@dataclass(frozen=True)
class RunFacts:
    """What one snapshot of the host says about one run (None where the host has no record)."""

    run_id: str
    pid: int | None = None
    alive: bool = False
    exit_code: int | None = None
    launches: int = 0
    launched_at: int | None = None  # mtime of jobs/<id>/pid, seconds since the epoch
    sealed: bool = False
    status: dict | None = None
    heartbeat: dict | None = None
    train_log: str = ""
    job_log: str = ""
    results: dict | None = None  # runs/<id>/results.json on the host (a sealed run's metrics)
    extra: dict = field(default_factory=dict)


def heartbeat_age(facts: RunFacts, now: float) -> float | None:
    """Seconds since the heartbeat was written (host clock), None without a heartbeat."""
    written = parse_utc((facts.heartbeat or {}).get("updated_at"))
    return None if written is None else max(0.0, now - written)


def progress_age(facts: RunFacts, now: float) -> float | None:
    """Seconds since the newest sign of progress: heartbeat, status write or launch.

    A relaunched job has an old heartbeat from its previous attempt; its launch is newer.
    """
    stamps = [parse_utc((facts.heartbeat or {}).get("updated_at")),
              parse_utc((facts.status or {}).get("updated_at")),
              None if facts.launched_at is None else float(facts.launched_at)]
    known = [stamp for stamp in stamps if stamp is not None]
    return max(0.0, now - max(known)) if known else None


def state_of_exit(code: int) -> str:
    """The state an exit code means."""
    if code == 0:
        return FINISHED
    return PREEMPTED if code == EXIT_PREEMPTED else FAILED


def run_state(facts: RunFacts, now: float, stall_after_s: float) -> str:
    """The run's state from its facts (see the module docstring)."""
    if facts.sealed:
        return FINISHED
    if facts.exit_code is not None:
        return state_of_exit(facts.exit_code)
    if facts.alive:
        age = progress_age(facts, now)
        return STALLED if age is not None and age > stall_after_s else RUNNING
    return _recorded_end(facts.status) or DEAD


def _recorded_end(status: dict | None) -> str | None:
    """The end the trainer recorded itself, when no job wrapper recorded an exit code."""
    recorded = (status or {}).get("state")
    if recorded in (FINISHED, FAILED, PREEMPTED):
        return recorded
    return None
