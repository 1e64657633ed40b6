"""Each cell's state from local facts and the hosts' views, and the command closing its gap.

States: ``verified`` (a pulled bundle that holds, of a sealed run), ``local`` (sealed here, no
bundle needed), ``on-host`` (finished on a host, not pulled and verified), ``running`` (its job
runs on a host), ``partial`` (only checkpoints: on a host and/or here), ``missing`` (nowhere),
``unknown`` (not here, and a host that might hold it did not answer). Pure functions only.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from rgt.grid.expected import Cell, LocalFacts, checkpoint_text
from rgt.grid.host_views import FINISHED, PARTIAL, RUNNING, HostRun, HostView

VERIFIED, LOCAL, ON_HOST, MISSING, UNKNOWN = "verified", "local", "on-host", "missing", "unknown"
STATES = (VERIFIED, LOCAL, ON_HOST, RUNNING, PARTIAL, MISSING, UNKNOWN)
DONE = (VERIFIED, LOCAL)
HOST_STATE = {RUNNING: RUNNING, FINISHED: ON_HOST, PARTIAL: PARTIAL}
PRIORITY = (RUNNING, FINISHED, PARTIAL)  # which host's copy tells a cell's state


@dataclass(frozen=True)
class Relaunch:
    """How a cell is (re)launched: ``snakemake --profile P [--rgt-host H] … runs/<id>/run.json``.

    ``profile`` (the ``--profile`` flag) wins; else a host's platform names its profile (every
    platform has one); with no host the cell trains with ``local_profile``.
    """

    platforms: dict[str, str]
    default_host: str | None = None
    profile: str | None = None
    config_file: str | None = None
    runs: str = "runs"
    local_profile: str = "local"

    def command(self, run_id: str, host: str | None) -> str:
        """The exact command that (re)launches only ``run_id`` (on ``host`` when given)."""
        host = host or self.default_host
        profile = self.profile or (self.platforms.get(host, "ssh") if host
                                   else self.local_profile)
        argv = ["snakemake", "--profile", profile]
        if host:
            argv += ["--rgt-host", host]
        if self.config_file:
            argv += ["--config", f"config_file={self.config_file}"]
        return shlex.join([*argv, f"{self.runs}/{run_id}/run.json"])


@dataclass(frozen=True)
class CellState:
    """One cell's verdict: its state, the host it is on (if any), why, and the fix."""

    cell: Cell
    state: str
    host: str | None = None
    detail: str = ""
    command: str | None = None
    mirrored: bool = False
    """A local mirror of a host's checkpoints holds the cell's newest work."""

    @property
    def gap(self) -> bool:
        return self.state not in DONE

    def as_dict(self) -> dict:
        """The JSON form (``rgt reconcile-grid --json``)."""
        return {"exp_id": self.cell.exp_id, "variant": self.cell.variant,
                "seed": self.cell.seed, "run_id": self.cell.run_id, "state": self.state,
                "host": self.host, "detail": self.detail, "command": self.command,
                "mirrored": self.mirrored}


def step_text(run: HostRun) -> str:
    if run.step is None:
        return "step unknown"
    return f"step {run.step}" + (f"/{run.total_steps}" if run.total_steps else "")


def on_hosts(run_id: str, hosts: Sequence[HostView]) -> tuple[str, HostRun] | None:
    """The reachable host whose copy of ``run_id`` says the most (running, finished, partial)."""
    found = [(PRIORITY.index(view.runs[run_id].state), view.alias, view.runs[run_id])
             for view in hosts if view.reachable and run_id in view.runs]
    return min(found, key=lambda item: item[:2])[1:] if found else None


def classify(cell: Cell, local: LocalFacts, hosts: Sequence[HostView], relaunch: Relaunch,
             now: datetime | None = None) -> CellState:
    """The state of ``cell`` (see the module docstring), with its detail and command."""
    if local.verified:
        return CellState(cell, VERIFIED, detail="pulled bundle verified")
    if local.sealed and local.origin is None:
        return CellState(cell, LOCAL, detail="sealed here, trained here")
    mirror = checkpoint_text(local.checkpoint, now)
    mirrored = bool(local.checkpoint and local.checkpoint.mirror)
    found = on_hosts(cell.run_id, hosts)
    if found:
        return _on_host(cell, *found, mirror, mirrored, relaunch)
    unreachable = [view.alias for view in hosts if not view.reachable
                   and (not local.sealed or local.origin in ("", view.alias))]
    if unreachable:
        return CellState(cell, UNKNOWN, None, _join(
            f"{', '.join(unreachable)} unreachable: it may be there", mirror), None, mirrored)
    if local.sealed:
        return CellState(cell, LOCAL, detail=_join(
            f"sealed here (trained on {local.origin or 'a host'}); no host holds its bundle",
            local.bundle_problem))
    command = relaunch.command(cell.run_id, None)
    if local.checkpoint:
        return CellState(cell, PARTIAL, None, _join(mirror, "no host holds it"), command,
                         mirrored)
    return CellState(cell, MISSING, None, _join("nowhere", local.bundle_problem), command)


def _on_host(cell: Cell, alias: str, run: HostRun, mirror: str, mirrored: bool,
             relaunch: Relaunch) -> CellState:
    state = HOST_STATE[run.state]
    if state == ON_HOST:
        return CellState(cell, ON_HOST, alias, f"finished on {alias}, not pulled and verified",
                         shlex.join(["rgt", "pull", cell.run_id, "--host", alias]), mirrored)
    verb = "training" if state == RUNNING else "stopped"
    detail = _join(f"{verb} on {alias} at {step_text(run)}", mirror or "no local mirror")
    return CellState(cell, state, alias, detail, relaunch.command(cell.run_id, alias), mirrored)


def _join(*parts: str | None) -> str:
    return "; ".join(part for part in parts if part)


def reconcile(cells: Sequence[Cell], local: dict[str, LocalFacts], hosts: Sequence[HostView],
              relaunch: Relaunch, now: datetime | None = None) -> list[CellState]:
    """Every cell's state, in grid order."""
    return [classify(cell, local.get(cell.run_id, LocalFacts()), hosts, relaunch, now)
            for cell in cells]


def only_on(states: Sequence[CellState], alias: str) -> list[str]:
    """Reasons ``rgt down ALIAS`` must refuse: cells that live only on ``alias`` (finished there
    but not verified here, or only partial there with no local mirror). Running cells are the
    gate's own in-progress reasons, which ``--approve-loss`` can lift."""
    reasons = []
    for item in states:
        if item.host != alias:
            continue
        if item.state == ON_HOST:
            reasons.append(f"grid cell {item.cell.label} (run {item.cell.run_id}) lives only on "
                           f"{alias}: finished there, not pulled and verified here "
                           f"(fix: `{item.command}`)")
        elif item.state == PARTIAL and not item.mirrored:
            reasons.append(f"grid cell {item.cell.label} (run {item.cell.run_id}) lives only on "
                           f"{alias}: {item.detail} (fix: `rgt pull {item.cell.run_id} --host "
                           f"{alias}` to keep its checkpoints, or `{item.command}` to finish it)")
    return reasons
