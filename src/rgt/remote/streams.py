"""Move one file's bytes between a local file and a remote ``.part`` over one exec stream.

Each function runs exactly one remote command and reports the sha256 the remote side computed,
so the caller can verify end to end. Remote hashing prefers ``openssl dgst`` (SHA-NI, about 1.2
GB/s here) over coreutils ``sha256sum`` (no SHA-NI in coreutils 9.1: about 160 MB/s).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from rich.progress import DownloadColumn, Progress, TransferSpeedColumn

from rgt.base.files import fsync_dir
from rgt.remote.parse import sha256_printed
from rgt.remote.ssh import RemoteHost

CHUNK = 1 << 20
PART, BAD = ".part", ".bad"
IDLE_TIMEOUT_S = 120
# While the remote hashes a file (after an upload, or beyond a download that outran it) no byte
# moves; coreutils sha256sum runs at ~160 MB/s here, so allow 20 MB/s on a weak CPU.
SLOWEST_HASH_BYTES_PER_S = 20e6
FLUSH_EVERY = 32 << 20
# Sets $SHA256 to a command printing `HASH *NAME` (openssl) or `HASH  NAME` (coreutils) lines;
# used unquoted (`$SHA256 -- FILE...`) so the shell splits it into words.
SHA256_SETUP = ('if command -v openssl >/dev/null 2>&1; then SHA256="openssl dgst -sha256 -r"; '
                'else SHA256=sha256sum; fi')

Advance = Callable[[int], object]
_BAR = threading.Lock()


@contextmanager
def progress(total: int, label: str) -> Iterator[Advance]:
    """A rich byte-progress bar when stdout is a terminal; a no-op callback otherwise.

    One bar at a time: a transfer started while another shows its bar (the mirror thread's,
    beside a pull) runs without one, since rich allows a single live display.
    """
    if total <= 0 or not sys.stdout.isatty() or not _BAR.acquire(blocking=False):
        yield lambda _: None
        return
    try:
        with Progress(*Progress.get_default_columns(), DownloadColumn(), TransferSpeedColumn(),
                      transient=True) as bar:
            task = bar.add_task(label, total=total)
            yield lambda n: bar.advance(task, n)
    finally:
        _BAR.release()


def idle_timeout(size: int) -> float:
    """Seconds a transfer of ``size`` bytes may go without receiving a byte."""
    return IDLE_TIMEOUT_S + size / SLOWEST_HASH_BYTES_PER_S


def read_from(path: Path, offset: int, advance: Advance) -> Iterator[bytes]:
    """``path``'s bytes from ``offset`` on, in chunks, reporting each to ``advance``."""
    with open(path, "rb") as handle:
        handle.seek(offset)
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            advance(len(chunk))
            yield chunk


def upload(host: RemoteHost, root: str, rel: str, path: Path, offset: int,
           advance: Advance) -> tuple[int, str | None]:
    """Write ``path`` from ``offset`` on into the remote ``rel.part`` (appending when
    ``offset`` > 0), fsync it there; return (bytes sent, the part's remote sha256)."""
    part = shlex.quote(rel + PART)
    parent = shlex.quote(PurePosixPath(rel).parent.as_posix())
    redirect = ">>" if offset else ">"
    # `sync FILE` fsyncs the part, so the rename that later puts it in place never exposes a
    # torn file after a crash of the remote machine.
    printed = bytearray()
    host.stream(f"{SHA256_SETUP}; mkdir -p -- {parent} && cat {redirect} {part} && "
                f"sync -- {part} && $SHA256 -- {part}", cwd=root, sink=printed.extend,
                source=read_from(path, offset, advance),
                idle_timeout=idle_timeout(path.stat().st_size))
    return path.stat().st_size - offset, sha256_printed(printed.decode(), rel + PART)


def download(host: RemoteHost, root: str, rel: str, part: Path, offset: int, size: int,
             advance: Advance, expected: str | None = None) -> tuple[int, str, str | None]:
    """Append the remote ``rel`` (``size`` bytes) from ``offset`` on to local ``part``; fsync.

    The bytes are hashed here as they arrive (never read back). Without ``expected``, the
    remote hashes the whole file in the background while streaming it (one command); with the
    sha256 the file must have (a checkpoint's marker, a pull manifest's entry), the remote only
    streams it, reading each byte once, and the part is checked against ``expected``.
    Returns (bytes received, sha256 of the local part, the sha256 to match: the remote's, or
    ``expected``).
    """
    part.parent.mkdir(parents=True, exist_ok=True)
    digest = sha256_prefix(part, offset)
    quoted = shlex.quote(rel)
    reader = f"tail -c +{offset + 1}" if offset else "cat"
    command = (f"{reader} -- {quoted}" if expected else
               f"{SHA256_SETUP}; $SHA256 -- {quoted} >&2 & hasher=$!; {reader} -- {quoted}; "
               "status=$?; wait $hasher || exit 70; exit $status")
    with open(part, "r+b" if offset else "wb") as out:
        out.seek(offset)
        out.truncate()
        sink = _HashingWriter(out, digest, advance)
        try:
            result = host.stream(command, cwd=root, sink=sink, idle_timeout=idle_timeout(size))
        finally:
            sink.flusher.close()
        out.flush()
        os.fsync(out.fileno())
    theirs = expected or sha256_printed(result.stderr, rel)
    return sink.received, digest.hexdigest(), theirs


class _HashingWriter:
    """A sink that writes chunks to a file while hashing and counting them."""

    def __init__(self, out, digest, advance: Advance):
        self.out, self.digest, self.advance = out, digest, advance
        self.received = self.unflushed = 0
        self.flusher = _BackgroundFlush(out.fileno())

    def __call__(self, chunk: bytes) -> None:
        self.out.write(chunk)
        self.digest.update(chunk)
        self.received += len(chunk)
        self.unflushed += len(chunk)
        if self.unflushed >= FLUSH_EVERY:
            self.flusher.request()
            self.unflushed = 0
        self.advance(len(chunk))


class _BackgroundFlush:
    """``fdatasync`` a file from a helper thread on request, while the download goes on.

    A single fsync after a 512 MiB download took 0.85 s here (a third of the transfer);
    flushing as the bytes arrive leaves the final fsync only the last few MiB.
    """

    def __init__(self, fd: int):
        self.fd = fd
        self._wake = threading.Event()
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="rgt-fdatasync", daemon=True)
        self._thread.start()

    def request(self) -> None:
        self._wake.set()

    def close(self) -> None:
        self._closing = True
        self._wake.set()
        self._thread.join()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._closing:
                return
            os.fdatasync(self.fd)


def sha256_prefix(path: Path, length: int):
    """A running sha256 already fed the first ``length`` bytes of ``path``."""
    digest = hashlib.sha256()
    if length:
        with open(path, "rb") as handle:
            while length > 0 and (chunk := handle.read(min(CHUNK, length))):
                digest.update(chunk)
                length -= len(chunk)
    return digest


def local_part(target: Path) -> Path:
    """Where a download into ``target`` collects its bytes until verified."""
    return target.with_name(target.name + PART)


def settle_part(rel: str, target: Path, ours: str | None, theirs: str | None, want: str | None
            ) -> str | None:
    """Rename a verified ``.part`` into place, or a failed one to ``.bad`` (then say why)."""
    part = local_part(target)
    if ours is not None and ours == theirs and want in (None, ours):
        os.replace(part, target)
        fsync_dir(target.parent)
        return None
    if part.exists():
        os.replace(part, target.with_name(target.name + BAD))
    return f"{rel} (got {str(ours)[:12]}, remote {str(theirs)[:12]}, expected {str(want)[:12]})"
