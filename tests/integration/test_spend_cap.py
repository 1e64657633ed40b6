"""The spending cap on the real loopback host: past its cap, the host's watchdog checkpoints a
real training job (SIGTERM, exit 75, marked held), then runs the stop command, or raises its
alarm when auto-stop is off, and posts the alarm once to a webhook the test serves; a launch on
a host already past its cap is refused before anything starts."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml
from test_pool import _trainers, held_until
from test_watchdog import read_json, start, wait_for, watch_json, watchdog_exited

from conftest import ROOT, TINY, rgt
from rgt.base.errors import ConfigError
from rgt.hosts import HostEntry
from rgt.remote.jobs import RemoteLayout, launch_script
from rgt.remote.spend import refuse_past_cap
from sshd import ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.ssh]


@pytest.fixture
def webhook():
    """A local HTTP server standing for the user's webhook: the JSON bodies POSTed to it."""
    received = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/hooks/secret-token-7f3a", received
    server.shutdown()


def secret_file(tmp_path, url: str):
    path = tmp_path / "webhook"
    path.write_text(url)
    path.chmod(0o600)
    return path


def training_job(host, root) -> str:
    """A real `rgt train` of the tiny config, launched detached in ``root`` as the executor
    does; its run id."""
    config = yaml.safe_load(TINY.read_text())
    config["experiments"]["tiny"].update(seeds=[0], variants={"plain": {}})
    config["defaults"]["train"].update(epochs=30, batch_size=16)
    config["defaults"]["checkpoint"].update(every_steps=10, heartbeat_seconds=0.001)
    (root / "config").mkdir(parents=True)
    (root / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    [run_id] = [row["run_id"] for row in json.loads(rgt(["plan", "--json"], root).stdout)]
    command = [sys.executable, "-m", "rgt", "train", "--run-id", run_id]
    host.run(["bash", "-c", launch_script(RemoteLayout(str(root)), run_id, str(root), command,
                                          {"PYTHONPATH": str(ROOT / "src")}, None, "setsid")])
    return run_id


def heartbeat_step(root, run_id: str) -> int:
    return read_json(root / "checkpoints" / run_id / "heartbeat.json").get("step", -1)


def test_a_host_past_its_cap_checkpoints_its_job_runs_its_stop_command_and_posts_once(
        remote_host, remote_dir, sshd_server, tmp_path, webhook):
    url, received = webhook
    root = remote_dir / "proj"
    run_id = training_job(remote_host, root)
    wait_for(lambda: heartbeat_step(root, run_id) >= 20, "training", timeout=120)
    stopped = remote_dir / "stopped"
    caps = ["--interval", "0.3", "--host-name", ALIAS, "--price-per-hour", "3600",
            "--currency", "USD", "--max-spend", "0.5", "--cap-grace", "60",
            "--webhook-file", str(secret_file(tmp_path, url))]
    job = root / "jobs" / run_id
    # Held mid-run, so a fast machine cannot finish the run before the watchdog acts.
    with held_until(_trainers(root, run_id), job / "hold"):
        start(remote_host, root, [*caps, "--auto-stop", "--stop-irreversible", "false",
                                  "--stop-command", "touch", str(stopped)])
        wait_for(lambda: watchdog_exited(root), "the watchdog's exit", timeout=120)
    assert (job / "exit_code").read_text().strip() == "75"  # checkpointed, not killed
    assert "spending cap" in read_json(job / "hold")["reason"]
    status = read_json(root / "checkpoints" / run_id / "status.json")
    assert status["state"] == "preempted"
    assert (root / "checkpoints" / run_id / f"step-{status['step']:09d}.json").is_file()
    assert stopped.exists() and read_json(root / "watchdog" / "STOPPED")["exit_code"] == 0
    alarm = read_json(root / "watchdog" / "ALARM")
    assert alarm["kind"] == "spend_cap" and "its max_spend is 0.50 USD" in alarm["message"]
    assert [body["kind"] for body in received] == ["spend_cap"]  # once
    assert received[0]["host"] == ALIAS and received[0]["stopped"]["exit_code"] == 0
    for record in (root / "watchdog").iterdir():
        assert "secret-token" not in record.read_text(errors="replace"), record
    [row] = watch_json(tmp_path / "laptop", sshd_server, root, price_per_hour=3600,
                       max_spend=0.5)
    assert row["host_max_spend"] == 0.5 and row["host_cost_so_far"] > 0.5
    assert row["alarm"] == alarm["message"] and row["state"] == "preempted"


def test_without_auto_stop_a_capped_host_raises_its_alarm_and_posts_it_once(
        remote_host, remote_dir, tmp_path, webhook):
    url, received = webhook
    start(remote_host, remote_dir, ["--interval", "0.3", "--price-per-hour", "3600",
                                    "--max-spend", "0.5", "--webhook-file",
                                    str(secret_file(tmp_path, url))])
    wait_for(lambda: watchdog_exited(remote_dir), "the watchdog's exit", timeout=60)
    alarm = read_json(remote_dir / "watchdog" / "ALARM")
    assert alarm["kind"] == "spend_cap" and not (remote_dir / "watchdog" / "STOPPED").exists()
    assert [body["kind"] for body in received] == ["spend_cap"]
    assert received[0]["auto_stop"] == "off" and received[0]["stopped"] is None


def test_a_launch_on_a_host_already_past_its_cap_is_refused(remote_host):
    entry = HostEntry(alias=ALIAS, platform="ssh", price_per_hour=3600.0, max_spend=1.0)
    with pytest.raises(ConfigError) as refused:
        refuse_past_cap(remote_host, entry)
    assert f"host {ALIAS} has already cost" in refused.value.message
    assert "more than its max_spend 1" in refused.value.message
    assert "raise max_spend" in refused.value.fix
    refuse_past_cap(remote_host, HostEntry(alias=ALIAS, platform="ssh", price_per_hour=0.01,
                                           max_spend=1e6))  # far within it: no refusal
