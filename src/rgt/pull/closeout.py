"""Closeout: a pulled run becomes ``export/<run-id>`` only whole and verified.

A run is assembled in ``<export>/.partial/<run-id>/``, verified (``rgt.pull.bundle``), stamped
with ``PULL_VERIFIED.json`` and atomically renamed to ``<export>/<run-id>``. A failed attempt
is renamed to ``<export>/../quarantine/<run-id>--<attempt>`` with a ``REASON.json``. Nothing is
deleted and nothing already exported is rewritten.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rgt.base.clock import utc_now
from rgt.base.files import fsync_dir, write_json
from rgt.pull.bundle import (
    MANIFEST,
    REASON,
    VERIFIED,
    VERIFIED_SCHEMA,
    Problem,
    read_manifest,
    read_verified,
    verify_bundle,
)
from rgt.pull.compare import ADDS, CHANGED, compare_bundle
from rgt.pull.manifest import manifest_sha256

REASON_SCHEMA = "rgt/quarantine/v1"
PARTIAL = ".partial"
OTHER_MANIFEST = "export/{run_id} exists with another manifest"


@dataclass(frozen=True)
class Outcome:
    """Where an attempt ended: ``exported``, ``already`` (same manifest there) or
    ``quarantined``; ``path`` is the bundle's final place."""

    state: str
    path: Path
    reason: str = ""
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.state in ("exported", "already")


def partial_dir(export: Path, run_id: str) -> Path:
    """Where an attempt to pull ``run_id`` is assembled."""
    return Path(export) / PARTIAL / run_id


def quarantine_root(export: Path) -> Path:
    """The quarantine directory next to ``export`` (same filesystem, so renames are atomic)."""
    return Path(export).parent / "quarantine"


def existing_state(export: Path, run_id: str, digest: str) -> str:
    """``absent``, ``same`` (verified with ``digest``), ``weights-only`` (another, verified
    weights-only bundle) or ``other`` for ``export/<run_id>``."""
    target = Path(export) / run_id
    if not target.exists() and not target.is_symlink():
        return "absent"
    record = read_verified(target)
    if record and record.get("manifest_sha256") == digest:
        return "same"
    return "weights-only" if record and record.get("weights_only") else "other"


def verified_record(manifest: dict) -> dict:
    """The ``PULL_VERIFIED.json`` body for a bundle whose every file matched ``manifest``."""
    return {"schema": VERIFIED_SCHEMA, "run_id": manifest["run_id"],
            "manifest_sha256": manifest_sha256(manifest), "files": len(manifest["files"]),
            "bytes": sum(entry["bytes"] for entry in manifest["files"]),
            "weights_only": bool(manifest.get("weights_only")), "verified_at": utc_now()}


def closeout(export: Path, run_id: str, allow_unsafe_pickle: bool = False,
             verify: Callable[[Path, str, bool], list[Problem]] = verify_bundle,
             refresh: bool = False) -> Outcome:
    """Verify ``<export>/.partial/<run_id>`` and move it to ``export/<run_id>`` or quarantine.

    Against a bundle already verified here (``rgt.pull.compare``): the same manifest, or one
    it holds all of, is a no-op success (the attempt stays where it is); a full bundle replaces
    the weights-only one it completes; a changed one replaces it only with ``refresh`` (the old
    bundle goes to quarantine with its reason), and is otherwise quarantined itself. ``verify``
    is ``verify_bundle`` (the executor runs it in a process of its own: it loads the
    checkpoints with torch, which the controller never imports).
    """
    export, partial = Path(export), partial_dir(export, run_id)
    problems = verify(partial, run_id, allow_unsafe_pickle)
    if problems:
        return quarantine(partial, export, run_id, "verification failed", problems)
    manifest, _ = read_manifest(partial)
    comparison = compare_bundle(export, run_id, manifest)
    if comparison.nothing_to_do:
        return Outcome("already", export / run_id)
    if comparison.kind == CHANGED and not refresh:
        return quarantine(partial, export, run_id, OTHER_MANIFEST.format(run_id=run_id), [])
    write_json(partial / VERIFIED, verified_record(manifest))
    if comparison.kind == ADDS:
        _set_aside(export / run_id, partial.parent / f"{run_id}.superseded")
    elif comparison.kind == CHANGED:
        _refreshed_aside(export, run_id, comparison)
    os.rename(partial, export / run_id)
    if comparison.kind == ADDS:
        shutil.rmtree(partial.parent / f"{run_id}.superseded")
    fsync_dir(partial.parent)
    fsync_dir(export)
    return Outcome("exported", export / run_id)


def _refreshed_aside(export: Path, run_id: str, comparison) -> None:
    """The bundle a refresh replaces, kept in quarantine with why (nothing is deleted)."""
    reason = (f"set aside by rgt pull --refresh: the host's copy changed after this bundle was "
              f"verified ({comparison.verified_at}): {comparison.describe()}")
    quarantine(export / run_id, export, run_id, reason, [])


def _set_aside(bundle: Path, aside: Path) -> None:
    """Move ``bundle`` out of the way (a rename: the export never holds half of two bundles)."""
    if aside.exists():
        shutil.rmtree(aside)
    os.rename(bundle, aside)


def shallow_problems(bundle: Path, digest: str) -> list[Problem]:
    """A cheap re-check of a verified bundle (no hashing, no loading): its manifest still has
    identity ``digest`` and every listed file is still there with its size."""
    bundle = Path(bundle)
    manifest, problems = read_manifest(bundle)
    if manifest is None or problems:
        return problems
    if manifest_sha256(manifest) != digest:
        return [Problem(MANIFEST, "hash", "is not the manifest PULL_VERIFIED.json vouches for")]
    found = []
    for entry in manifest["files"]:
        path = bundle / entry["path"]
        if not path.is_file() or path.is_symlink():
            found.append(Problem(entry["path"], "missing", "gone since the pull"))
        elif path.stat().st_size != entry["bytes"]:
            found.append(Problem(entry["path"], "size", "resized since the pull"))
    return found


def next_attempt(root: Path, run_id: str) -> int:
    """One more than the highest ``<run_id>--N`` under ``root`` (1 when there is none)."""
    numbers = [int(path.name.rsplit("--", 1)[1]) for path in Path(root).glob(f"{run_id}--*")
               if path.name.rsplit("--", 1)[1].isdigit()]
    return max(numbers, default=0) + 1


def quarantine(partial: Path, export: Path, run_id: str, reason: str,
               problems: list[Problem]) -> Outcome:
    """Move an attempt to ``quarantine/<run_id>--<attempt>`` with its ``REASON.json``."""
    root = quarantine_root(export)
    root.mkdir(parents=True, exist_ok=True)
    while True:
        attempt = next_attempt(root, run_id)
        target = root / f"{run_id}--{attempt}"
        write_json(partial / REASON, {
            "schema": REASON_SCHEMA, "run_id": run_id, "attempt": attempt, "reason": reason,
            "problems": [problem.as_dict() for problem in problems],
            "quarantined_at": utc_now()})
        try:
            # mkdir claims the name; a concurrent attempt that took it makes us try the next.
            target.mkdir()
        except FileExistsError:
            continue
        os.rename(partial, target)
        break
    fsync_dir(partial.parent)
    fsync_dir(root)
    return Outcome("quarantined", target, reason, list(problems))


def local_evidence(export: Path, run_id: str) -> tuple[str | None, str | None]:
    """(the verified manifest digest of ``export/<run_id>`` or None, damage or None)."""
    record = read_verified(export / run_id)
    if record is None or not isinstance(record.get("manifest_sha256"), str):
        return None, None
    problems = shallow_problems(export / run_id, record["manifest_sha256"])
    damage = "; ".join(f"{p.path} {p.detail}" for p in problems[:5]) or None
    return record["manifest_sha256"], damage


def is_weights_only(bundle: Path) -> bool:
    """Whether a verified bundle left its checkpoints on the host (``rgt pull --weights-only``)."""
    record = read_verified(bundle)
    return bool(record and record.get("weights_only"))
