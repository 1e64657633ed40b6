"""The spending cap, enforced on the host by its watchdog (the laptop may be closed).

A host costs ``price_per_hour`` × the container's age (what ``rgt watch`` shows as its total);
a run's current attempt costs ``price_per_hour`` × the time since it started. Past the host's
``max_spend`` the watchdog checkpoints every running job (SIGTERM to the trainer: it saves at
the next step and exits 75), waits for them, then runs the host's stop command when auto-stop is
armed, else raises its alarm; past ``max_spend_per_run`` it checkpoints that job alone. A job
stopped for money is marked ``jobs/<run-id>/hold`` (the reason), so the executor does not
relaunch it. Each cap event is posted once to the user's webhook, if one is configured.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from rgt.base.clock import utc_now
from rgt.base.files import write_json
from rgt.watch.collect import Snapshot
from rgt.watch.rows import cost_so_far
from rgt.watch.states import ACTIVE, RunFacts

HOLD = "hold"
WEBHOOK_TIMEOUT_S = 10


@dataclass(frozen=True)
class Caps:
    """The money facts the watchdog was started with (``rgt watchdog`` options)."""

    price_per_hour: float | None = None
    max_spend: float | None = None
    max_spend_per_run: float | None = None
    currency: str = ""
    host: str = "this host"
    grace_s: float = 300.0

    @property
    def armed(self) -> bool:
        return self.price_per_hour is not None and bool(self.max_spend or self.max_spend_per_run)

    def money(self, amount: float) -> str:
        return f"{amount:.2f} {self.currency}".strip()


def host_spend(caps: Caps, snapshot: Snapshot) -> float | None:
    """What the host has cost so far (None without a price or an uptime)."""
    if caps.price_per_hour is None or snapshot.uptime_s is None:
        return None
    return snapshot.uptime_s / 3600 * caps.price_per_hour


def over_host_cap(caps: Caps, snapshot: Snapshot) -> str | None:
    """Why the host is past its cap, or None."""
    spent = host_spend(caps, snapshot)
    if caps.max_spend is None or spent is None or spent < caps.max_spend:
        return None
    return (f"spending cap: {caps.host} has cost {caps.money(spent)} (up "
            f"{snapshot.uptime_s / 3600:.2f} h at {caps.money(caps.price_per_hour)}/h), its "
            f"max_spend is {caps.money(caps.max_spend)}")


def runs_over_cap(caps: Caps, snapshot: Snapshot, states: dict[str, str]) -> dict[str, str]:
    """The active runs past ``max_spend_per_run`` that are not held yet: why, by run id."""
    if caps.max_spend_per_run is None:
        return {}
    found = {}
    for facts in snapshot.runs:
        state = states.get(facts.run_id)
        spent = cost_so_far(facts, state, snapshot.now, caps.price_per_hour)
        if state in ACTIVE and spent is not None and spent >= caps.max_spend_per_run:
            found[facts.run_id] = (f"spending cap: run {facts.run_id} has cost "
                                   f"{caps.money(spent)} on {caps.host}, its max_spend_per_run "
                                   f"is {caps.money(caps.max_spend_per_run)}")
    return found


def checkpoint_jobs(root: str, runs: list[RunFacts], reason: str) -> list[str]:
    """Mark each job held (``reason``) and SIGTERM its trainer; the run ids signalled.

    The trainer checkpoints at its next step boundary and exits 75. The job's wrapper (its
    process group's leader) is left alone: it records that exit code.
    """
    signalled = []
    for facts in runs:
        if facts.pid is None:
            continue
        job = Path(root) / "jobs" / facts.run_id
        write_json(job / HOLD, {"held_at": utc_now(), "reason": reason})
        for pid in group_members(facts.pid):
            if pid != facts.pid:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGTERM)
        signalled.append(facts.run_id)
    return signalled


def group_members(group: int) -> list[int]:
    """The processes of a process group (read from /proc)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == group:
                members.append(int(stat.parent.name))
    return members


def notify(webhook_file: str | None, body: dict, log) -> None:
    """POST ``body`` as JSON to the URL kept in ``webhook_file`` (mode 600); log, never raise:
    an unreachable webhook must not keep a capped host billing."""
    if not webhook_file:
        return
    try:
        url = Path(webhook_file).read_text().strip()
        request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=WEBHOOK_TIMEOUT_S) as reply:
            log(f"webhook: posted {body['kind']} ({reply.status})")
    except (OSError, ValueError, urllib.error.URLError) as error:
        log(f"webhook: could not post {body['kind']} ({error}); the alarm stands on the host")
