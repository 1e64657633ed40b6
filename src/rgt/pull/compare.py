"""A manifest the host builds now against the bundle already verified here.

Pulls are idempotent: the same manifest again is a no-op, and so is a weights-only manifest
whose every file a full bundle here already holds. A full manifest that only adds the
checkpoints a weights-only bundle left on the host supersedes it. Anything else means the
host's copy changed after the verified pull: ``rgt pull --refresh`` is the one way on (the new
bundle verified, the old one kept aside in ``quarantine/`` with its reason).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rgt.pull.bundle import read_manifest, read_verified
from rgt.pull.manifest import is_checkpoint, manifest_sha256

SAME, COVERED, ADDS, CHANGED, ABSENT = "same", "covered", "adds", "changed", "absent"


@dataclass(frozen=True)
class Comparison:
    """``kind``: ``absent`` (nothing here), ``same``, ``covered`` (the bundle here holds all of
    it), ``adds`` (it adds the checkpoints to a weights-only bundle) or ``changed``; ``paths``:
    the files that differ, for ``changed``."""

    kind: str
    paths: list[str] = field(default_factory=list)
    verified_at: str | None = None

    @property
    def nothing_to_do(self) -> bool:
        return self.kind in (SAME, COVERED)

    def describe(self, limit: int = 5) -> str:
        """The changed files, in words (``train.log, results.json and 3 more``)."""
        shown = ", ".join(self.paths[:limit]) or "its manifest"
        more = len(self.paths) - limit
        return shown + (f" and {more} more" if more > 0 else "")


def compare_bundle(export: Path, run_id: str, manifest: dict) -> Comparison:
    """How ``manifest`` (the host's, now) relates to ``export/<run_id>``."""
    bundle = Path(export) / run_id
    if not bundle.exists() and not bundle.is_symlink():
        return Comparison(ABSENT)
    record = read_verified(bundle)
    old, _ = read_manifest(bundle)
    if record is None or old is None:
        return Comparison(CHANGED, ["(export/" + run_id + " holds no verified bundle)"])
    when = record.get("verified_at")
    if record.get("manifest_sha256") == manifest_sha256(manifest):
        return Comparison(SAME, verified_at=when)
    before, after = _files(old), _files(manifest)
    if manifest.get("weights_only") and not old.get("weights_only"):
        before = {path: facts for path, facts in before.items() if not is_checkpoint(path)}
        return Comparison(COVERED if before == after else CHANGED, _differ(before, after), when)
    if old.get("weights_only") and not manifest.get("weights_only"):
        lighter = {path: facts for path, facts in after.items() if not is_checkpoint(path)}
        return Comparison(ADDS if lighter == before else CHANGED, _differ(before, lighter), when)
    return Comparison(CHANGED, _differ(before, after), when)


def _files(manifest: dict) -> dict[str, tuple]:
    return {entry["path"]: (entry["bytes"], entry["sha256"]) for entry in manifest["files"]}


def _differ(before: dict, after: dict) -> list[str]:
    return sorted(path for path in before.keys() | after.keys()
                  if before.get(path) != after.get(path))
