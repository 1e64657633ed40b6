"""What each host holds of the grid: one short SSH command per host, and its parser.

The command is ``rgt watch``'s snapshot (``rgt.watch.collect``): read-only, one exchange, every
run's job liveness, seal, status and heartbeat. ``host_runs`` turns a parsed snapshot into the
grid's view of each run; ``survey_hosts`` is the only function here that talks. A host that does
not answer (or answers something that is not a complete snapshot) is ``unreachable``: its runs
are unknown, never guessed.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.hosts import HostEntry
from rgt.watch.collect import Snapshot, SnapshotError, parse_snapshot, snapshot_script
from rgt.watch.states import RunFacts

CONNECT_TIMEOUT_S = 10
COMMAND_TIMEOUT_S = 60
FINISHED, RUNNING, PARTIAL = "finished", "running", "partial"


@dataclass(frozen=True)
class HostRun:
    """One run on a host: ``finished`` (sealed there), ``running`` or ``partial``."""

    state: str
    step: int | None = None
    """The newest step the host reports (heartbeat, else status.json); None: unknown."""
    total_steps: int | None = None
    started_at: str | None = None
    """The current attempt's start (status.json), for the loss of a run with no mirror."""


@dataclass(frozen=True)
class HostView:
    """A host's runs, or why it could not be read (``error`` set: unreachable)."""

    alias: str
    runs: dict[str, HostRun] = field(default_factory=dict)
    error: str | None = None

    @property
    def reachable(self) -> bool:
        return self.error is None


def _number(*values: object) -> int | None:
    numbers = [value for value in values if isinstance(value, int) and not isinstance(value, bool)]
    return max(numbers) if numbers else None


def host_run(facts: RunFacts) -> HostRun | None:
    """The grid's view of one snapshot run; None when the host holds nothing of it yet (a job
    record with no status and no heartbeat, not running)."""
    status, beat = facts.status or {}, facts.heartbeat or {}
    step = _number(beat.get("step"), status.get("step"))
    total = _number(beat.get("total_steps"), status.get("total_steps"))
    started = status.get("started_at") if isinstance(status.get("started_at"), str) else None
    if facts.alive and facts.exit_code is None:
        return HostRun(RUNNING, step, total, started)
    if facts.sealed:
        return HostRun(FINISHED, step, total, started)
    if step is None:
        return None
    return HostRun(PARTIAL, step, total, started)


def host_runs(snapshot: Snapshot) -> dict[str, HostRun]:
    """Every run of a parsed snapshot that the host holds something of, by run id."""
    return {facts.run_id: run for facts in snapshot.runs if (run := host_run(facts))}


def read_reply(alias: str, text: str) -> HostView:
    """A host's view from the snapshot command's stdout (unreachable when it is not one)."""
    try:
        return HostView(alias, host_runs(parse_snapshot(text)))
    except SnapshotError as error:
        return HostView(alias, error=str(error))


def survey_host(entry: HostEntry, ssh_config: str | None, project: Path) -> HostView:
    """Run the snapshot on one host (one command); never raises for an unreachable host."""
    # deferred: `rgt status` imports this module (for its types) and needs no paramiko (0.2 s)
    from rgt.remote.ssh import RemoteHost, resolve_host

    spec = resolve_host(entry.alias, entry.ssh_config_for(ssh_config))  # the user's to fix
    try:
        script = snapshot_script(entry.root())
        with RemoteHost(spec, connect_timeout=CONNECT_TIMEOUT_S, retries=0) as host:
            result = host.run(["bash", "-c", script], timeout=COMMAND_TIMEOUT_S)
    except RgtError as error:
        return HostView(entry.alias, error=str(error.message).splitlines()[0])
    return read_reply(entry.alias, result.stdout)


def survey_hosts(entries: list[HostEntry], ssh_config: str | None,
                 project: Path) -> list[HostView]:
    """Every host's view, in the order given (hosts are asked in parallel)."""
    if not entries:
        return []
    with ThreadPoolExecutor(max_workers=min(8, len(entries))) as pool:
        return list(pool.map(lambda entry: survey_host(entry, ssh_config, project), entries))
