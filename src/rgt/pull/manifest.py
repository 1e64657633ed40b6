"""The pull manifest of one run: every file of its bundle with its size and sha256.

This module is **stdlib-only and self-contained**: its whole source is sent to the host's own
interpreter over stdin (``python3 - build ROOT RUN_ID``), because a bare rented image may lack
the project. The same functions run locally as units. Keep it importable on Python 3.7+ and free
of ``rgt`` imports.

Bundle layout (relative POSIX paths): ``run/…`` (``<root>/runs/<id>``), ``checkpoints/…``
(``<root>/checkpoints/<id>``), ``job/…`` (``<root>/jobs/<id>``). Symlinks are refused (never
followed), torn ``*.tmp``/``*.part`` files are left out, and the manifest itself is written
atomically to ``<root>/jobs/<id>/PULL_MANIFEST.json``, which it does not list.

A checkpoint whose completion marker gives its size takes the marker's sha256 (computed as the
checkpoint was written) instead of being read here: the pull checks the bytes that arrive
against it, so the host reads each checkpoint byte once, and a checkpoint corrupted on the
host's disk fails the pull instead of being vouched for. A *weights-only* manifest
(``build ... --weights-only``) leaves the checkpoints (``checkpoints/step-*.pt``) out and keeps
their markers: the sealed run, its logs and its job record, for a run whose newest full
checkpoint is mirrored (docs/pull-and-down.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
import time

SCHEMA = "rgt/pull/v1"
MANIFEST = "PULL_MANIFEST.json"
SOURCES = (("run", "runs"), ("checkpoints", "checkpoints"), ("job", "jobs"))
TORN = (".tmp", ".part")
# Control files, not results, rewritten by others while (and after) the job runs: the
# controller renews a job's lease, and a mirror tells the trainer its checkpoint ceiling
# (rgt.train.cadence's cadence.json) at every survey, a finished run's included. A copy would
# not match its hash by the time it arrives, and a rewrite after a verified pull would make the
# host's copy look changed when no result did.
RENEWED = ("job/lease", "checkpoints/cadence.json")
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
CHECKPOINT = re.compile(r"checkpoints/step-[0-9]+\.pt")
# Names a one-line listing or a transfer cannot carry (control characters, backslashes).
UNSAFE_NAME = re.compile(r"[\x00-\x1f\x7f\\]")
CHUNK = 1 << 20


class ManifestError(Exception):
    """The manifest cannot be built: a bad run id, or files that must not be pulled."""


def check_run_id(run_id: str) -> str:
    """Return ``run_id`` when it is a plain directory name; raise ``ManifestError`` otherwise."""
    if not RUN_ID.fullmatch(run_id or "") or run_id in (".", ".."):
        raise ManifestError(f"run id {run_id!r} is not a plain directory name")
    return run_id


def hash_file(path: str) -> tuple:
    """(bytes, sha256) of a file, counted from the bytes actually read."""
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def _walk(top: str, prefix: str, files: list, refused: list) -> None:
    """Add every regular file below ``top`` to ``files``; symlinks and oddities to ``refused``."""
    for directory, dirnames, filenames in os.walk(top, followlinks=False):
        rel_dir = os.path.relpath(directory, top).replace(os.sep, "/")
        base = prefix if rel_dir == "." else prefix + "/" + rel_dir
        for name in sorted(dirnames):
            if os.path.islink(os.path.join(directory, name)):
                refused.append((base + "/" + name, "symlink"))
        for name in sorted(filenames):
            _add_file(os.path.join(directory, name), base + "/" + name, files, refused)


def _add_file(path: str, rel: str, files: list, refused: list) -> None:
    mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        refused.append((rel, "symlink"))
    elif not stat.S_ISREG(mode):
        refused.append((rel, "not a regular file"))
    elif UNSAFE_NAME.search(rel):
        refused.append((rel, "name holds a control character or a backslash"))
    elif rel.endswith(".bad"):
        refused.append((rel, "a failed transfer's leftover (.bad): inspect, then rename it"))
    elif not rel.endswith(TORN) and rel != "job/" + MANIFEST and rel not in RENEWED:
        size, sha256 = _marked(path, rel, mode) or hash_file(path)
        files.append({"path": rel, "bytes": size, "sha256": sha256})


def _marked(path: str, rel: str, mode: int):
    """(bytes, sha256) of a checkpoint from its completion marker, when the marker describes
    this file at its present size; None otherwise (the file is hashed)."""
    if not CHECKPOINT.fullmatch(rel):
        return None
    try:
        with open(path[:-len(".pt")] + ".json", encoding="utf-8") as handle:
            marker = json.load(handle)
        size, sha256 = int(marker["bytes"]), str(marker["sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    fits = marker.get("file") == os.path.basename(path) and len(sha256) == 64
    return (size, sha256) if fits and os.stat(path).st_size == size else None


def is_checkpoint(rel: str) -> bool:
    """Whether a bundle path is a checkpoint file (left out of a weights-only bundle)."""
    return bool(CHECKPOINT.fullmatch(rel))


def scan(root: str, run_id: str) -> list:
    """The manifest's ``files`` for ``run_id`` under ``root``, sorted by path.

    Raises:
        ManifestError: the run id is unsafe, or a file is a symlink, not a regular file, or
            has a name no transfer can carry (every offender is named).
    """
    check_run_id(run_id)
    files, refused = [], []
    for prefix, area in SOURCES:
        top = os.path.join(root, area, run_id)
        if os.path.islink(top):
            refused.append((prefix, "symlink"))
        elif os.path.isdir(top):
            _walk(top, prefix, files, refused)
    if refused:
        offenders = "; ".join(f"{rel} ({why})" for rel, why in refused)
        raise ManifestError(f"refusing to pull run {run_id}: {offenders}")
    return sorted(files, key=lambda entry: entry["path"])


def build(root: str, run_id: str, created_at: str = "", weights_only: bool = False) -> dict:
    """The manifest of ``run_id`` under ``root`` (not written); ``weights_only`` leaves the
    checkpoint files out (their markers stay)."""
    return from_files(scan(root, run_id), run_id, created_at, weights_only)


def from_files(files: list, run_id: str, created_at: str = "", weights_only: bool = False
               ) -> dict:
    """A manifest of ``files`` (a full scan; filtered when ``weights_only``)."""
    if weights_only:
        files = [entry for entry in files if not is_checkpoint(entry["path"])]
    manifest = {"schema": SCHEMA, "run_id": run_id,
                "created_at": created_at or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "files": files,
                "totals": {"files": len(files), "bytes": sum(entry["bytes"] for entry in files)}}
    if weights_only:
        manifest["weights_only"] = True
    return manifest


def canonical(obj: object) -> str:
    """Canonical JSON (sorted keys, no whitespace); equal to ``rgt.base.hashing.canonical_json``."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def manifest_sha256(manifest: dict) -> str:
    """The manifest's identity: sha256 of the canonical JSON of its run id and files only."""
    identity = {"run_id": manifest["run_id"], "files": manifest["files"]}
    return hashlib.sha256(canonical(identity).encode("ascii")).hexdigest()


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` via ``path.tmp``: flush, fsync, rename, fsync the directory."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def manifest_path(root: str, run_id: str) -> str:
    """Where the host keeps the manifest of ``run_id``."""
    return os.path.join(root, "jobs", check_run_id(run_id), MANIFEST)


def build_and_write(root: str, run_id: str, weights_only: bool = False) -> dict:
    """Build the manifest and write it atomically to ``manifest_path``; return it."""
    return write_manifest(root, build(root, run_id, weights_only=weights_only))


def write_manifest(root: str, manifest: dict) -> dict:
    """Write ``manifest`` atomically to its ``manifest_path``; return it."""
    path = manifest_path(root, manifest["run_id"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, manifest_text(manifest))
    return manifest


def manifest_text(manifest: dict) -> str:
    """The exact text of a ``PULL_MANIFEST.json`` file (so its sha256 is known in advance)."""
    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"


def run_ids(root: str, areas: tuple = ("runs", "checkpoints")) -> list:
    """Every run id with a directory (or anything but a plain file) under ``areas``."""
    found = set()
    for area in areas:
        top = os.path.join(root, area)
        if os.path.isdir(top):
            found.update(name for name in os.listdir(top)
                         if not os.path.isfile(os.path.join(top, name))
                         or os.path.islink(os.path.join(top, name)))
    return sorted(found)


def survey(root: str) -> dict:
    """Rebuild (and write) the manifest of every run under ``root``: digests or errors by id."""
    # Job records too (listed before the manifests below create any): a job launched seconds
    # ago may not have its checkpoint directory yet.
    runs, jobs = {}, run_ids(root, ("jobs",))
    for run_id in run_ids(root):
        try:
            files = scan(root, run_id)
            manifest = write_manifest(root, from_files(files, run_id))
        except (ManifestError, OSError) as error:
            runs[run_id] = {"error": str(error)}
        else:
            runs[run_id] = {"manifest_sha256": manifest_sha256(manifest),
                            "weights_only_sha256": manifest_sha256(
                                from_files(files, run_id, weights_only=True)),
                            **manifest["totals"]}
    return {"schema": "rgt/pull-survey/v1", "root_exists": os.path.isdir(root), "runs": runs,
            "jobs": jobs}


def main(argv: list) -> int:
    """``build ROOT RUN_ID [--weights-only]`` prints the manifest; ``survey ROOT`` prints every
    run's digests (full and weights-only)."""
    try:
        if len(argv) in (3, 4) and argv[0] == "build" and argv[3:] in ([], ["--weights-only"]):
            manifest = build_and_write(argv[1], argv[2], weights_only=len(argv) == 4)
            print(json.dumps(manifest, sort_keys=True))
        elif len(argv) == 2 and argv[0] == "survey":
            print(json.dumps(survey(argv[1]), sort_keys=True))
        else:
            print("usage: build ROOT RUN_ID [--weights-only] | survey ROOT", file=sys.stderr)
            return 64
    except (ManifestError, OSError) as error:
        print(str(error), file=sys.stderr)
        return 65
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
