"""What stopping a host would lose: every run the launch ledger says was started there and
every run the host lists, whether each is pulled and verified here, and what is still training
and at what risk.

One manifest survey and one job snapshot per remote root (the recorded one and any other the
ledger names); everything else is read from local files. Whatever cannot be seen — the host,
a root, a listing, a ledger line — is a refusal, never a warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.down.gate import RunEvidence, combine, loss_text, parse_survey
from rgt.grid.host_views import COMMAND_TIMEOUT_S, RUNNING, host_runs
from rgt.mirror.record import read_mirror
from rgt.pull.bundle import newest_marker
from rgt.pull.closeout import is_weights_only, local_evidence
from rgt.pull.fetch import survey_host
from rgt.remote.ledger import Launch, by_root, launches
from rgt.remote.ssh import RemoteHost, resolve_host
from rgt.watch.collect import SnapshotError, parse_snapshot, snapshot_script


@dataclass(frozen=True)
class RootEvidence:
    """One remote root of the host: whether it exists, its runs' evidence, and the ledger's
    launches there that neither the host nor a verified bundle accounts for."""

    root: str
    exists: bool
    runs: list[RunEvidence]
    unaccounted: list[Launch]


@dataclass(frozen=True)
class Local:
    """Where this side keeps what it knows: the verified bundles and the mirrored states."""

    project: Path
    export: Path
    states: Path


def roots_to_check(entry, ledger: list[Launch]) -> list[str]:
    """The recorded root first, then every other root the ledger launched runs under."""
    recorded = [entry.root()] if entry.remote_root or not ledger else []
    return list(dict.fromkeys(recorded + list(by_root(ledger))))


def gather(alias: str, entry, local: Local, ssh_config: str | None,
           approved: set[str]) -> list[RootEvidence]:
    """The evidence of every root of ``alias``: the ledger's launches, then, per root, the
    manifest survey and one snapshot (jobs and heartbeats)."""
    ledger = launches(local.project, alias)
    roots = roots_to_check(entry, ledger)
    launched = by_root(ledger)
    with RemoteHost(resolve_host(alias, ssh_config)) as host:
        try:
            host.run("true", timeout=60)
        except RgtError as error:
            raise unreachable(alias, error) from None
        return [root_evidence(host, alias, entry, root, local, approved,
                              launched.get(root, [])) for root in roots]


def unreachable(alias: str, error: RgtError) -> RgtError:
    """The refusal of a host that does not answer: what it holds cannot be checked."""
    return RgtError(f"rgt down {alias} refused: {alias} cannot be reached ({error.message}), "
                    "so what it holds cannot be checked against what is pulled here",
                    fix=f"check `ssh {alias} true` (and ssh_config in config/hosts.yaml), then "
                        "run rgt down again; nothing was stopped")


def root_evidence(host, alias: str, entry, root: str, local: Local, approved: set[str],
                  launched: list[Launch]) -> RootEvidence:
    """One root's survey and snapshot combined with the local bundles and its launches."""
    survey = read_survey(host, alias, entry, root)
    on_host = host_runs(read_snapshot(host, alias, root))
    running = {run_id for run_id, run in on_host.items() if run.state == RUNNING}
    ids = set(survey["runs"])
    bundles = {run_id: local_evidence(local.export, run_id) for run_id in ids}
    at_risk = {run_id: risk_of(local.states / run_id, on_host[run_id]) for run_id in running}
    light = {run_id: mirror_problem(local.export / run_id, local.states / run_id)
             for run_id in ids if is_weights_only(local.export / run_id)}
    runs = combine(survey["runs"], running, bundles, at_risk, approved, light)
    seen = ids | running
    missing = [launch for launch in latest(launched)
               if launch.run_id not in seen and launch.run_id not in approved
               and not intact_bundle(local.export, launch.run_id)]
    return RootEvidence(root, survey["root_exists"], runs, missing)


def latest(launched: list[Launch]) -> list[Launch]:
    """The newest launch of each run, in ledger order."""
    newest = {launch.run_id: launch for launch in launched}
    return list(newest.values())


def intact_bundle(export: Path, run_id: str) -> bool:
    """Whether a verified bundle of the run is here and still holds."""
    digest, damage = local_evidence(export, run_id)
    return digest is not None and damage is None


def ledger_reasons(alias: str, evidence: RootEvidence) -> list[str]:
    """One refusal per launch the host and the bundles here cannot account for, and one for a
    root that does not exist."""
    reasons = []
    if not evidence.exists:
        names = ", ".join(launch.run_id for launch in evidence.unaccounted) or "none"
        reasons.append(
            f"{evidence.root} does not exist on {alias}, so rgt cannot see what the host holds "
            f"(runs the ledger says were launched there and are not pulled here: {names}) "
            f"(fix: if the project lives elsewhere on the host, record it with `rgt up {alias} "
            f"--root PATH`; if it never ran there, create the empty directory with `ssh {alias}"
            f" mkdir -p {evidence.root}`; a run that is gone for good: --approve-loss RUN_ID)")
        return reasons
    for launch in evidence.unaccounted:
        reasons.append(
            f"run {launch.run_id} was launched on {alias} ({launch.describe()}; "
            f".rgt/launches.jsonl), but the host has no trace of it there and no verified "
            f"bundle of it is here (fix: `rgt pull {launch.run_id} --host {alias}` if it is "
            f"there after all; if it is gone for good, pass --approve-loss {launch.run_id})")
    return reasons


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
        raise RgtError(f"rgt down {alias} refused: the listing of {root} cannot be read "
                       f"({error}): {reply[:200]!r}",
                       fix=f"check that python: ({entry.python}) in config/hosts.yaml runs plain "
                           "Python 3 on the host, then run rgt down again") from None


def read_snapshot(host, alias: str, root: str):
    """``rgt watch``'s snapshot of ``root``: every job's liveness, status and heartbeat."""
    result = host.run(["bash", "-c", snapshot_script(root)], timeout=COMMAND_TIMEOUT_S)
    try:
        return parse_snapshot(result.stdout)
    except SnapshotError as error:
        raise RgtError(f"rgt down {alias} refused: the job snapshot of {root} cannot be read "
                       f"({error})",
                       fix="check that bash and coreutils (base64, stat) run on the host; run "
                           "the command again") from None


def risk_of(state_dir: Path, run) -> str:
    """What stopping the running ``run`` loses, from the local mirror record and its heartbeat."""
    return loss_text(read_mirror(state_dir), run.step, run.started_at)
