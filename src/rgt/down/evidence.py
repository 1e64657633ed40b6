"""What stopping a host would lose: its runs, whether each is pulled and verified here, what
is still training and at what risk, and which grid cells live only there.

One manifest survey and one job snapshot per host; everything else is read from local files.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.config import Config
from rgt.down.gate import combine, loss_text, parse_survey
from rgt.grid.cells import Relaunch, only_on, reconcile
from rgt.grid.expected import expected_cells, local_facts
from rgt.grid.host_views import COMMAND_TIMEOUT_S, RUNNING, HostView, host_runs
from rgt.mirror.record import read_mirror
from rgt.pull.bundle import newest_marker
from rgt.pull.closeout import is_weights_only, local_evidence
from rgt.pull.fetch import survey_host
from rgt.remote.ssh import RemoteHost, resolve_host
from rgt.watch.collect import SnapshotError, parse_snapshot, snapshot_script


def gather(alias: str, entry, root: str, export: Path, ssh_config: str | None,
           states: Path, approved: set[str]):
    """(evidence per run, whether ``root`` exists on the host, the grid's view of the host):
    the manifest survey, then one snapshot (jobs and heartbeats)."""
    with RemoteHost(resolve_host(alias, ssh_config)) as host:
        survey = read_survey(host, alias, entry, root)
        snapshot = read_snapshot(host, alias, root)
    on_host = host_runs(snapshot)
    running = {run_id for run_id, run in on_host.items() if run.state == RUNNING}
    local = {run_id: local_evidence(export, run_id) for run_id in survey["runs"]}
    at_risk = {run_id: risk_of(states / run_id, on_host[run_id]) for run_id in running}
    light = {run_id: mirror_problem(export / run_id, states / run_id)
             for run_id in survey["runs"] if is_weights_only(export / run_id)}
    runs = combine(survey["runs"], running, local, at_risk, approved, light)
    return runs, survey["root_exists"], HostView(alias, on_host)


def mirror_problem(bundle: Path, state_dir: Path) -> str | None:
    """Why a weights-only bundle's newest checkpoint is not safely mirrored in ``state_dir``
    (None: the mirror's record names that checkpoint's step and sha256 and holds its file at
    the recorded size; the record is written only after the copy's sha256 matched)."""
    marker = newest_marker(bundle)
    if marker is None:
        return "the bundle holds no checkpoint marker"
    record = read_mirror(state_dir)
    if record is None:
        return f"no mirror record in {state_dir}"
    if (record.step, record.sha256) != (marker.get("step"), marker["sha256"]):
        return (f"the mirror holds step {record.step}, the newest checkpoint is step "
                f"{marker.get('step')}")
    copy = Path(state_dir) / record.file
    if not copy.is_file() or copy.stat().st_size != record.bytes:
        return f"the mirrored {record.file} is gone from {state_dir} or resized"
    return None


def read_survey(host, alias: str, entry, root: str) -> dict:
    """The manifest builder's survey of every run under ``root`` (``rgt.pull.fetch``)."""
    reply = survey_host(host, entry.python, root)
    try:
        return parse_survey(reply)
    except ValueError as error:
        raise RgtError(f"{alias}: unreadable survey reply ({error}): {reply[:200]!r}",
                       fix=f"check that python: ({entry.python}) runs plain Python 3 on "
                           "the host") from None


def read_snapshot(host, alias: str, root: str):
    """``rgt watch``'s snapshot of ``root``: every job's liveness, status and heartbeat."""
    result = host.run(["bash", "-c", snapshot_script(root)], timeout=COMMAND_TIMEOUT_S)
    try:
        return parse_snapshot(result.stdout)
    except SnapshotError as error:
        raise RgtError(f"{alias}: unreadable job snapshot ({error})",
                       fix="check that bash and coreutils (base64, stat) run on the host; run "
                           "the command again") from None


def risk_of(state_dir: Path, run) -> str:
    """What stopping the running ``run`` loses, from the local mirror record and its heartbeat."""
    return loss_text(read_mirror(state_dir), run.step, run.started_at)


def grid_reasons(config: Config | None, args: argparse.Namespace, entry, view) -> list[str]:
    """Cells of the grid that live only on this host (none without a config)."""
    if config is None:
        return []
    cells = expected_cells(config)
    runs, states = Path(config.paths.runs), Path(config.paths.checkpoints)
    local = {cell.run_id: local_facts(cell.run_id, runs, states, Path(args.export))
             for cell in cells}
    relaunch = Relaunch({entry.alias: entry.platform}, entry.alias,
                        config_file=None if args.config == "config/config.yaml" else args.config,
                        runs=config.paths.runs)
    return only_on(reconcile(cells, local, [view], relaunch), entry.alias)
