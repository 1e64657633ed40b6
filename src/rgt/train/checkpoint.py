"""Durable checkpoint store: atomic full-state saves with a completion marker written last.

Layout (docs/contracts.md, "Durable run state"): ``step-000000123.pt`` holds the state and
``step-000000123.json`` marks it complete. A checkpoint is trusted only when its marker parses,
its file has the marker's size and sha256, and ``torch.load(weights_only=True)`` accepts it.
Incomplete or corrupt checkpoints are skipped with a warning and never deleted.
"""

from __future__ import annotations

import json
import os
import re
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

from rgt.base.errors import CheckpointError
from rgt.base.files import write_json
from rgt.base.hashing import sha256_file
from rgt.train.checkpoint_io import write_state

SCHEMA = "rgt/checkpoint/v1"
_STEP_FILE = re.compile(r"^step-(\d+)\.(pt|json)$")


class CheckpointWarning(UserWarning):
    """A checkpoint was skipped or kept because it is incomplete or corrupt."""


@dataclass(frozen=True)
class CheckpointInfo:
    """One checkpoint on disk; ``seconds`` is how long writing it took and ``blocked_seconds``
    how long the caller waited for it (equal for a synchronous save; for a background save
    the snapshot, plus any wait for the save before it). Both are 0 for one found on disk."""

    step: int
    path: Path
    marker: Path
    bytes: int
    sha256: str
    seconds: float
    blocked_seconds: float = 0.0


class _Unusable(Exception):
    """Why a checkpoint cannot be trusted; the text becomes the warning."""


class CheckpointStore:
    """The checkpoints of one run in ``directory``; the newest ``keep`` good ones are kept.

    ``save`` writes synchronously; ``save_async`` snapshots the state and writes it in the
    background (``rgt.train.checkpoint_async``). Either way at most one save is in flight and
    saves land in the order they were asked for. Use the store as a context manager (or call
    ``close``) so that the process does not end before the save in flight is durable.
    """

    def __init__(self, directory: str | Path, keep: int = 2):
        if keep < 2:
            raise CheckpointError(
                f"checkpoint keep={keep} leaves no fallback when the newest save is torn",
                fix="set checkpoint keep to 2 or more",
            )
        self.directory = Path(directory)
        self.keep = keep
        # path -> (file identity + expected sha256, hash matched): spares re-reading files
        # this process wrote or verified itself when pruning.
        self._verified: dict[Path, tuple[tuple, bool]] = {}
        self._hash_pool: ThreadPoolExecutor | None = None
        self._writer = None  # the BackgroundWriter, from the first save_async on

    def __enter__(self) -> CheckpointStore:
        return self

    def __exit__(self, exc_type, exc, traceback) -> None:
        if exc_type is None:
            self.close()
            return
        try:  # the state in flight was taken at a step boundary: still worth landing
            self.close()
        except Exception as error:  # noqa: BLE001 - the first failure is the one to report
            _warn(f"checkpoint in flight failed after an earlier error: {error!r}", 2)

    def save(self, step: int, state: dict) -> CheckpointInfo:
        """Write ``state`` atomically, then its marker, then prune old good checkpoints.

        Synchronous: returns when the checkpoint is durable (after a background save still in
        flight, which lands first).
        """
        _check_step(step)
        started = time.perf_counter()
        self.wait()
        info = self._save_now(step, state)
        seconds = time.perf_counter() - started
        return replace(info, seconds=seconds, blocked_seconds=seconds)

    def save_async(self, step: int, state: dict):
        """Snapshot ``state`` to host memory and write it in the background; returns a
        ``PendingSave`` (its ``blocked_seconds`` is what this call cost the caller).

        Waits for a save still in flight first. When the snapshot would not fit in the host's
        available memory, saves synchronously instead, with a ``CheckpointWarning``.
        """
        from rgt.train.checkpoint_async import BackgroundWriter, completed

        started = time.perf_counter()
        _check_step(step)
        if self._writer is None:
            self._writer = BackgroundWriter(self._save_now)
        if self._writer.has_room(state):
            return self._writer.submit(step, state, started)
        _warn(f"checkpoint of step {step}: no room for a host-memory snapshot; saved "
              "synchronously", 2)
        return completed(step, self.save(step, state))

    def wait(self) -> CheckpointInfo | None:
        """Block until a background save in flight is durable; its info, or None if none was.
        Raises the background write's error, if it failed."""
        return self._writer.wait() if self._writer is not None else None

    def close(self) -> None:
        """Wait for the save in flight and stop the store's threads (it stays usable)."""
        try:
            if self._writer is not None:
                self._writer.close()
        finally:
            if self._hash_pool is not None:
                self._hash_pool.shutdown(wait=True)
                self._hash_pool = None

    def _save_now(self, step: int, state: dict) -> CheckpointInfo:
        """The protocol itself, in the calling thread: set aside, write, mark, prune."""
        started = time.perf_counter()
        path, marker = self._paths(step)
        self._set_aside_unless_good(step)
        marker.unlink(missing_ok=True)  # a stale marker must never describe the new bytes
        size, digest = write_state(path, state, self._hashing_pool())
        write_json(marker, _marker_body(step, path.name, size, digest))
        self._remember(path, digest, matched=True)
        self._prune()
        seconds = time.perf_counter() - started
        return CheckpointInfo(step, path, marker, size, digest, seconds, seconds)

    def complete(self) -> list[CheckpointInfo]:
        """Checkpoints whose marker parses and whose file has the marker's size, newest first."""
        found = []
        for step in self._steps():
            try:
                found.append(self._inspect(step))
            except _Unusable:
                continue
        return found

    def load_latest(self) -> tuple[dict, CheckpointInfo] | None:
        """Load the newest checkpoint that verifies; None when there is none (a first launch).

        Every newer checkpoint that does not verify is skipped with a ``CheckpointWarning``
        naming the file and the reason, and left on disk.
        """
        for step in self._steps():
            try:
                info = self._inspect(step)
                return self._load_verified(info), info
            except _Unusable as reason:
                _warn(f"skipping checkpoint {self._paths(step)[0]}: {reason}; left on disk", 2)
        return None

    def load(self, step: int) -> tuple[dict, CheckpointInfo]:
        """Load the checkpoint of ``step`` (verified as in ``load_latest``); the other ranks
        of a multi-process run load the one rank 0 chose. ``CheckpointError`` if unusable."""
        try:
            info = self._inspect(step)
            return self._load_verified(info), info
        except _Unusable as reason:
            raise CheckpointError(
                f"checkpoint {self._paths(step)[0]} cannot be loaded: {reason}",
                "rerun the same command: rank 0 picks the newest complete checkpoint again"
            ) from None

    def _set_aside_unless_good(self, step: int) -> None:
        """Before a step is saved again (a replay after resuming from an older checkpoint),
        rename a bad or incomplete earlier save of it to ``*.corrupt-N``: bad checkpoints are
        evidence of what went wrong and are never deleted, not even by overwriting."""
        path, marker = self._paths(step)
        if not path.exists() and not marker.exists():
            return
        try:
            if self._hash_matches(self._inspect(step)):
                return
        except _Unusable:
            pass
        suffix = next(f".corrupt-{n}" for n in range(1, 10_000)
                      if not path.with_name(path.name + f".corrupt-{n}").exists()
                      and not marker.with_name(marker.name + f".corrupt-{n}").exists())
        for existing in (path, marker):
            if existing.exists():
                existing.rename(existing.with_name(existing.name + suffix))
        _warn(f"checkpoint {path} did not verify; set aside as {path.name}{suffix}", 4)

    def _paths(self, step: int) -> tuple[Path, Path]:
        stem = self.directory / f"step-{step:09d}"
        return stem.with_suffix(".pt"), stem.with_suffix(".json")

    def _steps(self) -> list[int]:
        """Steps with a checkpoint file or a marker, newest first."""
        if not self.directory.is_dir():
            return []
        names = (_STEP_FILE.match(p.name) for p in self.directory.iterdir())
        return sorted({int(m[1]) for m in names if m}, reverse=True)

    def _hashing_pool(self) -> ThreadPoolExecutor:
        if self._hash_pool is None:
            self._hash_pool = ThreadPoolExecutor(1, thread_name_prefix="rgt-checkpoint-hash")
        return self._hash_pool

    def _inspect(self, step: int) -> CheckpointInfo:
        """The checkpoint of ``step`` as its marker describes it; _Unusable if it does not fit."""
        path, marker = self._paths(step)
        if not marker.exists():
            raise _Unusable("no completion marker (the save never finished)")
        try:
            body = json.loads(marker.read_text(encoding="utf-8"))
            size, digest = int(body["bytes"]), str(body["sha256"])
            fits = (body["schema"], body["step"], body["file"]) == (SCHEMA, step, path.name)
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise _Unusable(f"unreadable marker {marker.name} ({err!r})") from None
        if not fits:
            raise _Unusable(f"marker {marker.name} does not describe {path.name}")
        if not path.exists():
            raise _Unusable(f"{path.name} is missing although {marker.name} exists")
        if path.stat().st_size != size:
            raise _Unusable(f"file has {path.stat().st_size} bytes, its marker says {size}")
        return CheckpointInfo(step, path, marker, size, digest, 0.0)

    def _load_verified(self, info: CheckpointInfo) -> dict:
        import torch  # deferred (~1.4 s): `rgt status` lists checkpoints through this class

        if not self._hash_matches(info, trust_cache=False):
            raise _Unusable("sha256 does not match its marker (corrupt)")
        try:
            state = torch.load(info.path, weights_only=True, map_location="cpu")
        except Exception as err:  # noqa: BLE001 - untrusted bytes: any failure means unusable
            raise _Unusable(f"torch.load failed ({type(err).__name__}: {err})") from None
        if not isinstance(state, dict):
            raise _Unusable(f"holds a {type(state).__name__}, not a state dict")
        return state

    def _hash_matches(self, info: CheckpointInfo, trust_cache: bool = True) -> bool:
        cached = self._verified.get(info.path)
        if trust_cache and cached and cached[0] == _identity(info.path, info.sha256):
            return cached[1]
        matched = sha256_file(info.path) == info.sha256
        self._remember(info.path, info.sha256, matched)
        return matched

    def _remember(self, path: Path, digest: str, matched: bool) -> None:
        self._verified[path] = (_identity(path, digest), matched)

    def _prune(self) -> None:
        """Delete good checkpoints older than the newest ``keep`` good ones; keep all bad ones."""
        good = 0
        for info in self.complete():
            if not self._hash_matches(info):
                _warn(f"checkpoint {info.path} does not match its sha256; kept on disk", 4)
                continue
            good += 1
            if good > self.keep:
                # Marker first: a crash in between leaves an incomplete file, never a marker
                # that promises a missing one.
                info.marker.unlink(missing_ok=True)
                info.path.unlink(missing_ok=True)
                self._verified.pop(info.path, None)


def _check_step(step: int) -> None:
    if step < 0:
        raise CheckpointError(f"checkpoint step {step} is negative", fix="count steps from 0")


def _warn(message: str, stacklevel: int) -> None:
    warnings.warn(message, CheckpointWarning, stacklevel=stacklevel + 1)


def _identity(path: Path, digest: str) -> tuple:
    """What must stay equal for an earlier hash verdict on ``path`` to still hold."""
    st = os.stat(path)
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, digest)


def _marker_body(step: int, file_name: str, size: int, digest: str) -> dict:
    created = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
    return {
        "schema": SCHEMA,
        "step": step,
        "file": file_name,
        "bytes": size,
        "sha256": digest,
        "created_at": created.replace("+00:00", "Z"),
    }
