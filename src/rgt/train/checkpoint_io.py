"""Bytes of one checkpoint on disk: ``torch.save`` through the atomic protocol, with its sha256.

The protocol is the one of ``rgt.base.files``: ``<path>.tmp`` → fsync → ``os.replace`` → fsync
of the directory. Two choices make it about as fast as writing the same bytes raw:

- torch's own file writer (``torch.save`` to a path), not a Python file object: every record
  would otherwise cross into Python, and the zip CRC32 torch computes per record (as slow as
  the write itself) is switched off — the marker's sha256 covers every byte already, and
  ``torch.load`` does not need the CRC.
- the sha256 is computed by a second thread that reads the new file back from the page cache
  as it grows (torch's writer only appends: it refuses to seek) and on while this thread
  waits in ``fsync``: serialising, hashing and the disk flush overlap instead of adding up.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from rgt.base.files import DiskFull, free_bytes, fsync_dir, fsync_path, is_disk_full

CHUNK = 1 << 20
POLL_S = 0.001  # how long the hashing thread waits when it has caught up with the writer
_CRC_LOCK = threading.Lock()


def write_state(path: Path, state: dict, pool: ThreadPoolExecutor) -> tuple[int, str]:
    """Write ``state`` to ``path`` atomically and durably; return its size and sha256.

    On any failure the temp file is removed and ``path`` is untouched. ``pool`` runs the hash.
    """
    import torch  # deferred: reading markers must not pay for the torch import

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    # A crashed save's leftover goes first, so the file the reader opens is the new one. Not
    # truncated: ext4 flushes a file truncated to zero and rewritten when it is closed, and
    # torch closes it holding the GIL (about 0.1 s per 256 MiB with training stalled).
    tmp.unlink(missing_ok=True)
    tail = _GrowingFileHash(tmp)
    hashed = pool.submit(tail.run)
    try:
        try:
            with _without_zip_crc32(torch):
                torch.save(state, str(tmp))
        finally:
            tail.writer_done.set()
        fsync_path(tmp)
        size, digest = hashed.result()
        if size != tmp.stat().st_size:  # a broken assumption must never reach a marker
            raise OSError(f"hashed {size} bytes of {tmp}, which has {tmp.stat().st_size}")
    except BaseException as error:
        tail.writer_done.set()
        full = _disk_full(error, path, state)
        tmp.unlink(missing_ok=True)  # frees what the torn write took: the status can be written
        if full:
            raise full from None
        raise
    os.replace(tmp, path)
    fsync_dir(path.parent)
    return size, digest


def _disk_full(error: BaseException, path: Path, state: dict) -> DiskFull | None:
    """A ``DiskFull`` when ``error`` came from a full disk: an ``OSError`` saying so, or
    torch's writer failing (it reports ENOSPC as a ``RuntimeError``) with less room left than
    the state needs."""
    needed = state_bytes(state)
    if is_disk_full(error) or (isinstance(error, RuntimeError)
                               and free_bytes(path.parent) < needed):
        return DiskFull(path, needed)
    return None


def state_bytes(state: object) -> int:
    """The bytes of the tensors in a (nested) state: about what its checkpoint takes."""
    if hasattr(state, "element_size") and hasattr(state, "numel"):
        return int(state.element_size() * state.numel())
    if isinstance(state, dict):
        return sum(state_bytes(value) for value in state.values())
    if isinstance(state, (list, tuple)):
        return sum(state_bytes(value) for value in state)
    return 0


class _GrowingFileHash:
    """Hashes a file while another thread appends to it, until told the writer is done."""

    def __init__(self, path: Path):
        self.path = path
        self.writer_done = threading.Event()

    def run(self) -> tuple[int, str]:
        digest, size = hashlib.sha256(), 0
        buffer = bytearray(CHUNK)
        view = memoryview(buffer)
        with self._open_once_created() as handle:
            while True:
                finished = self.writer_done.is_set()  # before the read: then EOF is the end
                count = handle.readinto(buffer)
                if count:
                    digest.update(view[:count])
                    size += count
                elif finished:
                    return size, digest.hexdigest()
                else:
                    self.writer_done.wait(POLL_S)

    def _open_once_created(self):
        while True:
            finished = self.writer_done.is_set()
            try:
                return open(self.path, "rb", buffering=0)
            except FileNotFoundError:
                if finished:  # the writer failed before creating it
                    raise
                self.writer_done.wait(POLL_S)




@contextmanager
def _without_zip_crc32(torch) -> Iterator[None]:
    """No per-record CRC32 for this save (a process-wide torch setting, restored after; the
    lock keeps two of our own saves from restoring it under each other)."""
    setter = getattr(torch.serialization, "set_crc32_options", None)
    if setter is None:  # torch < 2.6 always computes it
        yield
        return
    with _CRC_LOCK:
        previous = torch.serialization.get_crc32_options()
        setter(False)
        try:
            yield
        finally:
            setter(previous)
