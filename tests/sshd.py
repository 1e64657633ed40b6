"""A real OpenSSH server on 127.0.0.1 for tests and benchmarks: a stand-in for a rented machine.

``start_sshd(state_dir)`` writes its own host key, client key, ``authorized_keys``,
``known_hosts`` and an ``ssh_config`` with two aliases (``ALIAS``, and ``JUMP_ALIAS``, which reaches
the same server through ``ProxyJump ALIAS``), then runs ``/usr/sbin/sshd -D -e`` on a
free loopback port. ``disk`` is the directory that stands for the rented machine's disk. The
server is stopped by its pid, never by name.

Sessions get their own ``HOME`` (``state/home``), like a fresh rented machine, rather than the
local user's, whose ``~/.bashrc`` bash would run for every command sshd starts.
``slow_shell(True)`` makes each remote ``bash -c COMMAND`` pause 0.3 s before running (from that
``.bashrc``, or ``BASH_ENV`` where bash does not read ``.bashrc`` for sshd), so a test polling
``/proc/*/cmdline`` cannot miss what a command line carried.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

SSHD = Path("/usr/sbin/sshd")
ALIAS = "rgt-loop"
JUMP_ALIAS = "rgt-loop-via-jump"


class SshdMissing(RuntimeError):
    """OpenSSH's server binary is not installed on this machine."""


@dataclass
class LoopbackSshd:
    """A running loopback sshd and the client-side files that reach it."""

    state: Path
    port: int
    process: subprocess.Popen
    alias: str = ALIAS

    @property
    def ssh_config(self) -> Path:
        return self.state / "ssh_config"

    @property
    def known_hosts(self) -> Path:
        return self.state / "known_hosts"

    @property
    def client_key(self) -> Path:
        return self.state / "client_key"

    @property
    def host_public_key(self) -> str:
        return (self.state / "host_ed25519_key.pub").read_text().split()[1]

    @property
    def disk(self) -> Path:
        return self.state / "disk"

    @property
    def log(self) -> Path:
        return self.state / "sshd.log"

    def slow_shell(self, slow: bool) -> None:
        """Make every remote shell pause 0.3 s before running its command (or stop that)."""
        marker = self.state / "slow"
        if slow:
            marker.touch()
        else:
            marker.unlink(missing_ok=True)

    def session_pids(self) -> list[int]:
        """Pids of the sshd processes serving connections (direct children of the listener)."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in children.read_text().split()]

    def release(self) -> None:
        """Stop the server and what was left running on its disk (detached jobs, watchdogs),
        as giving a rented machine back would: for the end of a test session."""
        self.stop()
        for pid in self.detached_pids():
            _kill_quietly(pid)

    def detached_pids(self) -> list[int]:
        """Pids of processes whose command line names this server's disk or that run in a
        directory of it (jobs, the commands they start, watchdogs)."""
        needle, found = str(self.disk).encode(), []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != os.getpid():
                with contextlib.suppress(OSError):
                    where = os.readlink(entry / "cwd").encode() + b"/"
                    if needle in (entry / "cmdline").read_bytes() or \
                            where.startswith(needle + b"/"):
                        found.append(int(entry.name))
        return found

    def stop(self) -> None:
        """Stop the listener and every connection it serves (what runs detached goes on)."""
        if self.process.poll() is not None:
            return
        # Frozen first, so that no connection is accepted between the census and the kill.
        self.process.send_signal(signal.SIGSTOP)
        for pid in self.session_pids():
            _kill_quietly(pid)
        self.process.kill()
        self.process.wait(timeout=10)


def _kill_quietly(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)


def _sshd_config(state: Path, port: int) -> str:
    return f"""Port {port}
ListenAddress 127.0.0.1
HostKey {state}/host_ed25519_key
PidFile {state}/sshd.pid
AuthorizedKeysFile {state}/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AllowTcpForwarding yes
UsePAM no
StrictModes no
MaxStartups 64
LogLevel VERBOSE
SetEnv HOME={state}/home BASH_ENV={state}/home/.bashrc
Subsystem sftp internal-sftp
"""


def _ssh_config(state: Path, port: int, alias: str = ALIAS) -> str:
    common = f"""  HostName 127.0.0.1
  Port {port}
  User {getpass.getuser()}
  IdentityFile {state}/client_key
  IdentitiesOnly yes
  UserKnownHostsFile {state}/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
"""
    return f"Host {alias}\n{common}\nHost {JUMP_ALIAS}\n{common}  ProxyJump {alias}\n"


def write_files(state: Path, port: int, alias: str = ALIAS) -> None:
    """Keys, known_hosts, sshd_config and ssh_config for a server on ``port``."""
    state.mkdir(parents=True, exist_ok=True)
    (state / "disk").mkdir(exist_ok=True)
    _keygen(state / "host_ed25519_key")
    _keygen(state / "client_key")
    public = (state / "client_key.pub").read_text()
    (state / "authorized_keys").write_text(public)
    key_type, key = (state / "host_ed25519_key.pub").read_text().split()[:2]
    (state / "known_hosts").write_text(f"[127.0.0.1]:{port} {key_type} {key}\n")
    (state / "home").mkdir(exist_ok=True)
    # Only the outermost shell pauses: the one whose argv holds the command.
    (state / "home" / ".bashrc").write_text(
        f'[ -e {state}/slow ] && [ -z "$RGT_PAUSED" ] && {{ export RGT_PAUSED=1; sleep 0.3; }}\n')
    (state / "sshd_config").write_text(_sshd_config(state, port))
    (state / "ssh_config").write_text(_ssh_config(state, port, alias))


def _wait_for_banner(port: int, process: subprocess.Popen, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"sshd exited with status {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                if conn.recv(64).startswith(b"SSH-2.0"):
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"sshd did not answer on 127.0.0.1:{port} within {timeout} s")


def start_sshd(state: Path, alias: str = ALIAS) -> LoopbackSshd:
    """Start a loopback sshd whose files live in ``state``, reached as ``alias``.

    Stop it with ``.stop()`` (connections only) or ``.release()`` (everything it ran).

    Raises:
        SshdMissing: ``/usr/sbin/sshd`` is not installed.
    """
    if not SSHD.exists():
        raise SshdMissing(f"{SSHD} not found: install openssh-server "
                          "(apt-get install -y openssh-server; CI installs it)")
    port = free_port()
    write_files(state, port, alias)
    # sshd refuses to start without its privilege-separation directory.
    Path("/run/sshd").mkdir(mode=0o755, parents=True, exist_ok=True)
    config = state / "sshd_config"
    subprocess.run([str(SSHD), "-t", "-f", str(config)], check=True)
    with open(state / "sshd.log", "wb") as log:
        process = subprocess.Popen([str(SSHD), "-D", "-e", "-f", str(config)],
                                   stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_for_banner(port, process)
    except RuntimeError:
        process.kill()
        raise
    return LoopbackSshd(state=state, port=port, process=process, alias=alias)
