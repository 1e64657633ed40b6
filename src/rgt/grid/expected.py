"""The expected grid and what this machine holds of each cell (no host is contacted).

A cell is one (experiment, variant, seed) of the config's plan, i.e. one run id. Locally a
cell may be sealed (``runs/<id>/run.json``), pulled (``export/<id>/PULL_VERIFIED.json`` still
holding, re-checked with ``rgt.pull``'s own checks), mirrored (``checkpoints/<id>/MIRROR.json``)
or only checkpointed (the newest complete ``step-*.pt`` of ``checkpoints/<id>/``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from rgt.base.clock import parse_time
from rgt.base.files import read_json
from rgt.config import Config
from rgt.mirror.record import MirrorRecord, read_mirror
from rgt.plan.runplan import plan_runs
from rgt.train.checkpoint import CheckpointStore
from rgt.train.sealing import is_sealed


@dataclass(frozen=True)
class Cell:
    """One cell of the grid and the run that fills it."""

    exp_id: str
    variant: str
    seed: int
    run_id: str

    @property
    def label(self) -> str:
        return f"{self.exp_id}/{self.variant}/seed {self.seed}"


@dataclass(frozen=True)
class LocalCheckpoint:
    """The newest complete checkpoint in a run's local state directory."""

    step: int
    saved_at: str | None
    """The marker's ``created_at`` (when the checkpoint was written, on whichever machine)."""
    mirror: MirrorRecord | None
    """Set when the directory is a mirror of a host's checkpoints (``MIRROR.json``)."""


@dataclass(frozen=True)
class LocalFacts:
    """What this machine holds of one run."""

    sealed: bool = False
    origin: str | None = None
    """The host a sealed run was trained on (its ``host_audit``); None: trained here."""
    verified: bool = False
    """A pulled bundle whose ``PULL_VERIFIED.json`` still holds and whose run is sealed."""
    bundle_problem: str | None = None
    checkpoint: LocalCheckpoint | None = None


def expected_cells(config: Config) -> list[Cell]:
    """Every cell the config asks for, in plan order."""
    return [Cell(spec.exp_id, spec.variant, spec.seed, spec.run_id) for spec in plan_runs(config)]


def newest_checkpoint(state_dir: Path) -> LocalCheckpoint | None:
    """The newest complete checkpoint of ``state_dir`` (markers and sizes only, no hashing)."""
    complete = CheckpointStore(state_dir).complete()
    if not complete:
        return None
    marker = read_json(complete[0].marker) or {}
    saved_at = marker.get("created_at") if isinstance(marker.get("created_at"), str) else None
    return LocalCheckpoint(complete[0].step, saved_at, read_mirror(state_dir))


def origin_host(run_dir: Path) -> str | None:
    """The host a sealed run was trained on: its ``host_audit``'s alias ('' when unnamed)."""
    audit = (read_json(run_dir / "run.json") or {}).get("host_audit")
    if audit is None:
        return None
    return str(audit.get("host") or "") if isinstance(audit, dict) else ""


def bundle_state(export: Path, run_id: str, deep: bool = False) -> tuple[bool, str | None]:
    """(verified, why not) of ``export/<run_id>`` with ``rgt pull``'s checks.

    The cheap check (``rgt down``'s: manifest identity, every file there with its size) by
    default; ``deep`` re-hashes and re-loads everything (``rgt pull --verify-only``).
    """
    # deferred: `rgt status` imports this module and never reads a bundle (6 ms, measured)
    from rgt.pull.bundle import verify_bundle
    from rgt.pull.closeout import local_evidence

    digest, damage = local_evidence(export, run_id)
    if digest is None:
        return False, None
    if damage is None and deep:
        problems = verify_bundle(export / run_id, run_id)
        damage = "; ".join(f"{p.path} {p.kind}" for p in problems[:5]) or None
    if damage is None and not is_sealed(export / run_id / "run", run_id):
        damage = "the bundle holds no sealed run (run/run.json)"
    return damage is None, damage


def local_facts(run_id: str, runs: Path, states: Path, export: Path,
                deep: bool = False) -> LocalFacts:
    """Everything this machine holds of ``run_id``."""
    sealed = is_sealed(runs / run_id, run_id)
    verified, problem = bundle_state(export, run_id, deep)
    return LocalFacts(sealed=sealed, origin=origin_host(runs / run_id) if sealed else None,
                      verified=verified, bundle_problem=problem,
                      checkpoint=newest_checkpoint(states / run_id))


def age_text(saved_at: str | None, now: datetime | None = None, suffix: str = "old") -> str:
    """``12 min old`` (or ``3.5 h old``, ``2.0 d old``) for an rgt UTC stamp; '' when unknown."""
    try:
        moment = parse_time(saved_at) if saved_at else None
    except ValueError:
        moment = None
    if moment is None:
        return ""
    seconds = max(0.0, ((now or datetime.now(timezone.utc)) - moment).total_seconds())
    if seconds < 5400:
        return f"{seconds / 60:.0f} min {suffix}"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h {suffix}"
    return f"{seconds / 86400:.1f} d {suffix}"


def checkpoint_text(checkpoint: LocalCheckpoint | None, now: datetime | None = None) -> str:
    """``mirror of gpu1: step 400, 12 min old`` / ``local: step 400, 3 min old`` / ''."""
    if checkpoint is None:
        return ""
    where = f"mirror of {checkpoint.mirror.host}" if checkpoint.mirror else "local"
    age = age_text(checkpoint.saved_at, now)
    return f"{where}: step {checkpoint.step}" + (f", {age}" if age else "")
