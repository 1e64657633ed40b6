"""Remote job scripts and the probe parser (the talking happens in rgt.remote.runner)."""

from __future__ import annotations

import os
import subprocess
import time

from rgt.remote.jobs import RemoteLayout, launch_script, parse_probe, probe_script

# Captured from the loopback sshd during an executor run: running, finished, never launched.
CAPTURED_PROBE = """\
61007c24fca422d7 48211 1 - 1
988704ee82315d1f 48187 0 0 1
0b41e0cb0e6157a9 - 0 - 0
"""


def test_parse_probe_computes_states():
    statuses = parse_probe(CAPTURED_PROBE + "garbage line\n")
    assert statuses["61007c24fca422d7"].state == "running"
    assert statuses["988704ee82315d1f"].state == "finished"
    assert statuses["0b41e0cb0e6157a9"].state == "absent"
    assert len(statuses) == 3


def test_dead_preempted_and_failed_are_distinct():
    statuses = parse_probe("a 10 0 - 2\nb 11 0 75 1\nc 12 0 1 1\n")
    assert [statuses[k].state for k in "abc"] == ["dead", "preempted", "failed"]


def test_launch_then_probe_on_this_machine(tmp_path):
    layout = RemoteLayout(str(tmp_path / "root"))
    (tmp_path / "root" / "code" / "t1").mkdir(parents=True)
    script = launch_script(layout, "r1", layout.code("t1"), ["sleep", "1"], {"A": "it's"}, None,
                           "setsid")
    subprocess.run(["bash", "-c", script], check=True, timeout=30)
    probe = lambda: parse_probe(subprocess.run(  # noqa: E731
        ["bash", "-c", probe_script(layout, ["r1"])], capture_output=True, text=True,
        timeout=30).stdout)["r1"]
    assert probe().state == "running" and probe().launches == 1
    deadline = time.monotonic() + 20
    while probe().state == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert probe().state == "finished"
    assert os.path.exists(tmp_path / "root" / "jobs" / "r1" / "job.log")


def test_tmux_launch_records_pid_and_log(tmp_path):
    import shutil

    assert shutil.which("tmux"), "tmux is needed (CI installs it)"
    layout = RemoteLayout(str(tmp_path / "root"))
    (tmp_path / "root" / "code" / "t1").mkdir(parents=True)
    script = launch_script(layout, "r2", layout.code("t1"), ["echo", "hello from tmux"], {}, None,
                           "tmux")
    env = {**os.environ, "TMUX_TMPDIR": str(tmp_path)}  # a private tmux server for the test
    subprocess.run(["bash", "-c", script], check=True, timeout=30, env=env)
    deadline = time.monotonic() + 20
    exit_code = tmp_path / "root" / "jobs" / "r2" / "exit_code"
    while not exit_code.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert exit_code.read_text().strip() == "0"
    assert int((tmp_path / "root" / "jobs" / "r2" / "pid").read_text()) > 0
    assert "hello from tmux" in (tmp_path / "root" / "jobs" / "r2" / "job.log").read_text()
    subprocess.run(["tmux", "kill-server"], env=env, check=False, timeout=10)


def test_batches_start_with_an_empty_file_and_split_at_the_byte_limit():
    from rgt.remote.batches import BATCH_BYTES, batches

    sizes = {"empty": 0, "a": BATCH_BYTES - 1, "b": 2, "c": 0}
    assert batches(["empty", "a", "b", "c"], sizes) == [["empty", "a"], ["b", "c"]]
    assert batches([], {}) == []


def _probe_here(layout: RemoteLayout, keys: list[str], renew: int = 0):
    return parse_probe(subprocess.run(["bash", "-c", probe_script(layout, keys, renew)],
                                      capture_output=True, text=True, timeout=30).stdout)


TERM_AWARE = ("import signal, sys, time\n"
              "signal.signal(signal.SIGTERM, lambda *a: sys.exit(75))\n"
              "time.sleep(60)\n")


def test_an_unrenewed_lease_fences_the_job_which_exits_as_preempted(tmp_path):
    from rgt.remote.jobs import Lease

    layout = RemoteLayout("root")  # relative, as the default root: the job dir is resolved
    script = launch_script(layout, "r1", str(tmp_path), ["python3", "-c", TERM_AWARE], {},
                           None, "setsid", Lease(epoch=3, seconds=2))
    subprocess.run(["bash", "-c", script], check=True, timeout=30, cwd=tmp_path)
    job = tmp_path / "root" / "jobs" / "r1"
    deadline = time.monotonic() + 20
    while not (job / "exit_code").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert (job / "exit_code").read_text().strip() == "75"
    assert (job / "fenced").read_text().split()[0] == "3"
    status = parse_probe(subprocess.run(["bash", "-c", probe_script(layout, ["r1"])],
                                        capture_output=True, text=True, timeout=30,
                                        cwd=tmp_path).stdout)["r1"]
    assert (status.state, status.lease_epoch) == ("preempted", 3)


def test_a_renewed_lease_keeps_the_job_running(tmp_path):
    from rgt.remote.jobs import Lease

    layout = RemoteLayout(str(tmp_path / "root"))
    script = launch_script(layout, "r1", str(tmp_path), ["python3", "-c", TERM_AWARE], {},
                           None, "setsid", Lease(epoch=1, seconds=2))
    subprocess.run(["bash", "-c", script], check=True, timeout=30)
    for _ in range(8):  # 4 s: twice the lease
        assert _probe_here(layout, ["r1"], renew=2)["r1"].state == "running"
        time.sleep(0.5)
    assert not (tmp_path / "root" / "jobs" / "r1" / "fenced").exists()
    pid = int((tmp_path / "root" / "jobs" / "r1" / "pid").read_text())
    os.killpg(pid, 9)


def test_parse_probe_reads_the_lease_epoch_and_old_five_field_lines():
    statuses = parse_probe("a 10 1 - 1 4\nb 11 0 0 1 -\nc 12 0 0 1\n")
    assert [statuses[k].lease_epoch for k in "abc"] == [4, None, None]
