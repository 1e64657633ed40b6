"""Drive one exec channel: send stdin, pump stdout and stderr, collect the exit status.

Kept apart from ``ssh.py`` so the connection policy (keys, retries, errors a user reads) stays
separate from the byte pumping. Raises only the two internal exceptions below; ``RemoteHost``
turns them into the project's errors.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

import paramiko

CHUNK = 4 << 20  # a bulk window's worth: take all that is buffered (see ssh.BULK_WINDOW)
PACKET = 1 << 15  # paramiko's maximum packet payload: each send moves at most this
POLL_S = 0.1
# A channel closed without an exit status means either a dropped transport or a command killed
# by a signal (paramiko ignores "exit-signal"); the transport thread marks itself inactive a
# moment after it closes its channels, so wait this long before deciding which.
DROP_GRACE_S = 1.0


class CommandTimedOut(Exception):
    """The command ran past its total or idle timeout."""


class ChannelDropped(Exception):
    """The connection died before the command reported an exit status."""


class Deadline:
    """A total and an idle (no byte received) time limit; ``None`` means unlimited."""

    def __init__(self, total: float | None, idle: float | None):
        self.started = self.last_byte = time.monotonic()
        self.total, self.idle = total, idle

    def progressed(self) -> None:
        self.last_byte = time.monotonic()

    def check(self) -> None:
        now = time.monotonic()
        if self.total is not None and now - self.started > self.total:
            raise CommandTimedOut
        if self.idle is not None and now - self.last_byte > self.idle:
            raise CommandTimedOut


def execute(channel: paramiko.Channel, command: str, source: Iterable[bytes] | None,
            sink: Callable[[bytes], object], deadline: Deadline) -> tuple[int, bytes, float]:
    """Run ``command`` on ``channel`` (then close it); return (exit status, stderr, seconds)."""
    stderr = bytearray()
    try:
        channel.settimeout(POLL_S)
        channel.exec_command(command)
        feeder = _feed(channel, source)
        _pump_stdout(channel, sink, stderr, deadline)
        _drain_stderr(channel, stderr, deadline)
        status = _exit_status(channel, deadline)
        if feeder is not None:
            feeder.join(POLL_S)
    except (OSError, EOFError, paramiko.SSHException) as error:
        raise ChannelDropped(str(error) or type(error).__name__) from None
    finally:
        channel.close()
    return status, bytes(stderr), time.monotonic() - deadline.started


def _feed(channel: paramiko.Channel, source: Iterable[bytes] | None) -> threading.Thread | None:
    """Send ``source`` then EOF. A thread, so a command that writes before it reads all its
    stdin cannot deadlock against us on the shared channel window."""
    if source is None:
        channel.shutdown_write()
        return None

    def send_all() -> None:
        try:
            for chunk in source:
                _send(channel, chunk)
            channel.shutdown_write()
        except (OSError, EOFError, paramiko.SSHException):
            pass  # the command exited or the connection dropped: the reader sees which

    feeder = threading.Thread(target=send_all, name="rgt-ssh-stdin", daemon=True)
    feeder.start()
    return feeder


def _send(channel: paramiko.Channel, chunk: bytes) -> None:
    """``sendall`` that survives the channel's short poll timeout (it would drop bytes)."""
    view = memoryview(chunk)
    for start in range(0, len(view), PACKET):
        piece = bytes(view[start:start + PACKET])
        while piece:
            try:
                sent = channel.send(piece)
            except TimeoutError:
                continue
            if sent == 0:
                raise EOFError("channel closed while sending")
            piece = piece[sent:]


def _pump_stdout(channel: paramiko.Channel, sink: Callable[[bytes], object], stderr: bytearray,
                 deadline: Deadline) -> None:
    while True:
        while channel.recv_stderr_ready():
            stderr += channel.recv_stderr(CHUNK)
        try:
            data = channel.recv(CHUNK)
        except TimeoutError:
            deadline.check()
            continue
        if not data:
            return
        deadline.progressed()
        sink(data)


def _drain_stderr(channel: paramiko.Channel, stderr: bytearray, deadline: Deadline) -> None:
    while True:
        try:
            data = channel.recv_stderr(CHUNK)
        except TimeoutError:
            deadline.check()
            continue
        if not data:
            return
        stderr += data


def _exit_status(channel: paramiko.Channel, deadline: Deadline) -> int:
    while not channel.status_event.wait(POLL_S):
        deadline.check()
    if channel.exit_status != -1:
        return channel.exit_status
    transport = channel.get_transport()
    give_up = time.monotonic() + DROP_GRACE_S
    while transport.is_active() and time.monotonic() < give_up:
        time.sleep(0.02)
    if not transport.is_active():
        raise ChannelDropped("the connection closed before the command's exit status arrived")
    return -1
