"""The platform gotchas read off a host (rgt.platforms.gotchas), on captured output.

tests/data/doctor/host/: real output captured on the development host (a cgroup-v1 container
with 2 CPUs; a real 64 MiB tmpfs for Docker's default /dev/shm; a real tmpfs with 400 inodes
holding 380 files), each file's '#' header saying how; cpu_v2_limited.txt and
meminfo_node_256g.txt are synthetic (no cgroup v2 and no big node there), as are
tests/data/captured/cgroup_v2_*.txt.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rgt.platforms.gotchas import (
    host_gotchas,
    host_query,
    parse_cpu_answer,
    parse_hf_cache,
    split_answers,
)

DATA = Path(__file__).resolve().parents[1] / "data"


def captured(name: str, folder: str = "doctor/host") -> str:
    text = (DATA / folder / name).read_text()
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("#"))


def answers(**replace: str) -> dict[str, str]:
    """The development host's real answers (root on /), with some replaced."""
    base = split_answers(captured("combined.txt"))
    base.update(df=captured("df_system.txt"), df_inodes=captured("df_inodes.txt"),
                memory=captured("memory_v1.txt"))
    return {**base, **replace}


def by_check(found: list[dict]) -> dict[str, dict]:
    return {item["check"]: item for item in found}


def test_the_development_host_has_no_gotcha():
    found = host_gotchas(answers(), "/work/rgt")
    assert [g["check"] for g in found] == ["inode-headroom", "cgroup-memory", "shm-size",
                                           "threads-cap", "hf-cache-disk"]
    assert {g["severity"] for g in found} == {"ok"}, found
    assert [g["entry"] for g in found] == ["U7", "U41", "DP15", "U40", "U8"]


def test_the_combined_query_runs_and_splits_into_every_answer():
    out = subprocess.run(["bash", "-c", host_query()], capture_output=True, text=True,
                         timeout=30).stdout
    live = split_answers(out)
    assert set(live) == set(split_answers(captured("combined.txt")))
    assert int(live["nproc"]) >= 1 and "Filesystem" in live["df_system"]


def test_docker_default_shm_is_too_small_for_workers():
    shm = by_check(host_gotchas(answers(shm=captured("shm_64m.txt")), "/work/rgt"))["shm-size"]
    assert shm["severity"] == "warning" and "64.0 MiB" in shm["message"]
    assert "--shm-size" in shm["fix"]


def test_a_cpu_quota_below_the_visible_cores_caps_threads():
    cap = by_check(host_gotchas(answers(cpu_max=captured("cpu_v2_limited.txt")),
                                "/work/rgt"))["threads-cap"]
    assert cap["severity"] == "warning" and "OMP_NUM_THREADS=1" in cap["fix"]


@pytest.mark.parametrize(("name", "folder", "cpus"), [
    ("cpu_v1_unlimited.txt", "doctor/host", None),
    ("cpu_v2_limited.txt", "doctor/host", 1.5),
    ("cgroup_v2_cpu_max_unlimited.txt", "captured", None),
])
def test_cpu_quota_answers_of_both_cgroup_versions(name, folder, cpus):
    assert parse_cpu_answer(captured(name, folder)) == cpus


def test_a_cgroup_memory_limit_below_the_node_is_flagged():
    limited = captured("cgroup_v2_memory_max_limited.txt", "captured")  # 32 GiB
    node = captured("meminfo_node_256g.txt")
    memory = by_check(host_gotchas(answers(memory=limited, meminfo=node),
                                   "/work/rgt"))["cgroup-memory"]
    assert memory["severity"] == "warning" and "memory.events" in memory["fix"]
    assert "32.0 GiB" in memory["message"] and "256.0 GiB" in memory["message"]


def test_inodes_nearly_exhausted():
    low = captured("df_inodes_low.txt")
    inodes = by_check(host_gotchas(answers(df_inodes=low), "/tmp/doctor_ino/rgt"))
    assert inodes["inode-headroom"]["severity"] == "warning"
    assert "19 of 400 inodes free" in inodes["inode-headroom"]["message"]


def test_hf_cache_on_the_system_disk_while_the_durable_disk_is_elsewhere():
    durable = captured("shm.txt")  # the durable root on another filesystem (/dev/shm)
    found = by_check(host_gotchas(answers(df=durable), "/dev/shm/rgt"))["hf-cache-disk"]
    assert found["severity"] == "warning" and "HF_HOME=/dev/shm/hf-cache" in found["fix"]
    moved = answers(df=durable, hf_cache=captured("hf_cache_hf_home.txt"))
    assert by_check(host_gotchas(moved, "/dev/shm/rgt"))["hf-cache-disk"]["severity"] == "ok"
    assert parse_hf_cache(captured("hf_cache_hf_home.txt"))[0] == "/dev/shm/hf"


def test_unreadable_or_missing_answers_are_reported_not_raised():
    broken = answers(cpu_max="garbage here and more\n", nproc="")
    del broken["hf_cache"]
    found = by_check(host_gotchas(broken, "/work/rgt"))
    assert found["threads-cap"]["severity"] == "info"
    assert "could not be read" in found["hf-cache-disk"]["message"]
    assert found["shm-size"]["severity"] == "ok"
