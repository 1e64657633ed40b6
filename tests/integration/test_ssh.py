"""RemoteHost against a real OpenSSH server on loopback (tests/sshd.py), plus its pure helpers."""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from rgt.base.errors import ConfigError
from rgt.remote import ssh
from rgt.remote.ssh import (
    AuthenticationFailed,
    ConnectionLost,
    HostKeyError,
    RemoteCommandError,
    RemoteHost,
    RemoteTimeout,
    build_command,
    resolve_host,
)
from sshd import ALIAS, JUMP_ALIAS, free_port

# Polls every process's argv for needles read from stdin until the stop file appears.
# (Needles come over stdin so that the watcher's own argv does not hold them.)
ARGV_WATCHER = """
import os, sys, time
stop, out = sys.argv[1:3]
needles = sys.stdin.readline().split()
me, seen = str(os.getpid()), set()
print("ready", flush=True)
while not os.path.exists(stop):
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or pid == me:
            continue
        try:
            argv = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
        except OSError:
            continue
        seen.update(needle for needle in needles if needle in argv)
    time.sleep(0.01)  # a full scan every ~10 ms: far below a slow remote shell's 0.3 s
open(out, "w").write(" ".join(sorted(seen)))
"""


def fingerprint(public_key_base64: str) -> str:
    digest = hashlib.sha256(base64.b64decode(public_key_base64)).digest()
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


def local_tcp_ports() -> set[int]:
    """Local ports of this process's TCP sockets (from /proc)."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return {int(fields[1].split(":")[1], 16) for fields in map(str.split, lines)
            if fields[9] in inodes}


@contextmanager
def argv_watch(tmp_path: Path, needles: list[str]) -> Iterator[set[str]]:
    """Collect which needles appear in any process's command line during the block."""
    stop, out, seen = tmp_path / "stop-watch", tmp_path / "seen", set()
    watcher = subprocess.Popen([sys.executable, "-c", ARGV_WATCHER, str(stop), str(out)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    watcher.stdin.write(" ".join(needles) + "\n")
    watcher.stdin.close()
    assert watcher.stdout.readline().strip() == "ready"
    try:
        yield seen
    finally:
        stop.touch()
        watcher.wait(timeout=30)
        seen.update(out.read_text().split())


# ---- pure helpers: no server --------------------------------------------------------------


def test_build_command_quotes_each_argument_and_enters_cwd():
    assert build_command(["echo", "a b", "$(x)"], cwd="/data/my run") == \
        "cd -- '/data/my run' && { echo 'a b' '$(x)'\n}"


def test_build_command_passes_a_project_built_string_as_is():
    assert build_command("cat a | wc -c") == "cat a | wc -c"


def test_resolve_host_honours_the_ssh_config(tmp_path):
    config = tmp_path / "config"
    config.write_text("Host gpu\n  HostName 10.0.0.5\n  Port 2222\n  User ubuntu\n"
                      "  IdentityFile ~/.ssh/gpu_key\n  UserKnownHostsFile /k1 /k2\n"
                      "  ProxyJump bastion\nHost bastion\n  HostName bastion.example\n"
                      "  User jump\n")
    spec = resolve_host("gpu", config)
    assert (spec.hostname, spec.port, spec.user) == ("10.0.0.5", 2222, "ubuntu")
    assert spec.identity_files == (os.path.expanduser("~/.ssh/gpu_key"),)
    assert spec.known_hosts == ("/k1", "/k2")
    assert spec.proxy_jump == "bastion"
    assert (spec.jump.hostname, spec.jump.port, spec.jump.user) == ("bastion.example", 22, "jump")


def test_resolve_host_defaults_without_an_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("USER", "alice")
    (tmp_path / "config").write_text("")
    spec = resolve_host("box", tmp_path / "config")
    assert (spec.hostname, spec.port, spec.user, spec.jump) == ("box", 22, "alice", None)
    assert spec.known_hosts == (os.path.expanduser("~/.ssh/known_hosts"),)


def test_resolve_host_reads_user_and_port_of_a_proxy_jump_value(tmp_path):
    (tmp_path / "config").write_text("Host gpu\n  ProxyJump ops@jump.example:2200\n")
    jump = resolve_host("gpu", tmp_path / "config").jump
    assert (jump.hostname, jump.port, jump.user) == ("jump.example", 2200, "ops")


def test_resolve_host_refuses_a_multi_hop_proxy_jump(tmp_path):
    (tmp_path / "config").write_text("Host gpu\n  ProxyJump a,b\n")
    with pytest.raises(ConfigError, match="several hops"):
        resolve_host("gpu", tmp_path / "config")


# ---- against the loopback sshd -------------------------------------------------------------


@pytest.mark.ssh
def test_run_delivers_every_argument_literally(remote_host, remote_dir):
    words = ["two words", "it's \"quoted\"", "$(touch pwned)", "a;touch pwned", "`id`", "*", ""]
    result = remote_host.run(["printf", "[%s]\\n", *words], cwd=str(remote_dir))
    assert result.stdout.splitlines() == [f"[{word}]" for word in words]
    assert result.ok and result.exit_status == 0 and result.duration > 0
    assert not (remote_dir / "pwned").exists()


@pytest.mark.ssh
def test_run_runs_in_cwd_and_feeds_stdin(remote_host, remote_dir):
    (remote_dir / "in dir").mkdir()
    assert remote_host.run(["pwd"], cwd=str(remote_dir / "in dir")).stdout.strip() == \
        str(remote_dir / "in dir")
    assert remote_host.run(["cat"], stdin=b"to stdin\n").stdout == "to stdin\n"


@pytest.mark.ssh
def test_run_raises_remote_command_error_with_status_and_stderr(remote_host):
    with pytest.raises(RemoteCommandError, match=r"status 3: sh -c .*\n.*boom") as error:
        remote_host.run(["sh", "-c", "echo boom >&2; exit 3"])
    assert error.value.result.exit_status == 3
    assert not remote_host.run(["false"], check=False).ok


@pytest.mark.ssh
def test_unknown_host_key_is_refused_showing_its_fingerprint(ssh_spec, sshd_server, tmp_path):
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    with RemoteHost(replace(ssh_spec, known_hosts=(str(empty),)), retries=0) as host, \
            pytest.raises(HostKeyError, match="unknown host key") as error:
        host.run(["true"])
    assert fingerprint(sshd_server.host_public_key) in str(error.value)
    assert f"ssh-keyscan -p {sshd_server.port} 127.0.0.1 >> {empty}" in str(error.value)


@pytest.mark.ssh
def test_changed_host_key_is_refused(ssh_spec, sshd_server, tmp_path):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "other")],
                   check=True)
    other = (tmp_path / "other.pub").read_text().split()[1]
    known = tmp_path / "known_hosts"
    known.write_text(f"[127.0.0.1]:{sshd_server.port} ssh-ed25519 {other}\n")
    with RemoteHost(replace(ssh_spec, known_hosts=(str(known),)), retries=0) as host, \
            pytest.raises(HostKeyError, match="CHANGED") as error:
        host.run(["true"])
    assert fingerprint(sshd_server.host_public_key) in str(error.value)
    assert fingerprint(other) in str(error.value)


@pytest.mark.ssh
def test_a_key_the_host_does_not_accept_fails_authentication(ssh_spec, tmp_path):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "key")],
                   check=True)
    with RemoteHost(replace(ssh_spec, identity_files=(str(tmp_path / "key"),))) as host, \
            pytest.raises(AuthenticationFailed, match="refused"):
        host.run(["true"])


@pytest.mark.ssh
def test_proxy_jump_reaches_the_host_through_the_jump_host(sshd_server, remote_host):
    def peer_port(host: RemoteHost) -> int:
        return int(host.run(["sh", "-c", 'echo "$SSH_CONNECTION"']).stdout.split()[1])

    assert peer_port(remote_host) in local_tcp_ports()  # direct: the peer is this process
    spec = resolve_host(JUMP_ALIAS, sshd_server.ssh_config)
    assert spec.jump is not None and spec.jump.alias == ALIAS
    with RemoteHost(spec, retries=0) as host:
        assert peer_port(host) not in local_tcp_ports()  # the peer is the jump host's sshd
        assert host.run(["echo", "via jump"]).stdout == "via jump\n"


@pytest.mark.ssh
def test_write_secret_writes_a_mode_600_file(remote_host, remote_dir):
    target = remote_dir / "secrets" / "token"
    remote_host.write_secret(str(target), b"s3cret value\n")
    assert target.read_bytes() == b"s3cret value\n"
    assert target.stat().st_mode & 0o777 == 0o600
    remote_host.write_secret(str(target), b"rotated")
    assert target.read_bytes() == b"rotated" and target.stat().st_mode & 0o777 == 0o600


@pytest.mark.ssh
def test_write_secret_keeps_the_value_out_of_every_argv(remote_host, remote_dir, sshd_server,
                                                        tmp_path, caplog):
    secret, canary = f"rgt-secret-{secrets.token_hex(8)}", f"rgt-canary-{secrets.token_hex(8)}"
    caplog.set_level("DEBUG", logger="rgt")
    sshd_server.slow_shell(True)  # each remote shell lives >= 0.3 s: the watcher cannot miss it
    try:
        with argv_watch(tmp_path, [secret, canary]) as seen:
            remote_host.run(["true", canary])
            remote_host.write_secret(str(remote_dir / "token"), secret.encode())
    finally:
        sshd_server.slow_shell(False)
    assert canary in seen, "the watcher must see a remote command's argv"
    assert secret not in seen
    assert secret not in caplog.text
    assert (remote_dir / "token").read_text() == secret


@pytest.mark.ssh
def test_write_secret_failure_does_not_show_the_value(remote_host, remote_dir):
    (remote_dir / "file").write_text("not a directory")
    secret = f"rgt-secret-{secrets.token_hex(8)}"
    with pytest.raises(RemoteCommandError) as error:
        remote_host.write_secret(str(remote_dir / "file" / "token"), secret.encode())
    assert secret not in str(error.value) and secret not in repr(error.value.result)


@pytest.mark.ssh
def test_run_times_out_and_the_connection_stays_usable(remote_host):
    started = time.monotonic()
    with pytest.raises(RemoteTimeout, match="may still be running"):
        remote_host.run(["sleep", "10"], timeout=0.5)
    assert time.monotonic() - started < 3
    assert remote_host.run(["echo", "ok"]).stdout == "ok\n"


@pytest.mark.ssh
def test_dropped_connection_raises_connection_lost_and_next_run_reconnects(
        remote_host, remote_dir, sshd_server):
    before = set(sshd_server.session_pids())
    remote_host.run(["true"])
    ours = set(sshd_server.session_pids()) - before
    assert ours, "the connection must have its own sshd process"
    killer = threading.Timer(0.5, lambda: [os.kill(pid, signal.SIGKILL) for pid in ours])
    killer.start()
    with pytest.raises(ConnectionLost, match="may still be running"):
        remote_host.run(["sh", "-c", "echo started >> ran; sleep 3"], cwd=str(remote_dir))
    killer.join()
    assert remote_host.run(["echo", "back"]).stdout == "back\n"
    assert (remote_dir / "ran").read_text() == "started\n"  # never re-run after the drop


@pytest.mark.ssh
def test_unreachable_host_raises_connection_lost_after_retries(ssh_spec, monkeypatch):
    monkeypatch.setattr(ssh, "BACKOFF_S", 0.01)
    with RemoteHost(replace(ssh_spec, port=free_port()), connect_timeout=2, retries=2) as host, \
            pytest.raises(ConnectionLost, match="after 3 tries"):
        host.run(["true"])


@pytest.mark.ssh
def test_sftp_shares_the_connection(remote_host, remote_dir):
    (remote_dir / "listed").write_text("x")
    assert remote_host.sftp().listdir(str(remote_dir)) == ["listed"]


@pytest.mark.ssh
def test_connection_prefers_aes_gcm_and_leaves_rekeying_to_the_server(remote_host):
    # GCM: paramiko's exec streams reach scp's speed. No client rekey at 512 MiB: paramiko's
    # stalls long exec streams (paramiko#822); the slow test runs a 600 MiB stream end to end.
    transport = remote_host.sftp().get_channel().get_transport()
    assert transport.remote_cipher == transport.local_cipher == "aes128-gcm@openssh.com"
    assert min(transport.packetizer.REKEY_BYTES, transport.packetizer.REKEY_PACKETS) >= 2**40
