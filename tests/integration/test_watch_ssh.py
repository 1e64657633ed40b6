"""`rgt watch --once` against the real loopback sshd standing for a rented host.

On the host: a real tiny `rgt train` job started detached with the job launcher's own script, a
live job whose heartbeat was planted an hour old (stalled), a job killed with its whole process
group (dead), a real process failing on ENOSPC (/dev/full; failed, cause disk_full). A second
registered host refuses connections: it is shown as unreachable, and the first one still is.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from conftest import rgt
from rgt.base.clock import utc_now
from rgt.remote.jobs import RemoteLayout, launch_script
from sshd import ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
DOWN = "rgt-down"
ENOSPC = "import sys; sys.stdout.flush(); open('/dev/full', 'w').write('x' * 65536)"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def project(tmp_path, sshd_server, remote_dir):
    """A laptop-side project whose hosts.yaml registers the loopback host and a dead one."""
    (tmp_path / "config").mkdir()
    hosts = {"hosts": {
        ALIAS: {"platform": "ssh", "remote_root": str(remote_dir), "price_per_hour": 3.6,
                "currency": "EUR", "stall_after_s": 30},
        DOWN: {"platform": "ssh", "remote_root": "/nowhere"}}}
    (tmp_path / "config" / "hosts.yaml").write_text(yaml.safe_dump(hosts))
    config = sshd_server.ssh_config.read_text()
    (tmp_path / "ssh_config").write_text(
        config + f"\nHost {DOWN}\n  HostName 127.0.0.1\n  Port {closed_port()}\n"
                 f"  User nobody\n  BatchMode yes\n")
    return tmp_path


def launch(host, layout: RemoteLayout, key: str, command: list[str], workdir: str) -> int:
    """Start ``command`` detached exactly as the executor does; the job's process group id."""
    env = {"PYTHONUNBUFFERED": "1"}
    host.run(["bash", "-c", launch_script(layout, key, workdir, command, env, None, "setsid")])
    group = int(Path(layout.job(key), "pid").read_text())
    # Until setsid has run, the group does not exist yet (a job that already ended: no wait).
    wait_for(lambda: session_of(group) in (group, None), f"{key}'s own session")
    return group


def session_of(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except ProcessLookupError:
        return None


def train_job(host, remote_dir: Path, tiny_config: dict) -> tuple[str, int]:
    """A real tiny `rgt train` on the host, long enough to be watched."""
    layout = RemoteLayout(str(remote_dir))
    code = Path(layout.code("t"))
    code.mkdir(parents=True)
    tiny_config["experiments"]["tiny"].update(seeds=[0], variants={"plain": {}})
    tiny_config["defaults"]["train"].update(epochs=200, batch_size=16)
    tiny_config["defaults"]["checkpoint"].update(heartbeat_seconds=0.2, every_steps=10**6)
    tiny_config["paths"] = {"runs": layout.runs, "checkpoints": layout.checkpoints}
    (code / "config.yaml").write_text(yaml.safe_dump(tiny_config))
    plan = rgt(["plan", "--config", "config.yaml", "--json"], code, timeout=120)
    run_id = json.loads(plan.stdout)[0]["run_id"]
    command = [sys.executable, "-m", "rgt", "train", "--config", "config.yaml", "--run-id", run_id]
    return run_id, launch(host, layout, run_id, command, str(code))


def wait_for(predicate, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.2)


def read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def watch(project: Path, *extra: str) -> subprocess.CompletedProcess:
    return rgt(["watch", "--once", "--ssh-config", str(project / "ssh_config"), *extra],
               project, timeout=120)


def test_watch_once_shows_every_state_and_an_unreachable_host(project, remote_host, remote_dir,
                                                              tiny_config):
    layout = RemoteLayout(str(remote_dir))
    run_id, train_group = train_job(remote_host, remote_dir, tiny_config)
    groups = [train_group]
    try:
        groups.append(launch(remote_host, layout, "stale0", ["sleep", "120"], str(remote_dir)))
        stale = remote_dir / "checkpoints" / "stale0"
        stale.mkdir(parents=True)
        old = utc_now(time.time() - 3600)
        (stale / "heartbeat.json").write_text(json.dumps({"step": 7, "total_steps": 50,
                                                          "loss": 1.5, "updated_at": old}))
        os.utime(Path(layout.job("stale0"), "pid"), (time.time() - 3600,) * 2)
        killed = launch(remote_host, layout, "killed0", ["sleep", "120"], str(remote_dir))
        os.killpg(killed, signal.SIGKILL)
        launch(remote_host, layout, "enospc0", [sys.executable, "-c", ENOSPC], str(remote_dir))
        state = remote_dir / "checkpoints" / run_id
        # Past the status write of the attempt's start, so the first refresh has a rate.
        wait_for(lambda: read_json(state / "heartbeat.json").get("updated_at", "") >
                 read_json(state / "status.json").get("updated_at", "~"), "training progress")
        wait_for(lambda: Path(layout.job("enospc0"), "exit_code").exists(), "the ENOSPC exit")

        result = watch(project, "--json")
        assert result.returncode == 0, result.stderr
        rows = {row["run_id"] or row["host"]: row for row in json.loads(result.stdout)}
        check_training_row(rows[run_id])
        assert rows["stale0"]["state"] == "stalled" and rows["stale0"]["step"] == 7
        assert rows["stale0"]["heartbeat_age_s"] >= 3599
        assert rows["killed0"]["state"] == "dead" and rows["killed0"]["cause"] == "unknown"
        assert rows["enospc0"]["state"] == "failed" and rows["enospc0"]["exit_code"] == 1
        assert rows["enospc0"]["cause"] == "disk_full"
        assert "No space left on device" in rows["enospc0"]["cause_detail"]
        assert rows[DOWN]["state"] == "unreachable" and rows[DOWN]["run_id"] is None

        table = watch(project, "--host", ALIAS)
        assert table.returncode == 0, table.stderr
        assert run_id in table.stdout and "stalled" in table.stdout
        assert DOWN not in table.stdout and "no watchdog" in table.stdout
        assert "tensorboard --logdir runs" in table.stdout
    finally:
        for group in groups:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGKILL)


def check_training_row(row: dict) -> None:
    assert row["state"] == "running", row
    assert row["host"] == ALIAS and row["total"] == 200 * 79
    assert 0 < row["step"] < row["total"]
    assert row["heartbeat_age_s"] < 10 and isinstance(row["loss"], float)
    assert row["steps_per_s"] > 0 and row["eta_s"] > 0
    assert row["cost_so_far"] >= 0 and row["cost_projected"] > row["cost_so_far"]
    assert row["currency"] == "EUR" and row["host_cost_so_far"] > 0
    assert row["cause"] is None


def test_watch_refuses_an_unregistered_host_with_the_fix(project):
    result = watch(project, "--host", "nope")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "'nope' is not in config/hosts.yaml" in result.stderr and "fix:" in result.stderr
