"""The project's one SSH wrapper: strict host keys, quoted arguments, typed results.

``RemoteHost`` connects lazily through paramiko, pins host keys (``known_hosts`` plus
``RejectPolicy``, never trust-on-first-use), quotes every argument, returns a ``Result`` and raises
on a non-zero exit. A dropped connection is retried only while no command can have started: a
command is never sent twice.
"""

from __future__ import annotations

import logging
import os
import shlex
import socket
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import paramiko

from rgt.base.errors import RgtError
from rgt.remote.channel import ChannelDropped, CommandTimedOut, Deadline, execute
from rgt.remote.hostkeys import HostKeyError, RefuseUnknownHostKey, changed_key_error
from rgt.remote.sshconfig import HostSpec, load_config, lookup_jump, resolve_host

__all__ = ["AuthenticationFailed", "ConnectionLost", "HostKeyError", "HostSpec",
           "RemoteCommandError", "RemoteHost", "RemoteTimeout", "Result", "UnknownHost",
           "build_command", "resolve_host"]

log = logging.getLogger(__name__)

# Fastest first. paramiko's default aes128-ctr + HMAC runs at a third of scp's speed, while
# AES-GCM matches scp (perf-anchors §3); paramiko has no chacha20-poly1305.
PREFERRED_CIPHERS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "aes128-ctr",
                     "aes256-ctr")
# paramiko's own rekey at 2**29 bytes (512 MiB) stalls exec streams for its 30 s kex timeout and
# then aborts them (paramiko/paramiko#822). Raised per transport; the OpenSSH peer still rekeys.
CLIENT_REKEY_LIMIT = 2**40
# Bulk streams advertise bigger packets than paramiko's 32 KiB default, whose per-packet Python
# work dominates; a moderate window, because paramiko moves what stays buffered on every partial
# read (bench/transfer.py: ours/scp 0.88 -> 0.96 on 256 MiB, 64 MiB windows were slower).
BULK_WINDOW = 4 << 20
BULK_PACKET = 128 << 10
BACKOFF_S = 1.0
STDERR_TAIL = 2000


class RemoteCommandError(RgtError):
    """A remote command exited with a non-zero status (``check=True``)."""

    def __init__(self, result: Result):
        tail = result.stderr[-STDERR_TAIL:].strip() or "(no stderr)"
        how = (f"exited with status {result.exit_status}" if result.exit_status != -1
               else "was killed by a signal (no exit status)")
        super().__init__(f"remote command {how}: {result.command}\n{tail}",
                         fix="read the stderr above; the command ran on the remote host")
        self.result = result


class ConnectionLost(RgtError):
    """The host could not be reached, or the connection dropped (after retries)."""


class UnknownHost(RgtError):
    """The host's name does not resolve: a typo or a missing ``Host`` block, never a host that
    is merely down (so it is not retried)."""


class AuthenticationFailed(RgtError):
    """The host refused every key offered for the user."""


class RemoteTimeout(RgtError):
    """A remote command ran past its timeout; it may still be running on the host."""


@dataclass(frozen=True)
class Result:
    """What one remote command did. ``stdout`` is empty when it was streamed to a sink."""

    command: str
    exit_status: int
    stdout: str
    stderr: str
    duration: float

    @property
    def ok(self) -> bool:
        return self.exit_status == 0


def build_command(argv: Sequence[str] | str, cwd: str | None = None) -> str:
    """The command line the remote shell runs.

    A list is joined with every element ``shlex.quote``-d, so each arrives literally. A str is
    passed as-is: only commands the project itself builds (with quoted parts) may be strings.
    """
    command = argv if isinstance(argv, str) else " ".join(shlex.quote(str(a)) for a in argv)
    if not command.strip():
        raise ValueError("empty remote command")
    return f"cd -- {shlex.quote(cwd)} && {{ {command}\n}}" if cwd else command


def _fast_transport(sock, disabled_algorithms=None) -> paramiko.Transport:
    """A transport that prefers AES-GCM and leaves rekeying to the server (see constants)."""
    transport = paramiko.Transport(sock, disabled_algorithms=disabled_algorithms)
    options = transport.get_security_options()
    available = options.ciphers
    options.ciphers = tuple(c for c in PREFERRED_CIPHERS if c in available) + tuple(
        c for c in available if c not in PREFERRED_CIPHERS)
    transport.packetizer.REKEY_BYTES = transport.packetizer.REKEY_PACKETS = CLIENT_REKEY_LIMIT
    return transport


_RETRYABLE = (OSError, EOFError, paramiko.SSHException)


class RemoteHost:
    """One SSH host. Connects on first use, reconnects after a drop, closes on ``close()``/exit.

    Use as ``with RemoteHost(resolve_host("gpu1")) as host: host.run(["nvidia-smi"])``.
    """

    def __init__(self, spec: HostSpec, connect_timeout: float = 15, keepalive: int = 15,
                 retries: int = 3):
        self.spec = spec
        self.connect_timeout = connect_timeout
        self.keepalive = keepalive
        self.retries = retries
        self._client: paramiko.SSHClient | None = None
        self._sftp: paramiko.SFTPClient | None = None
        self._jump: RemoteHost | None = None
        self._connecting = threading.Lock()

    def __enter__(self) -> RemoteHost:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def run(self, argv: Sequence[str] | str, *, stdin: bytes | None = None, timeout: float = 120,
            check: bool = True, cwd: str | None = None) -> Result:
        """Run a command and capture its output.

        Args:
            argv: a list (each element quoted) or a str the project built (passed as-is).
            stdin: bytes sent to the command's stdin (never logged).
            timeout: seconds the whole command may take.
            check: raise ``RemoteCommandError`` on a non-zero exit.
            cwd: remote directory to run in.

        Raises:
            RemoteCommandError, RemoteTimeout, ConnectionLost, HostKeyError, AuthenticationFailed.
        """
        captured = bytearray()
        result = self.stream(argv, sink=captured.extend, source=None if stdin is None else [stdin],
                             timeout=timeout, idle_timeout=None, check=False, cwd=cwd)
        result = replace(result, stdout=captured.decode("utf-8", "replace"))
        if check and not result.ok:
            raise RemoteCommandError(result)
        return result

    def stream(self, argv: Sequence[str] | str, *, sink: Callable[[bytes], object],
               source: Iterable[bytes] | None = None, timeout: float | None = None,
               idle_timeout: float | None = 120, check: bool = True,
               cwd: str | None = None) -> Result:
        """Run a command, feeding ``source`` chunks to its stdin and its stdout to ``sink``.

        For bulk transfers: ``timeout`` bounds the whole command, ``idle_timeout`` the wait for
        the next byte. ``Result.stdout`` is empty. Raises like ``run``.
        """
        command = build_command(argv, cwd)
        log.debug("%s: %s", self.spec.alias, command)
        channel = self._open_session(BULK_WINDOW, BULK_PACKET)
        try:
            status, stderr, seconds = execute(channel, command, source, sink,
                                              Deadline(timeout, idle_timeout))
        except CommandTimedOut:
            raise RemoteTimeout(f"{self.spec.alias}: still running after its timeout: {command}",
                                fix="raise the timeout, or run it detached; it may still be "
                                    "running on the host") from None
        except ChannelDropped as error:
            self._drop()
            raise self._lost(f"connection dropped while running: {command} ({error})") from None
        result = Result(command, status, "", stderr.decode("utf-8", "replace"), seconds)
        if check and not result.ok:
            raise RemoteCommandError(result)
        return result

    def write_secret(self, remote_path: str, value: bytes) -> None:
        """Write ``value`` to a mode-600 file: over stdin, never in argv, logs or errors."""
        quoted, temp = shlex.quote(remote_path), shlex.quote(remote_path + ".tmp")
        parent = shlex.quote(os.path.dirname(remote_path) or ".")
        self.run(f"umask 077 && mkdir -p -- {parent} && rm -f -- {temp} && cat > {temp} && "
                 f"chmod 600 -- {temp} && mv -f -- {temp} {quoted}", stdin=bytes(value))

    def sftp(self) -> paramiko.SFTPClient:
        """An SFTP session on this host's connection (opened once, closed by ``close``)."""
        if self._sftp is None or self._sftp.get_channel().closed:
            self._sftp = paramiko.SFTPClient.from_transport(self._transport())
        return self._sftp

    def close(self) -> None:
        """Close the SFTP session, the connection and any jump host connection."""
        self._drop()
        if self._jump is not None:
            self._jump.close()
            self._jump = None

    def _drop(self) -> None:
        for closable in (self._sftp, self._client):
            if closable is not None:
                closable.close()
        self._sftp = self._client = None

    def _lost(self, what: str) -> ConnectionLost:
        return ConnectionLost(f"{self.spec.alias} ({self.spec.hostname}:{self.spec.port}): {what}",
                              fix=f"check the host is up (`ssh {self.spec.alias} true`); this says "
                                  "nothing about a remote job, which may still be running")

    def _open_session(self, window: int | None = None, packet: int | None = None
                      ) -> paramiko.Channel:
        """A fresh session channel; reopens a stale connection (no command has started yet)."""
        for _ in range(2):
            transport = self._transport()
            try:
                return transport.open_session(timeout=self.connect_timeout, window_size=window,
                                              max_packet_size=packet)
            except _RETRYABLE as error:
                log.info("%s: could not open a channel (%s); reconnecting", self.spec.alias, error)
                self._drop()
        raise self._lost("could not open a session channel")

    def _transport(self) -> paramiko.Transport:
        """The live transport, (re)connecting with exponential back-off."""
        with self._connecting:  # threads sharing a host must not open two connections
            transport = self._client.get_transport() if self._client else None
            if transport is not None and transport.is_active():
                return transport
            self._drop()
            return self._connect_with_retries()

    def _connect_with_retries(self) -> paramiko.Transport:
        for attempt in range(self.retries + 1):
            try:
                self._client = self._connect_once()
                return self._client.get_transport()
            except (*_RETRYABLE, ConnectionLost) as error:
                if isinstance(error, paramiko.AuthenticationException):
                    raise self._auth_failed(error) from None
                if isinstance(error, socket.gaierror):
                    raise self._unknown(error) from None
                if attempt == self.retries:
                    raise self._lost(f"cannot connect after {attempt + 1} tries: {error}") from None
                log.info("%s: connect failed (%s); retrying", self.spec.alias, error)
                time.sleep(BACKOFF_S * 2**attempt)
        raise AssertionError("unreachable")

    def _unknown(self, error: socket.gaierror) -> UnknownHost:
        spec, where = self.spec, self.spec.config_file
        if spec.in_config:
            return UnknownHost(f"{spec.alias}: its HostName {spec.hostname} in {where} does not "
                               f"resolve ({error.strerror})",
                               fix=f"correct HostName under `Host {spec.alias}` in {where}")
        return UnknownHost(f"{spec.alias} is not a Host in {where} (the ssh config read) and "
                           f"does not resolve as a host name ({error.strerror})",
                           fix=f"check the spelling, or add `Host {spec.alias}` with HostName, "
                               f"Port, User and IdentityFile to {where}; another ssh config: "
                               "--ssh-config FILE (rgt) or --rgt-ssh-config FILE (snakemake)")

    def _auth_failed(self, error: Exception) -> AuthenticationFailed:
        keys = ", ".join(self.spec.identity_files) or "default keys and the ssh-agent"
        return AuthenticationFailed(
            f"{self.spec.alias}: user {self.spec.user} was refused with {keys} ({error})",
            fix=f"check User and IdentityFile in your ssh config (try `ssh {self.spec.alias} "
                "true`); load a passphrase-protected key into ssh-agent")

    def _connect_once(self) -> paramiko.SSHClient:
        client = paramiko.SSHClient()
        for path in self.spec.known_hosts:
            if Path(path).is_file():
                client.load_system_host_keys(path)
        client.set_missing_host_key_policy(RefuseUnknownHostKey(self.spec))
        try:
            client.connect(
                self.spec.hostname, self.spec.port, username=self.spec.user,
                key_filename=list(self.spec.identity_files) or None,
                look_for_keys=not self.spec.identity_files, timeout=self.connect_timeout,
                banner_timeout=self.connect_timeout, auth_timeout=self.connect_timeout,
                sock=self._jump_channel(), transport_factory=_fast_transport)
        except paramiko.BadHostKeyException as error:
            client.close()
            raise changed_key_error(self.spec, error) from None
        except BaseException:
            client.close()
            raise
        client.get_transport().set_keepalive(self.keepalive)
        return client

    def _jump_channel(self) -> paramiko.Channel | None:
        """A ``direct-tcpip`` channel to this host through the ProxyJump host, if any."""
        jump = self.spec.jump
        if jump is None and self.spec.proxy_jump:
            jump = lookup_jump(load_config(None), self.spec.proxy_jump, (self.spec.alias,))
        if jump is None:
            return None
        if self._jump is None:
            self._jump = RemoteHost(jump, self.connect_timeout, self.keepalive, retries=0)
        return self._jump._transport().open_channel(
            "direct-tcpip", (self.spec.hostname, self.spec.port), ("127.0.0.1", 0),
            timeout=self.connect_timeout)
