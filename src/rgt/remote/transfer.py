"""Resumable file transfer over one ``RemoteHost``, verified end to end by sha256.

Both directions write ``<path>.part`` first, append only the bytes it lacks, check the whole
file's sha256 against the source's, then rename it into place: a reader sees the old file or the
complete new one. A ``.part`` whose hash does not match is kept as ``<path>.bad`` and never
replaces a valid file. Bulk bytes travel over plain exec streams (``cat``/``tail``), which with
AES-GCM run at scp's speed; paramiko's SFTP runs at a third of it (perf-anchors §3). Small files
without a partial copy travel together in one tar stream per batch (``batches.py``).
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from rgt.base.errors import RgtError
from rgt.base.files import DiskFull, free_bytes, is_disk_full
from rgt.base.hashing import sha256_file
from rgt.remote.batches import SMALL_FILE, batches, download_batch, upload_batch
from rgt.remote.listing import RemoteFiles, listing, size_and_hash_commands, survey
from rgt.remote.parse import marker, parse_manifest
from rgt.remote.ssh import RemoteHost
from rgt.remote.streams import (
    BAD,
    PART,
    Advance,
    download,
    local_part,
    progress,
    settle_part,
    upload,
)

# Remote listings are one name per line, and sha256sum escapes backslashes (see parse.py).
_UNLISTABLE = re.compile(r"[\x00-\x1f\x7f\\]")


class TransferError(RgtError):
    """A transfer could not be completed or verified; no valid file was replaced."""


@dataclass(frozen=True)
class TransferStats:
    """What a push or pull did. ``bytes_sent`` counts file bytes that crossed the wire."""

    files: int
    bytes_sent: int
    files_skipped: int
    seconds: float


def validate_relpath(path: str) -> str:
    """Return ``path`` if it is a normalised relative POSIX path that stays inside its root.

    Raises:
        TransferError: empty, absolute, ``..``-bearing, non-normalised, ``.part``/``.bad``
            names, or names holding a control character or a backslash.
    """
    pure = PurePosixPath(path)
    if (not path or path == "." or pure.is_absolute() or ".." in pure.parts
            or pure.as_posix() != path or path.endswith((PART, BAD)) or _UNLISTABLE.search(path)):
        raise TransferError(f"refusing transfer path {path!r}",
                            fix="give a normalised relative path inside the root, without '..', "
                                "control characters or backslashes")
    return path


def remote_manifest(host: RemoteHost, root: str, paths: Sequence[str] | None = None
                    ) -> dict[str, tuple[int, str]]:
    """``{relative path: (bytes, sha256)}`` of regular files under ``root`` on ``host``.

    One remote command (``stat`` + ``sha256``). With ``paths``, only those, and missing files
    are absent. Without, every regular file below ``root`` whose name a listing can carry (see
    ``validate_relpath``), ``.part``/``.bad`` leftovers included.
    """
    if paths is None:
        files = r"find . -type f ! -name '*[[:cntrl:]\\]*'"
        commands = [marker("size"), f"{files} -printf '%s %P\\n'",
                    marker("sha256"), f"{files} -exec $SHA256 {{}} +"]
    else:
        paths = sorted({validate_relpath(path) for path in paths})
        if not paths:
            return {}
        commands = size_and_hash_commands(paths, paths)
    sections = listing(host, root, commands)
    # find hands the hasher `./NAME`; the size listing prints NAME (%P).
    return parse_manifest(sections.get("size", []), sections.get("sha256", []),
                          hashed_prefix="./" if paths is None else "")


def _survey(host: RemoteHost, root: str, sized: list[str], hashed: list[str],
            create: bool = False) -> RemoteFiles:
    """``survey`` that refuses paths resolving outside ``root`` (a symlink escape)."""
    remote = survey(host, root, sized, hashed, create=create)
    if remote.escapes:
        raise TransferError(f"paths resolve outside {root} on {host.spec.alias}: "
                            f"{remote.escapes}",
                            fix="remove the symlinks that lead out of the transfer root")
    return remote


@dataclass(frozen=True)
class _Plan:
    """The files a push or pull still has to move, by relative path."""

    paths: dict[str, Path]
    """The local side: the file to send, or the target to receive into."""
    sizes: dict[str, int]
    offsets: dict[str, int]
    """Bytes an existing ``.part`` already holds (resumed from there)."""
    hashes: dict[str, str]
    """The sha256 each must end with (for a pull, only those given as ``expected``)."""

    def remaining(self) -> int:
        return sum(self.sizes[rel] - self.offsets[rel] for rel in self.paths)

    def batched(self) -> list[str]:
        """Small files with nothing to resume: these travel in tar batches."""
        return [rel for rel in self.paths if not self.offsets[rel]
                and self.sizes[rel] <= SMALL_FILE]


def _resume_offset(part_size: int | None, full_size: int) -> int:
    """Bytes of an existing ``.part`` to keep: all of them, unless it outgrew the file."""
    return part_size if part_size is not None and part_size <= full_size else 0


def push(host: RemoteHost, files: Mapping[str, Path], remote_root: str) -> TransferStats:
    """Copy local files to ``remote_root`` on ``host``: ``{remote relative path: local file}``.

    Skips files whose remote sha256 already matches; resumes a remote ``<path>.part`` from its
    size (appending only the missing tail); verifies each upload's sha256 remotely, then renames
    it into place. Creates remote directories as needed.

    Raises:
        TransferError: a bad path, a missing local file, or an upload that failed verification
            (kept as ``<path>.bad``; nothing valid is replaced).
    """
    started = time.monotonic()
    local = {validate_relpath(rel): Path(path) for rel, path in files.items()}
    missing = sorted(str(path) for path in local.values() if not path.is_file())
    if missing:
        raise TransferError(f"local files to push do not exist: {missing}", fix="create them")
    wanted = {rel: sha256_file(path) for rel, path in local.items()}
    rels = sorted(local)
    remote = _survey(host, remote_root, rels + [rel + PART for rel in rels], rels, create=True)
    todo = [rel for rel in rels if remote.hashes.get(rel) != wanted[rel]]
    sizes = {rel: local[rel].stat().st_size for rel in todo}
    plan = _Plan({rel: local[rel] for rel in todo}, sizes,
                 {rel: _resume_offset(remote.sizes.get(rel + PART), sizes[rel]) for rel in todo},
                 wanted)
    with progress(plan.remaining(), f"push to {host.spec.alias}") as advance:
        sent, bad = _upload_all(host, remote_root, plan, advance)
    _place_remote(host, remote_root, todo, bad)
    return TransferStats(len(todo), sent, len(rels) - len(todo), time.monotonic() - started)


def _upload_all(host: RemoteHost, root: str, plan: _Plan, advance: Advance
                ) -> tuple[int, list[str]]:
    """Upload every file into its remote ``.part``: (bytes sent, files that failed to verify)."""
    small = plan.batched()
    sent, bad = 0, []
    for group in batches(small, plan.sizes):
        count, got = upload_batch(host, root, {rel: plan.paths[rel] for rel in group}, advance)
        sent, bad = sent + count, bad + [rel for rel in group if got[rel] != plan.hashes[rel]]
    for rel in (rel for rel in plan.paths if rel not in small):
        count, ok = _send(host, root, rel, plan, advance)
        sent, bad = sent + count, bad + ([] if ok else [rel])
    return sent, bad


def _send(host: RemoteHost, root: str, rel: str, plan: _Plan, advance: Advance
          ) -> tuple[int, bool]:
    """Upload one file into its remote ``.part``: (bytes sent, verified?)."""
    path, offset = plan.paths[rel], plan.offsets[rel]
    sent, got = upload(host, root, rel, path, offset, advance)
    if got != plan.hashes[rel] and offset:
        # The kept prefix was cut from an older version of the file: start afresh, once.
        more, got = upload(host, root, rel, path, 0, advance)
        sent += more
    return sent, got == plan.hashes[rel]


def _place_remote(host: RemoteHost, root: str, rels: list[str], bad: list[str]) -> None:
    """Rename verified ``.part`` files into place and failed ones to ``.bad``; raise if any."""
    if not rels:
        return
    moves = [f"mv -f -- {shlex.quote(rel + PART)} {shlex.quote(rel + (BAD if rel in bad else ''))}"
             for rel in rels]
    host.run(" && ".join(moves), cwd=root)
    if bad:
        raise TransferError(f"uploads to {host.spec.alias} failed sha256 verification: {bad}",
                            fix="push again; the failed copies are kept as <path>.bad")


def pull(host: RemoteHost, remote_root: str, paths: Sequence[str], local_root: Path,
         expected: Mapping[str, str] | None = None) -> TransferStats:
    """Copy ``paths`` (relative to ``remote_root`` on ``host``) to the same paths in ``local_root``.

    Skips local files whose sha256 matches the remote one; streams the missing tail of a local
    ``<path>.part`` with one command per file (``tail -c +N``; small new files come in one tar
    batch instead), hashing it as it arrives, fsyncs it, verifies it, then renames it into
    place. A file with ``expected[path]`` is verified against that hash and the remote only
    streams it (each byte read once there); without, the remote hashes it while streaming.

    Raises:
        TransferError: a bad path, a file missing on the host, a remote file whose sha256 is not
            the expected one, or a download that failed verification (kept as ``<path>.bad``).
            Nothing valid is ever replaced.
    """
    started = time.monotonic()
    rels = sorted({validate_relpath(path) for path in paths})
    targets = {rel: _local_target(Path(local_root), rel) for rel in rels}
    expected = dict(expected or {})
    # Only a file already here may be skipped, so only its remote hash is needed up front.
    remote = _survey(host, remote_root, rels, [rel for rel in rels if targets[rel].is_file()])
    _check_sources(host, rels, remote, expected)
    todo = [rel for rel in rels if not _holds(targets[rel], remote.sizes[rel],
                                              remote.hashes.get(rel))]
    plan = _Plan({rel: targets[rel] for rel in todo}, remote.sizes,
                 {rel: _resume_offset(_size_or_none(local_part(targets[rel])), remote.sizes[rel])
                  for rel in todo}, expected)
    _require_room(Path(local_root), plan)
    try:
        with progress(plan.remaining(), f"pull from {host.spec.alias}") as advance:
            sent, failures = _download_all(host, remote_root, plan, advance)
    except OSError as error:  # the disk filled up meanwhile (another writer)
        if is_disk_full(error):
            raise DiskFull(Path(local_root) / "-", plan.remaining(),
                           f"the files of {host.spec.alias}") from None
        raise
    if failures:
        raise TransferError(f"downloads from {host.spec.alias} failed sha256 verification: "
                            + "; ".join(failures),
                            fix="pull again (the remote file may have changed meanwhile); the "
                                "failed copies are kept as <path>.bad")
    return TransferStats(len(todo), sent, len(rels) - len(todo), time.monotonic() - started)


def _require_room(local_root: Path, plan: _Plan) -> None:
    """Refuse before any byte moves when the local disk cannot hold what is left to pull."""
    existing = next((parent for parent in (local_root, *local_root.parents)
                     if parent.exists()), Path("."))
    if plan.paths and free_bytes(existing) < plan.remaining():
        raise DiskFull(local_root / "-", plan.remaining(), f"{len(plan.paths)} file(s)")


def _download_all(host: RemoteHost, root: str, plan: _Plan, advance: Advance
                  ) -> tuple[int, list[str]]:
    """Download every file into place: (bytes received, why each failed file failed)."""
    small = plan.batched()
    sent, failures = 0, []
    for group in batches(small, plan.sizes):
        count, digests = download_batch(
            host, root, {rel: local_part(plan.paths[rel]) for rel in group}, advance)
        sent += count
        failures += [failure for rel in group if (failure := settle_part(
            rel, plan.paths[rel], *digests[rel], plan.hashes.get(rel)))]
    for rel in (rel for rel in plan.paths if rel not in small):
        count, failure = _fetch(host, root, rel, plan, advance)
        sent, failures = sent + count, failures + ([failure] if failure else [])
    return sent, failures


def _local_target(root: Path, rel: str) -> Path:
    """``root/rel``, refused when a symlink takes it outside ``root``."""
    target = root / rel
    if not target.resolve().is_relative_to(root.resolve()):
        raise TransferError(f"{target} resolves outside {root}",
                            fix="remove the symlink that leads out of the local root")
    return target


def _check_sources(host: RemoteHost, rels: list[str], remote: RemoteFiles,
                   expected: Mapping[str, str]) -> None:
    """Refuse before any byte moves: files missing remotely, or known to differ from expected."""
    missing = [rel for rel in rels if rel not in remote.sizes]
    if missing:
        raise TransferError(f"not found on {host.spec.alias}: {missing}",
                            fix="check the remote paths (and that the job wrote its outputs)")
    wrong = [rel for rel in rels if rel in remote.hashes and rel in expected
             and remote.hashes[rel] != expected[rel]]
    if wrong:
        raise TransferError(
            f"remote files on {host.spec.alias} do not have their expected sha256: "
            + ", ".join(f"{rel} (is {remote.hashes[rel][:12]}, expected {expected[rel][:12]})"
                        for rel in wrong),
            fix="the remote copy is corrupt or stale; nothing local was changed")


def _size_or_none(path: Path) -> int | None:
    return path.stat().st_size if path.is_file() else None


def _holds(path: Path, size: int, sha256: str | None) -> bool:
    """Whether ``path`` already is the wanted file (the size check spares hashing a mismatch)."""
    return (sha256 is not None and path.is_file() and path.stat().st_size == size
            and sha256_file(path) == sha256)


def _fetch(host: RemoteHost, root: str, rel: str, plan: _Plan, advance: Advance
           ) -> tuple[int, str | None]:
    """Download ``rel`` via its local ``.part``: (bytes received, failure or None)."""
    target, offset, size = plan.paths[rel], plan.offsets[rel], plan.sizes[rel]
    want = plan.hashes.get(rel)
    received, ours, theirs = download(host, root, rel, local_part(target), offset, size,
                                      advance, want)
    if ours != theirs and offset:
        # The kept prefix came from an older version of the remote file: start afresh, once.
        more, ours, theirs = download(host, root, rel, local_part(target), 0, size, advance,
                                      want)
        received += more
    return received, settle_part(rel, target, ours, theirs, plan.hashes.get(rel))
