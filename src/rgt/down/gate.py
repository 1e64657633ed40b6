"""The teardown gate as pure functions: which facts block ``rgt down``, and the exact approval.

The iron law: a host's meter is stopped only when every run on it — every run the host lists
and every run the launch ledger says was started there — has a verified local bundle whose
manifest is the one the host builds *now*, no job is running (unless the user approved losing
its work since the newest mirrored checkpoint, which the reason quantifies), a
``stop_command`` is configured, and the user typed (or passed) exactly ``ALIAS:VERB``.
Nothing here talks to a host.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import datetime, timezone

from rgt.base.clock import parse_time
from rgt.grid.expected import age_text
from rgt.mirror.record import MirrorRecord, work_at_risk

SURVEY_SCHEMA = "rgt/pull-survey/v1"


@dataclass(frozen=True)
class RunEvidence:
    """What is known about one run on the host and its local bundle."""

    run_id: str
    remote_sha256: str | None = None
    """The manifest digest the host built now (None when it could not)."""
    remote_error: str | None = None
    running: bool = False
    local_sha256: str | None = None
    """``PULL_VERIFIED.json``'s manifest digest (None: no verified bundle)."""
    local_damage: str | None = None
    """Why the verified bundle no longer holds (files gone or resized), if it does not."""
    remote_files: int | None = None
    """How many files the host's manifest lists (0: an empty directory, nothing to lose)."""
    at_risk: str | None = None
    """What stopping a running job loses (``loss_text``); None: not known."""
    loss_approved: bool = False
    """The user passed ``--approve-loss RUN_ID`` for this running run."""
    remote_weights_only_sha256: str | None = None
    """The digest of the weights-only manifest the host built now."""
    weights_only: bool = False
    """The verified bundle left the checkpoints on the host (``rgt pull --weights-only``)."""
    mirror_problem: str | None = None
    """For a weights-only bundle: why its newest checkpoint is not safely mirrored (None: it
    is: the mirror's record names that checkpoint's step and sha256, and holds its file)."""

    def changed_since_pull(self) -> bool:
        """A verified bundle is here, but the host's copy no longer has its manifest."""
        remote = self.remote_weights_only_sha256 if self.weights_only else self.remote_sha256
        return (self.local_sha256 is not None and remote is not None
                and self.local_sha256 != remote)

    def not_pulled(self) -> str | None:
        """Why this run is not safely pulled, or None when it is (or its loss is approved)."""
        if self.loss_approved:
            return None
        if self.running:
            return "its job is still running on the host"
        if self.remote_files == 0 and not self.remote_error:
            return None
        if self.remote_error or self.remote_sha256 is None:
            return f"the host cannot build its manifest: {self.remote_error or 'no reply'}"
        if self.local_sha256 is None:
            return "no verified bundle (no PULL_VERIFIED.json in the export)"
        remote = self.remote_weights_only_sha256 if self.weights_only else self.remote_sha256
        if self.local_sha256 != remote:
            return "its manifest changed since the pull (files on the host differ)"
        if self.local_damage:
            return f"the local bundle no longer holds: {self.local_damage}"
        if self.weights_only and self.mirror_problem:
            return (f"its bundle is weights-only and its newest checkpoint is not safely "
                    f"mirrored: {self.mirror_problem}")
        return None


@dataclass(frozen=True)
class Decision:
    """The gate's verdict: allowed only with no reason against it."""

    reasons: list[str]
    expected_approval: str

    @property
    def allowed(self) -> bool:
        return not self.reasons


def approval_token(alias: str, verb: str) -> str:
    """What the user must type or pass: ``ALIAS:VERB`` with the verb's first word."""
    return f"{alias}:{verb.split()[0]}"


def approval_tokens(alias: str, verb: str) -> tuple[str, ...]:
    """Every exact approval of ``verb``: the platform's own word (``gpubox:关机``) and, when
    the verb names its meaning in ASCII in parentheses (``关机 (stop)``), that name
    (``gpubox:stop``)."""
    ascii_name = re.match(r"\S+\s*\(([A-Za-z][A-Za-z-]*)\)", verb)
    tokens = [approval_token(alias, verb)]
    if ascii_name:
        tokens.append(f"{alias}:{ascii_name[1]}")
    return tuple(dict.fromkeys(tokens))


def loss_text(record: MirrorRecord | None, remote_step: int | None,
              started_at: str | None = None, now: datetime | None = None) -> str:
    """What stopping a running job loses, in steps and hours (``rgt.mirror.record``).

    Args:
        record: the run's local ``MIRROR.json`` (None: never mirrored).
        remote_step: the host's newest step (its heartbeat; None: unknown).
        started_at: the current attempt's start on the host (status.json), for no mirror.
    """
    now = now or datetime.now(timezone.utc)
    try:
        started = parse_time(started_at) if started_at else None
    except ValueError:
        started = None
    if record is None and started is None and remote_step is None:
        return ("everything since launch (the host reports no step and no start yet); it "
                "has no mirrored checkpoint")
    risk = work_at_risk(record, remote_step, started, now)
    if record is None:
        return f"everything since launch: {risk.describe()}; it has no mirrored checkpoint"
    mirrored = age_text(record.mirrored_at, now, "ago") or "at an unknown time"
    return (f"{risk.describe()} since its newest mirrored checkpoint (step {record.step}, "
            f"mirrored {mirrored})")


def run_reasons(runs: Sequence[RunEvidence], alias: str) -> list[str]:
    """One reason per run that is not safely pulled, each with its fix."""
    reasons = []
    for run in runs:
        why = run.not_pulled()
        if why is None:
            continue
        if run.running:
            loss = run.at_risk or "an unknown amount of work"
            reasons.append(f"run {run.run_id} is still training on {alias}: stopping now loses "
                           f"{loss} (fix: wait for it to finish and `rgt pull {run.run_id} "
                           f"--host {alias}`, or pass --approve-loss {run.run_id})")
            continue
        fix = f"`rgt pull {run.run_id} --host {alias}`"
        if run.changed_since_pull():
            fix = (f"`rgt pull {run.run_id} --host {alias} --refresh`: it verifies the host's "
                   "copy and keeps the old bundle aside in quarantine/")
        elif run.weights_only and run.mirror_problem:
            fix += " for the full bundle, or wait for the mirror to hold the newest checkpoint"
        fix += f"; to give the run up, --approve-loss {run.run_id}"
        reasons.append(f"run {run.run_id} is not pulled: {why} (fix: {fix})")
    return reasons


def decide(alias: str, verb: str, runs: Sequence[RunEvidence],
           stop_command: Sequence[str] | None, approval: str | None,
           require_approval: bool = True, other_reasons: Sequence[str] = ()) -> Decision:
    """Every reason that blocks stopping ``alias`` with ``verb``; none means allowed.

    Args:
        runs: evidence for every run on the host.
        other_reasons: what else blocks: a root that does not exist, launches of the ledger
            that nothing accounts for (``rgt.down.evidence.ledger_reasons``).
        stop_command: the host's configured argv (None: not configured).
        approval: what the user typed or passed with ``--approve`` (None: nothing yet).
        require_approval: False only to judge the evidence alone (a dry run without
            ``--approve``, or before prompting).
    """
    accepted = approval_tokens(alias, verb)
    expected = accepted[0]
    reasons = run_reasons(runs, alias) + list(other_reasons)
    if not stop_command:
        reasons.append(f"no stop_command for {alias} in config/hosts.yaml: rgt runs the "
                       f"platform's '{verb}' only through it (fix: add stop_command: [argv…] "
                       f"under hosts: {alias}:)")
    if approval is not None and approval not in accepted:
        reasons.append(f"approval {approval!r} is not the exact action "
                       f"{' or '.join(map(repr, accepted))} "
                       f"(fix: type or pass --approve {accepted[-1]})")
    elif approval is None and require_approval:
        reasons.append(f"not approved (fix: type {expected} at the prompt, or pass "
                       f"--approve {expected})")
    return Decision(reasons, expected)


def parse_survey(text: str) -> dict:
    """The manifest builder's ``survey`` reply: ``{"root_exists", "runs": {id: {...}}}``.

    Raises:
        ValueError: the reply is not a survey (the message says what is wrong).
    """
    survey = json.loads(text)
    if not isinstance(survey, dict) or survey.get("schema") != SURVEY_SCHEMA:
        raise ValueError(f"not a {SURVEY_SCHEMA} reply")
    runs = survey.get("runs")
    if not isinstance(runs, dict) or not all(
            isinstance(entry, dict) and ("manifest_sha256" in entry or "error" in entry)
            for entry in runs.values()):
        raise ValueError("runs is not {run id: {manifest_sha256 | error}}")
    jobs = survey.get("jobs", [])
    if not isinstance(jobs, list) or not all(isinstance(job, str) for job in jobs):
        raise ValueError("jobs is not a list of run ids")
    return {"root_exists": bool(survey.get("root_exists")), "runs": runs, "jobs": jobs}


def combine(survey_runs: Mapping[str, dict], running: set[str],
            local: Mapping[str, tuple[str | None, str | None]],
            at_risk: Mapping[str, str] | None = None,
            approved: Set[str] = frozenset(),
            weights_only: Mapping[str, str | None] | None = None) -> list[RunEvidence]:
    """Evidence per run from the host's survey, its running jobs and the local bundles.

    ``local[run_id]`` is (verified manifest digest or None, damage or None); ``at_risk[run_id]``
    what stopping a running one loses;
    ``weights_only[run_id]``, for a weights-only bundle, why its newest checkpoint is not
    safely mirrored (None: it is); ``approved`` the runs whose loss the user accepted
    (``--approve-loss``: running, or not pulled). A running job with no run or checkpoint
    directory yet is evidence too: it blocks like any running run.
    """
    at_risk, weights_only = at_risk or {}, weights_only or {}

    def live(run_id: str) -> dict:
        return {"at_risk": at_risk.get(run_id), "loss_approved": run_id in approved}

    def kind(run_id: str) -> dict:
        return {"weights_only": run_id in weights_only,
                "mirror_problem": weights_only.get(run_id)}

    runs = [RunEvidence(run_id, entry.get("manifest_sha256"), entry.get("error"),
                        run_id in running, *local.get(run_id, (None, None)),
                        remote_files=entry.get("files"),
                        remote_weights_only_sha256=entry.get("weights_only_sha256"),
                        **live(run_id), **kind(run_id))
            for run_id, entry in sorted(survey_runs.items())]
    return runs + [RunEvidence(run_id, running=True, **live(run_id))
                   for run_id in sorted(running - set(survey_runs))]
