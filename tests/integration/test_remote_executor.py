"""The `rgt` executor plugin against a real OpenSSH server on loopback standing for a rented
machine: the example trains there through the shipped profiles, comes back verified and equal to
a local run; detach drills (controller killed, remote job killed, connection cut); secrets."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, rgt, write_config
from sshd import ALIAS, start_sshd

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
TIMEOUT = 600
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    """A loopback sshd: the rented machine, its disk a temp directory."""
    server = start_sshd(tmp_path_factory.mktemp("host"))
    yield server
    server.release()


def make_project(directory: Path, config: dict) -> Path:
    """A project: the workflow, a config and the platform facts."""
    for name in ("Snakefile", "rules"):
        subprocess.run(["cp", "-r", str(ROOT / name), str(directory / name)], check=True)
    write_config(directory, config)
    subprocess.run(["cp", "-r", str(ROOT / "config" / "platforms"),
                    str(directory / "config" / "platforms")], check=True)
    return directory


def remote_args(host, profile: str, root: str) -> list[str]:
    """The shipped profile, pointed at the loopback host (as a user would on the command line)."""
    return ["--profile", str(ROOT / "profiles" / profile), "--rgt-host", ALIAS,
            "--rgt-ssh-config", str(host.ssh_config), "--rgt-python", sys.executable,
            "--rgt-remote-root", str(host.disk / root), "--seconds-between-status-checks", "1"]


def snakemake_process(project: Path, args: list[str], env: dict | None = None):
    """Start Snakemake in its own process group (so a test can kill it and its children)."""
    return subprocess.Popen(["timeout", "-k", "10", str(TIMEOUT), SNAKEMAKE, *args],
                            cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env={**os.environ, **(env or {})},
                            start_new_session=True)


def snakemake(project: Path, args: list[str], env: dict | None = None):
    process = snakemake_process(project, args, env)
    output, _ = process.communicate(timeout=TIMEOUT + 30)
    return process.returncode, output


def until_line(process, words: str) -> str:
    """What ``process`` prints up to and including its first line with ``words`` (all of it,
    should it end first)."""
    output = ""
    for line in process.stdout:
        output += line
        if words in line:
            break
    return output


def launches(host, root: str, run_id: str) -> int:
    return int((host.disk / root / "jobs" / run_id / "launches").read_text())


def wait_for(predicate, what: str, process, timeout: float = 300) -> None:
    """Poll ``predicate`` while the Snakemake ``process`` lives; fail with its output."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if predicate():
            return
        time.sleep(0.2)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    output = process.communicate(timeout=60)[0]
    raise AssertionError(f"no {what} (snakemake exit {process.returncode}):\n{output[-3000:]}")


def heartbeat_step(host, root: str, run_id: str) -> int:
    try:
        beat = host.disk / root / "checkpoints" / run_id / "heartbeat.json"
        return json.loads(beat.read_text())["step"]
    except (OSError, ValueError):
        return -1


def held_trainer(host, root: str, run_id: str, step: int, process) -> int:
    """Wait until the remote job's heartbeat reaches ``step``, SIGSTOP its ``rgt train`` at
    once and return its pid. Held, it can finish neither before the test's next step nor before
    a later Snakemake call has met it, however fast or loaded the machine; SIGKILL still ends
    it, SIGCONT lets it go on."""
    from test_pool import _trainers  # here, not at the top: test_pool imports this module

    held = []

    def hold() -> bool:
        if heartbeat_step(host, root, run_id) < step:
            return False
        held.extend(_trainers(host.disk / root, run_id))
        for pid in held:
            os.kill(pid, signal.SIGSTOP)
        return bool(held)

    wait_for(hold, "remote training", process)
    [trainer] = held
    return trainer


def run_ids(project: Path) -> list[str]:
    out = rgt(["plan", "--json"], project, timeout=120).stdout
    return [row["run_id"] for row in json.loads(out)]


@pytest.mark.parametrize("profile", ["ssh", "autodl"])
def test_profile_trains_on_the_host_and_matches_a_local_run(host, tmp_path, small, profile):
    # A fixed cadence: the measured one may exceed this tiny run on a loaded machine.
    small["defaults"]["checkpoint"]["every_steps"] = 5
    project = make_project(tmp_path, small)
    code, output = snakemake(project, remote_args(host, profile, f"{profile}-root"))
    assert code == 0, output[-4000:]
    assert "rgt: launched" in output and "sha256 verified" in output
    # Training happened on the host; what is here locally is its mirror.
    for mirror in (project / "checkpoints").glob("*/MIRROR.json"):
        assert json.loads(mirror.read_text())["host"] == ALIAS
    for run_id in run_ids(project):
        remote_ckpts = host.disk / f"{profile}-root" / "checkpoints" / run_id
        assert list(remote_ckpts.glob("step-*.pt")), "checkpoints stay on the host's disk"
        assert launches(host, f"{profile}-root", run_id) == 1
    # The host's watchdog was started with the training and keeps its own heartbeat.
    beat = json.loads((host.disk / f"{profile}-root" / "watchdog" / "heartbeat.json").read_text())
    assert beat["pid"] > 0
    reference = tmp_path / "reference"
    reference.mkdir()
    make_project(reference, small)
    for run_id in run_ids(project):
        assert rgt(["train", "--run-id", run_id], reference, timeout=300).returncode == 0
        remote_record = json.loads((project / "runs" / run_id / "run.json").read_text())
        local_record = json.loads((reference / "runs" / run_id / "run.json").read_text())
        assert remote_record["weights_sha256"] == local_record["weights_sha256"]
        # The host's phase-0 audit travels with the run; a local run has none.
        assert remote_record["host_audit"]["host"] == ALIAS
        assert remote_record["host_audit"]["budget"]["fits"] is True
        assert local_record["host_audit"] is None
        assert (project / "runs" / run_id / "train.csv").read_text() == (
            reference / "runs" / run_id / "train.csv").read_text()
    assert (project / "evidence" / "EVIDENCE.json").exists()
    # What the executor pulled and verified is the bundle the teardown gate accepts: no second
    # pull (the project's mirror held the final checkpoint, so the bundle is weights-only).
    for run_id in run_ids(project):
        stamp = json.loads((project / "export" / run_id / "PULL_VERIFIED.json").read_text())
        assert stamp["weights_only"] is True
    (project / "config" / "hosts.yaml").write_text(json.dumps({"hosts": {ALIAS: {
        "platform": profile, "remote_root": str(host.disk / f"{profile}-root"),
        "python": sys.executable, "stop_command": ["true"]}}}))
    gate = rgt(["down", ALIAS, "--dry-run", "--ssh-config", str(host.ssh_config)], project)
    assert gate.returncode == 0 and "dry run: allowed" in gate.stdout, gate.stdout + gate.stderr


def test_killed_controller_reattaches_instead_of_relaunching(host, tmp_path, slow):
    project = make_project(tmp_path, slow)
    [run_id] = run_ids(project)
    args = remote_args(host, "ssh", "reattach-root")
    process = snakemake_process(project, args)
    trainer = held_trainer(host, "reattach-root", run_id, 20, process)
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the laptop dies: no cleanup at all
        process.communicate(timeout=60)
        assert heartbeat_step(host, "reattach-root", run_id) < 6 * 79  # still training remotely
        # A SIGKILLed controller leaves Snakemake's directory lock: the user unlocks, then reruns.
        assert snakemake(project, [*args, "--unlock"])[0] == 0
        rerun = snakemake_process(project, args)
        output = until_line(rerun, "reattached, not relaunched")
    finally:
        os.kill(trainer, signal.SIGCONT)  # the rerun has met it (or the test failed)
    output += rerun.communicate(timeout=TIMEOUT)[0]
    assert rerun.returncode == 0, output[-4000:]
    assert "reattached, not relaunched" in output
    assert launches(host, "reattach-root", run_id) == 1


def test_remote_sigkill_is_relaunched_by_the_same_call_and_resumes_bit_identical(host, tmp_path,
                                                                                slow):
    project = make_project(tmp_path, slow)
    [run_id] = run_ids(project)
    args = [*remote_args(host, "ssh", "kill-root"), "--rgt-retry-backoff", "1"]
    process = snakemake_process(project, args)
    held_trainer(host, "kill-root", run_id, 30, process)  # held: it cannot end before the kill
    pid = int((host.disk / "kill-root" / "jobs" / run_id / "pid").read_text())
    os.killpg(pid, signal.SIGKILL)  # the job's whole process group, as an OOM kill or a reboot
    output, _ = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, output[-4000:]
    assert "vanished" in output and "relaunching in 1 s (relaunch 1 of 3)" in output
    assert launches(host, "kill-root", run_id) == 2
    reference = tmp_path / "reference"
    reference.mkdir()
    make_project(reference, slow)
    assert rgt(["train", "--run-id", run_id], reference, timeout=300).returncode == 0
    remote = json.loads((project / "runs" / run_id / "run.json").read_text())
    local = json.loads((reference / "runs" / run_id / "run.json").read_text())
    assert remote["weights_sha256"] == local["weights_sha256"] and remote["attempts"] == 2


def test_secret_never_reaches_argv_logs_or_records(host, tmp_path, small):
    secret = "hf_planted_secret_5f3a9c"
    project = make_project(tmp_path, small)
    args = [*remote_args(host, "ssh", "secret-root"), "--rgt-secrets", "HF_TOKEN"]
    process = snakemake_process(project, args, env={"HF_TOKEN": secret})
    seen_in_argv = []
    while process.poll() is None:
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                if secret.encode() in cmdline.read_bytes():
                    seen_in_argv.append(cmdline.parent.name)
            except OSError:
                continue
        time.sleep(0.05)
    output = process.communicate()[0]
    assert process.returncode == 0, output[-3000:]
    assert not seen_in_argv
    assert secret not in output
    for root in (project, host.disk / "secret-root"):
        for path in root.rglob("*"):
            if path.is_file():
                assert secret.encode() not in path.read_bytes(), path


def _cut_and_restore(host, down_seconds: float) -> None:
    """Drop every connection and refuse new ones for a while, then come back on the same port."""
    host.stop()
    time.sleep(down_seconds)
    with open(host.log, "ab") as log:
        host.process = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f",
                                         str(host.state / "sshd_config")],
                                        stdout=log, stderr=subprocess.STDOUT)


def test_cut_connection_leaves_the_job_running_and_the_controller_recovers(host, tmp_path,
                                                                           slow):
    project = make_project(tmp_path, slow)
    [run_id] = run_ids(project)
    args = remote_args(host, "ssh", "cut-root")
    process = snakemake_process(project, args)
    wait_for(lambda: heartbeat_step(host, "cut-root", run_id) >= 20, "remote training", process)
    step_before = heartbeat_step(host, "cut-root", run_id)
    # Longer than the wrapper's own reconnect retries, so the controller's poll does fail.
    _cut_and_restore(host, down_seconds=15)
    assert heartbeat_step(host, "cut-root", run_id) > step_before  # trained on while cut off
    output, _ = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, output[-4000:]
    assert "unreachable" in output and "not changed" in output
    assert launches(host, "cut-root", run_id) == 1


def imported_modules(importtime_log: str) -> set[str]:
    """The modules a ``python -X importtime`` process imported, from its stderr."""
    return {line.rsplit("|", 1)[1].strip() for line in importtime_log.splitlines()
            if line.startswith("import time:") and "|" in line}


def test_the_controller_places_a_training_without_importing_torch(host, tmp_path, small):
    # The Snakemake process (executor, audit, deploy, launch, poll, pull) sizes checkpoints from
    # the smoke gate's record; the smoke gate and the training run in processes of their own.
    small["experiments"]["tiny"]["variants"] = {"plain": {}}
    small["defaults"]["checkpoint"]["every_steps"] = 5
    project = make_project(tmp_path, small)
    [run_id] = run_ids(project)
    args = [sys.executable, "-X", "importtime", "-m", "snakemake",
            *remote_args(host, "ssh", "torchless-root"), f"runs/{run_id}/run.json"]
    done = subprocess.run(["timeout", "-k", "10", str(TIMEOUT), *args], cwd=project,
                          capture_output=True, text=True, timeout=TIMEOUT + 30)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "rgt: launched" in done.stdout + done.stderr
    modules = imported_modules(done.stderr)
    assert "snakemake_executor_plugin_rgt.executor" in modules
    assert "rgt.remote.up" in modules and "rgt.pool.station" in modules
    assert not {name for name in modules if name.split(".")[0] == "torch"}
    audit = json.loads((project / ".rgt" / "hosts" / ALIAS / "audit.json").read_text())
    assert audit["budget"]["plan"]["checkpoint_bytes"] > 1 << 20
