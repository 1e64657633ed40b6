"""Where the pipeline builds a delivery before it is put in place, and when it is stale.

The delivery files (``evidence/results.json``, ``verify/report.json``, ``figures/<fig>/``,
``evidence/EVIDENCE.json``) are committed, and Snakemake deletes the outputs of a job before it
runs and after it fails. So the delivery rules build into ``.rgt/delivery/`` (the same layout)
and the last rule, ``rgt promote``, copies the complete set into place, each file atomically:
a failed delivery job leaves every committed file byte-identical.

A changed config must re-deliver even when every file of the old delivery exists: the plan
stamp ``.rgt/delivery/plan.json``, an input of the aggregate and of the audit, gets the time
of now when the built delivery is another plan's (other runs or runs directory, other verify
settings), and the epoch otherwise, so only a real change re-runs them (a dry run of another
config leaves nothing behind that would re-deliver this one).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from rgt.base.files import read_json, write_bytes, write_json
from rgt.base.hashing import sha256_file
from rgt.plan.paths import (
    AGGREGATE,
    DELIVERY_PLAN,
    DELIVERY_PROMOTED,
    EVIDENCE,
    VERIFY_JSON,
    work_path,
)

PLAN_SCHEMA = "rgt/delivery-plan/v1"
PROMOTED_SCHEMA = "rgt/promoted/v1"


def plan_record(results: Iterable[str], verify_settings: dict) -> dict:
    """What a delivery is a function of, besides its input files: the runs' results files
    (their ids and where they live) and the audit's settings."""
    return {"schema": PLAN_SCHEMA, "results": sorted(PurePosixPath(path).as_posix()
                                                     for path in results),
            "verify": verify_settings}


def built_plan(root: str | Path = ".") -> dict | None:
    """The plan record of the delivery built in the work directory; None when incomplete."""
    aggregate = read_json(Path(root) / work_path(AGGREGATE))
    report = read_json(Path(root) / work_path(VERIFY_JSON))
    if not isinstance(aggregate, dict) or not isinstance(report, dict):
        return None
    results = [item.get("path", "") for item in aggregate.get("inputs") or []]
    results += [f"skipped:{item.get('run_id')}" for item in aggregate.get("skipped") or []]
    return plan_record(results, report.get("settings"))


def stamp_plan(results: Iterable[str], verify_settings: dict, root: str | Path = ".") -> bool:
    """Write the plan stamp, dated now when the built delivery is of another plan (True) and
    at the epoch when it is this plan's (False)."""
    record = plan_record(results, verify_settings)
    stamp = Path(root) / DELIVERY_PLAN
    if read_json(stamp) != record:
        write_json(stamp, record)
    stale = built_plan(root) != record
    if stale:
        os.utime(stamp)
    else:
        os.utime(stamp, (0, 0))
    return stale


def platform_change(root: str | Path = ".") -> str | None:
    """What to say when the delivery about to be put in place was made on other platforms
    (``made_on`` of EVIDENCE.json: rgt.train.platform) than the one it replaces: its numbers
    are this machine's, never a silent rewrite of another machine's evidence."""
    root = Path(root)
    old, new = read_json(root / EVIDENCE) or {}, read_json(root / work_path(EVIDENCE)) or {}
    before, after = (sorted(str(entry.get("fingerprint")) for entry in doc.get("made_on") or [])
                     for doc in (old, new))
    if not before or not after or before == after:
        return None
    values = {claim.get("id"): claim.get("value") for claim in old.get("claims") or []}
    changed = sum(values.get(claim.get("id")) != claim.get("value")
                  for claim in new.get("claims") or [])
    return (f"{EVIDENCE} was made on platform(s) {', '.join(before)}; this delivery on "
            f"{', '.join(after)}, and {changed} of its numbers differ: they are this machine's "
            "(git diff shows them; `make repro` judges them against the committed ones by the "
            "seed spread, and `rgt restore` brings the shared runs instead of retraining them)")


def promote(names: Iterable[str], root: str | Path = ".") -> dict:
    """Copy each built file to its place under ``root``, atomically, skipping those already
    identical; a built directory replaces its generated counterpart (files the new delivery
    no longer has go). The manifest of what is in place."""
    root = Path(root)
    placed = {}
    for name in names:
        built = root / work_path(name)
        for source, relative in _built_files(built, name):
            placed[relative] = _place(source, root / relative)
        if built.is_dir():
            _remove_stale(root / name, {root / path for path in placed})
    return {"schema": PROMOTED_SCHEMA, "files": placed}


def _built_files(built: Path, name: str) -> list[tuple[Path, str]]:
    """(built file, its project-relative path) of a built file or of every file below a built
    directory."""
    if not built.is_dir():
        return [(built, name)]
    return [(path, f"{name}/{path.relative_to(built).as_posix()}")
            for path in _files_below(built)]


def _files_below(directory: Path) -> list[Path]:
    """The files of a generated directory (Snakemake's own marker of a directory output, which
    dates it, excluded)."""
    return sorted(path for path in directory.rglob("*")
                  if path.is_file() and path.name != ".snakemake_timestamp")


def _place(source: Path, target: Path) -> str:
    digest = sha256_file(source)
    if not target.is_file() or sha256_file(target) != digest:
        write_bytes(target, source.read_bytes())
    return digest


def _remove_stale(directory: Path, kept: set[Path]) -> None:
    """Files an earlier delivery generated under ``directory`` that this one did not."""
    for path in _files_below(directory) if directory.is_dir() else []:
        if path not in kept:
            path.unlink()


def forget_promotion_if_disturbed(root: str | Path = ".") -> bool:
    """Drop the manifest when a promoted file is missing or was edited in place, so that the
    next run puts the delivery back; True when it did."""
    manifest_path = Path(root) / DELIVERY_PROMOTED
    manifest = read_json(manifest_path)
    if not isinstance(manifest, dict):
        return False
    for relative, digest in (manifest.get("files") or {}).items():
        target = Path(root) / relative
        if not target.is_file() or sha256_file(target) != digest:
            manifest_path.unlink(missing_ok=True)
            return True
    return False
