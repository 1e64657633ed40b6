"""rgt.base.files: each writer's own temp file, a killed writer's temp removed by the next
write, and a full disk as one message naming the directory and the space needed (a real
small tmpfs where the machine lets a user namespace mount one)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from rgt.base import files
from rgt.base.files import DiskFull, atomic_open, remove_stale_temps, write_json

WRITER = """
import sys, time
from rgt.base.files import atomic_open
with atomic_open(sys.argv[1], "w") as handle:
    handle.write("partial")
    handle.flush()
    print("writing", flush=True)
    time.sleep(60)
"""


def test_two_threads_writing_one_file_never_collide(tmp_path):
    target, errors = tmp_path / "seen.json", []

    def writer(name: str) -> None:
        try:
            for index in range(40):
                write_json(target, {"writer": name, "index": index})
        except Exception as error:  # noqa: BLE001 - the test reports any
            errors.append(error)

    threads = [threading.Thread(target=writer, args=(name,)) for name in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert json.loads(target.read_text())["index"] == 39
    assert not list(tmp_path.glob("*.tmp"))


def test_a_killed_writer_leaves_a_temp_file_the_next_write_removes(tmp_path):
    target = tmp_path / "status.json"
    write_json(target, {"state": "running"})
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(target)],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "writing"
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    [orphan] = tmp_path.glob("status.json.*.tmp")
    assert orphan.read_text() == "partial"
    assert json.loads(target.read_text()) == {"state": "running"}  # untouched
    write_json(target, {"state": "failed"})
    assert not orphan.exists() and json.loads(target.read_text()) == {"state": "failed"}


def test_a_live_writers_temp_and_other_files_are_kept(tmp_path):
    target = tmp_path / "a.json"
    live = files.temp_path(target)  # this process: alive
    live.write_text("in progress")
    neighbour = tmp_path / "a.json.orig.tmp"  # not a temp name of ours
    neighbour.write_text("x")
    legacy = tmp_path / "a.json.tmp"  # an older version's single temp file, fresh
    legacy.write_text("y")
    assert remove_stale_temps(target) == []
    old = time.time() - files.FOREIGN_TEMP_AGE_S - 10
    os.utime(legacy, (old, old))
    assert remove_stale_temps(target) == [legacy]
    assert live.exists() and neighbour.exists()


def test_a_failing_body_leaves_the_old_file_and_no_temp(tmp_path):
    target = tmp_path / "x.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_open(target, "w") as handle:
        handle.write("new")
        raise RuntimeError("boom")
    assert target.read_text() == "old" and not list(tmp_path.glob("*.tmp"))


def test_disk_full_names_the_directory_and_the_space(tmp_path):
    error = DiskFull(tmp_path / "model.pt", 3 * 1024 * 1024)
    assert f"No space left on device in {tmp_path} writing model.pt" in error.message
    assert "at least 3.0 MiB needed" in error.message and "free" in error.message
    assert "what was there before is intact" in error.fix


def small_tmpfs_available() -> bool:
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=16k tmpfs /mnt"],
                           capture_output=True, timeout=30)
    return probe.returncode == 0


FILL = """
import json, sys
from pathlib import Path
from rgt.base.files import DiskFull, write_bytes, write_json
root = Path(sys.argv[1])
write_json(root / "status.json", {"state": "running"})
try:
    write_bytes(root / "big.bin", b"x" * 200_000)
except DiskFull as error:
    print("ERROR", error.message)
print("STATUS", (root / "status.json").read_text().strip().replace("\\n", ""))
write_json(root / "status.json", {"state": "failed"})
print("AFTER", sorted(p.name for p in root.iterdir()))
"""


@pytest.mark.skipif(not small_tmpfs_available(), reason="no user namespace for a tmpfs mount")
def test_a_write_to_a_full_tmpfs_is_one_message_and_leaves_the_old_file(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    script = tmp_path / "fill.py"
    script.write_text(FILL)
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c",
         f"mount -t tmpfs -o size=64k tmpfs {mount} && {sys.executable} {script} {mount}"],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert f"ERROR No space left on device in {mount} writing big.bin" in done.stdout
    assert "at least 195.3 KiB needed" in done.stdout
    assert 'STATUS {  "state": "running"}' in done.stdout
    assert "AFTER ['status.json']" in done.stdout  # no temp file left behind
