"""push/pull/remote_manifest against a real loopback sshd: real bytes, checked by sha256.

The sshd's "disk" is a local directory, so a test reads and plants remote files directly.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from faults import DropAfter
from rgt.remote.ssh import ConnectionLost, RemoteHost
from rgt.remote.transfer import TransferError, pull, push, remote_manifest

pytestmark = pytest.mark.ssh

# Small files travel in one tar batch; the 3 MiB one in its own stream.
TREE = {"a.txt": b"alpha\n", "nested/deeper/b.bin": os.urandom(300_000),
        "nested/c d.txt": b"a name with a space", "empty": b"", "-dash": b"leading dash",
        "weights/model.bin": os.urandom(3 << 20)}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_tree(root: Path, tree: dict[str, bytes]) -> dict[str, Path]:
    for rel, data in tree.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return {rel: root / rel for rel in tree}


def settled_size(path: Path, timeout: float = 5) -> int:
    """The size of a file another process may still be appending to, once it stops changing."""
    size, deadline = -1, time.monotonic() + timeout
    while time.monotonic() < deadline:
        time.sleep(0.2)
        if path.stat().st_size == size:
            break
        size = path.stat().st_size
    return size


def test_push_then_pull_round_trips_a_tree_byte_for_byte(remote_host, remote_dir, tmp_path):
    local = write_tree(tmp_path / "src", TREE)
    stats = push(remote_host, local, str(remote_dir))
    assert (stats.files, stats.files_skipped) == (len(TREE), 0)
    assert stats.bytes_sent == sum(map(len, TREE.values()))
    assert {rel: sha256((remote_dir / rel).read_bytes()) for rel in TREE} == \
        {rel: sha256(data) for rel, data in TREE.items()}
    pulled = pull(remote_host, str(remote_dir), list(TREE), tmp_path / "dst")
    assert pulled.files == len(TREE) and pulled.bytes_sent == stats.bytes_sent
    assert {rel: (tmp_path / "dst" / rel).read_bytes() for rel in TREE} == TREE
    assert not list((tmp_path / "dst").rglob("*.part"))


class CountingHost(RemoteHost):
    """A RemoteHost that counts the remote commands it runs."""

    commands = 0

    def stream(self, argv, **kwargs):
        self.commands += 1
        return super().stream(argv, **kwargs)


def test_many_small_files_travel_in_one_command_each_way(ssh_spec, remote_dir, tmp_path):
    tree = {f"src/pkg{i % 4}/module_{i}.py": f"x = {i}\n".encode() for i in range(60)}
    local = write_tree(tmp_path / "src", tree)
    with CountingHost(ssh_spec) as host:
        assert push(host, local, str(remote_dir)).files == len(tree)
        assert host.commands == 3  # survey, one tar batch, rename into place
        assert pull(host, str(remote_dir), list(tree), tmp_path / "dst").files == len(tree)
        assert host.commands == 3 + 2  # survey, one tar batch
    assert {rel: (tmp_path / "dst" / rel).read_bytes() for rel in tree} == tree


def test_a_second_push_and_pull_send_nothing(remote_host, remote_dir, tmp_path):
    local = write_tree(tmp_path / "src", TREE)
    push(remote_host, local, str(remote_dir))
    again = push(remote_host, local, str(remote_dir))
    assert (again.files, again.bytes_sent, again.files_skipped) == (0, 0, len(TREE))
    pull(remote_host, str(remote_dir), list(TREE), tmp_path / "dst")
    pulled_again = pull(remote_host, str(remote_dir), list(TREE), tmp_path / "dst")
    assert (pulled_again.bytes_sent, pulled_again.files_skipped) == (0, len(TREE))


def test_push_sends_only_what_changed(remote_host, remote_dir, tmp_path):
    local = write_tree(tmp_path / "src", TREE)
    push(remote_host, local, str(remote_dir))
    local["a.txt"].write_bytes(b"changed\n")
    stats = push(remote_host, local, str(remote_dir))
    assert (stats.files, stats.bytes_sent) == (1, len(b"changed\n"))
    assert (remote_dir / "a.txt").read_bytes() == b"changed\n"


def test_interrupted_pull_resumes_with_only_the_missing_bytes(ssh_spec, remote_dir, tmp_path):
    data = os.urandom(6 << 20)
    (remote_dir / "ckpt.bin").write_bytes(data)
    with DropAfter(ssh_spec, limit=2 << 20) as host, pytest.raises(ConnectionLost):
        pull(host, str(remote_dir), ["ckpt.bin"], tmp_path)
    kept = (tmp_path / "ckpt.bin.part").stat().st_size
    assert 0 < kept < len(data) and not (tmp_path / "ckpt.bin").exists()
    with RemoteHost(ssh_spec) as host:
        stats = pull(host, str(remote_dir), ["ckpt.bin"], tmp_path)
    assert stats.bytes_sent == len(data) - kept
    assert (tmp_path / "ckpt.bin").read_bytes() == data
    assert not (tmp_path / "ckpt.bin.part").exists()


def test_pull_restarts_a_part_cut_from_another_file(remote_host, remote_dir, tmp_path):
    data = os.urandom(1 << 20)
    (remote_dir / "ckpt.bin").write_bytes(data)
    (tmp_path / "ckpt.bin.part").write_bytes(os.urandom(1000))  # stale prefix
    stats = pull(remote_host, str(remote_dir), ["ckpt.bin"], tmp_path)
    assert stats.bytes_sent == (len(data) - 1000) + len(data)
    assert (tmp_path / "ckpt.bin").read_bytes() == data


def test_interrupted_push_resumes_with_only_the_missing_bytes(ssh_spec, remote_dir, tmp_path):
    data = os.urandom(12 << 20)
    local = write_tree(tmp_path, {"inputs/data.bin": data})
    # Past sshd's 2 MiB channel window, so the remote `cat` has started writing the .part.
    with DropAfter(ssh_spec, limit=6 << 20) as host, pytest.raises(ConnectionLost):
        push(host, local, str(remote_dir))
    kept = settled_size(remote_dir / "inputs" / "data.bin.part")
    assert 0 < kept < len(data) and not (remote_dir / "inputs" / "data.bin").exists()
    with RemoteHost(ssh_spec) as host:
        stats = push(host, local, str(remote_dir))
    assert stats.bytes_sent == len(data) - kept
    assert (remote_dir / "inputs" / "data.bin").read_bytes() == data


def test_pull_refuses_a_remote_file_that_is_not_the_expected_one(remote_host, remote_dir,
                                                                 tmp_path):
    good = os.urandom(100_000)
    (remote_dir / "model.pt").write_bytes(good)
    pull(remote_host, str(remote_dir), ["model.pt"], tmp_path)
    (remote_dir / "model.pt").write_bytes(good[:-1] + bytes([good[-1] ^ 1]))
    with pytest.raises(TransferError, match="expected sha256"):
        pull(remote_host, str(remote_dir), ["model.pt"], tmp_path,
             expected={"model.pt": sha256(good)})
    assert (tmp_path / "model.pt").read_bytes() == good


def test_a_corrupt_download_is_kept_as_bad_and_replaces_nothing(remote_host, remote_dir,
                                                                tmp_path):
    good = os.urandom(100_000)
    (remote_dir / "model.pt").write_bytes(good[::-1])
    with pytest.raises(TransferError, match="failed sha256 verification"):
        pull(remote_host, str(remote_dir), ["model.pt"], tmp_path,
             expected={"model.pt": sha256(good)})
    assert not (tmp_path / "model.pt").exists()
    assert (tmp_path / "model.pt.bad").read_bytes() == good[::-1]


def test_pull_of_a_missing_remote_file_fails_before_writing(remote_host, remote_dir, tmp_path):
    with pytest.raises(TransferError, match="not found"):
        pull(remote_host, str(remote_dir), ["nope.bin"], tmp_path / "dst")
    assert not (tmp_path / "dst").exists()


@pytest.mark.parametrize("bad", ["../x", "/etc/passwd", "a/../../x", "./a", "a\\b", "x.part"])
def test_paths_escaping_the_root_are_refused(remote_host, remote_dir, tmp_path, bad):
    (tmp_path / "f").write_bytes(b"x")
    with pytest.raises(TransferError, match="refusing transfer path"):
        push(remote_host, {bad: tmp_path / "f"}, str(remote_dir))
    with pytest.raises(TransferError, match="refusing transfer path"):
        pull(remote_host, str(remote_dir), [bad], tmp_path)


def test_a_remote_symlink_out_of_the_root_is_refused(remote_host, remote_dir, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (remote_dir / "link").symlink_to(outside)
    (tmp_path / "f").write_bytes(b"x")
    with pytest.raises(TransferError, match="resolve outside"):
        push(remote_host, {"link/f": tmp_path / "f"}, str(remote_dir))
    assert list(outside.iterdir()) == []


def test_a_local_symlink_out_of_the_root_is_refused(remote_host, remote_dir, tmp_path):
    (remote_dir / "sub").mkdir()
    (remote_dir / "sub" / "f").write_bytes(b"x")
    (tmp_path / "outside").mkdir()
    (tmp_path / "local").mkdir()
    (tmp_path / "local" / "sub").symlink_to(tmp_path / "outside")
    with pytest.raises(TransferError, match="resolves outside"):
        pull(remote_host, str(remote_dir), ["sub/f"], tmp_path / "local")
    assert list((tmp_path / "outside").iterdir()) == []


def test_remote_manifest_lists_sizes_and_hashes(remote_host, remote_dir):
    write_tree(remote_dir, TREE)
    expected = {rel: (len(data), sha256(data)) for rel, data in TREE.items()}
    assert remote_manifest(remote_host, str(remote_dir)) == expected
    assert remote_manifest(remote_host, str(remote_dir), ["a.txt", "missing"]) == \
        {"a.txt": expected["a.txt"]}
    assert remote_manifest(remote_host, str(remote_dir / "no such dir")) == {}


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("RGT_SLOW") != "1", reason="opt-in: RGT_SLOW=1 (600 MiB)")
def test_streams_past_paramikos_512_mib_rekey_point_do_not_stall(remote_host, remote_dir,
                                                                 tmp_path):
    # paramiko's own rekey at 512 MiB stalls an exec stream for 30 s, then aborts it (#822).
    size, digest = 600 << 20, hashlib.sha256()
    with open(remote_dir / "big.bin", "wb") as out:
        for _ in range(size >> 20):
            chunk = os.urandom(1 << 20)
            digest.update(chunk)
            out.write(chunk)
    started = time.monotonic()
    pulled = pull(remote_host, str(remote_dir), ["big.bin"], tmp_path)
    pushed = push(remote_host, {"copy.bin": tmp_path / "big.bin"}, str(remote_dir))
    assert pulled.bytes_sent == pushed.bytes_sent == size
    assert remote_manifest(remote_host, str(remote_dir), ["copy.bin"])["copy.bin"][1] == \
        digest.hexdigest()
    assert time.monotonic() - started < 90
