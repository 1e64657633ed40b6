"""The host-side watchdog, started over the real loopback sshd with the launcher's start script.

It keeps writing its heartbeat after the client disconnected (read straight off the sshd's
"disk", the same filesystem), starts once per root, raises the idle alarm when its jobs are gone
and exits, and runs the stop command once only when opted in with a non-destructive verb.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, rgt
from rgt.remote.jobs import RemoteLayout, launch_script
from rgt.remote.watchdog_start import watchdog_start_script
from sshd import ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.ssh]


def wait_for(predicate, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.1)


def read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def start(host, root: Path, options: list[str]) -> str:
    script = watchdog_start_script(str(root), sys.executable, str(ROOT / "src"), options)
    return host.run(["bash", "-c", script], timeout=30).stdout.strip()


def watchdog_exited(root: Path) -> bool:
    """The watchdog's wrapper logged its exit: the watchdog wrote all it would (a probe of its
    pid alone can miss it for an instant while the detached wrapper is still being exec'd)."""
    try:
        log = (root / "watchdog" / "watchdog.log").read_text()
    except OSError:
        return False
    return "watchdog exited with status" in log


def busy_job(host, root: Path) -> int:
    """A detached job (the launcher's script) that runs until killed; its process group."""
    layout = RemoteLayout(str(root))
    host.run(["bash", "-c", launch_script(layout, "busy0", str(root), ["sleep", "120"], {},
                                          None, "setsid")])
    group = int(Path(layout.job("busy0"), "pid").read_text())
    wait_for(lambda: os.getsid(group) == group, "the job's own session")
    return group


def test_watchdog_outlives_the_client_starts_once_and_alarms_when_idle(remote_host, remote_dir,
                                                                      sshd_server, tmp_path):
    group = busy_job(remote_host, remote_dir)
    try:
        first = start(remote_host, remote_dir, ["--interval", "0.3", "--idle-alarm-after", "2"])
        assert first.startswith("watchdog: started ")
        again = start(remote_host, remote_dir, ["--interval", "0.3"])
        assert again == first.replace("started", "running")
        remote_host.close()  # the laptop is gone
        beat_file = remote_dir / "watchdog" / "heartbeat.json"
        wait_for(lambda: read_json(beat_file).get("jobs") == {"busy0": "running"}, "a heartbeat")
        seen = read_json(beat_file)["updated_at"]
        wait_for(lambda: read_json(beat_file)["updated_at"] > seen, "a newer heartbeat")
        assert read_json(beat_file)["alarm"] is None
        status = read_json(remote_dir / "watchdog" / "status.json")
        assert status["runs"]["busy0"]["state"] == "running"
        rival = subprocess.run([sys.executable, "-m", "rgt", "watchdog", "--root",
                                str(remote_dir)], capture_output=True, text=True, timeout=60)
        assert rival.returncode == 0 and "another watchdog holds the lock" in rival.stdout
    finally:
        os.killpg(group, signal.SIGKILL)
    wait_for(lambda: (remote_dir / "watchdog" / "ALARM").exists(), "the idle alarm")
    wait_for(lambda: watchdog_exited(remote_dir), "the watchdog's exit")
    alarm = read_json(remote_dir / "watchdog" / "ALARM")
    assert alarm["jobs"] == {"busy0": "dead"} and "no running job" in alarm["message"]
    beat = read_json(beat_file)
    assert beat["alarm"] == alarm and beat["auto_stop"] == "off"
    log = (remote_dir / "watchdog" / "watchdog.log").read_text()
    assert "ALARM: host idle" in log and not (remote_dir / "watchdog" / "STOPPED").exists()
    [row] = watch_json(tmp_path, sshd_server, remote_dir)
    assert row["state"] == "dead" and row["alarm"] == alarm["message"]
    assert row["watchdog_age_s"] is not None and row["auto_stopped"] is None


def watch_json(project: Path, sshd_server, remote_dir: Path, **host) -> list[dict]:
    """What `rgt watch --once --json` shows of the loopback host (``host``: more of its
    config/hosts.yaml entry)."""
    (project / "config").mkdir(parents=True)
    (project / "config" / "hosts.yaml").write_text(json.dumps(
        {"hosts": {ALIAS: {"platform": "ssh", "remote_root": str(remote_dir), **host}}}))
    result = rgt(["watch", "--once", "--json", "--ssh-config", str(sshd_server.ssh_config)],
                 project, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(("options", "stops", "logged"), [
    (["--auto-stop", "--stop-irreversible", "false"], True, "auto-stop armed"),
    (["--auto-stop", "--stop-irreversible", "true"], False, "refused: the platform's"),
    (["--auto-stop"], False, "refused: the platform's"),
    ([], False, "auto-stop off"),
])
def test_auto_stop_only_when_opted_in_with_a_reversible_verb(remote_host, remote_dir, options,
                                                             stops, logged):
    marker = remote_dir / "stopped"
    start(remote_host, remote_dir, ["--interval", "0.2", "--idle-alarm-after", "1", *options,
                                    "--stop-command", "touch", str(marker)])
    wait_for(lambda: (remote_dir / "watchdog" / "ALARM").exists(), "the idle alarm")
    wait_for(lambda: watchdog_exited(remote_dir), "the watchdog's exit")
    assert marker.exists() is stops
    log = (remote_dir / "watchdog" / "watchdog.log").read_text()
    assert logged in log
    record = read_json(remote_dir / "watchdog" / "STOPPED")
    if stops:
        assert record["exit_code"] == 0 and record["command"] == ["touch", str(marker)]
        assert "auto-stop finished: 0" in log
    else:
        assert record == {}


def test_a_new_watchdog_sets_the_old_alarm_aside(remote_host, remote_dir):
    old = remote_dir / "watchdog" / "ALARM"
    old.parent.mkdir(parents=True)
    old.write_text('{"message": "yesterday"}')
    start(remote_host, remote_dir, ["--interval", "0.2", "--idle-alarm-after", "30"])
    wait_for(lambda: (remote_dir / "watchdog" / "heartbeat.json").exists(), "a heartbeat")
    try:
        assert not old.exists()
        [kept] = (remote_dir / "watchdog").glob("ALARM.*")
        assert json.loads(kept.read_text()) == {"message": "yesterday"}
    finally:
        os.killpg(int((remote_dir / "watchdog" / "pid").read_text()), signal.SIGTERM)
