"""The host's record and the launch ledger in the user's hands, against a real loopback host:
wherever the remote root came from (a profile of the user's, a flag, or `rgt up`'s record), a
controller killed after the launch leaves a run that `rgt down` refuses to lose, reading the
record alone; a restarted controller never runs two jobs at once on a `jobs: 1` host."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml
from test_job_remote import example_project
from test_pool import _trainers
from test_remote_executor import (
    SNAKEMAKE,
    make_project,
    run_ids,
    snakemake,
    snakemake_process,
    wait_for,
)

from conftest import ROOT, rgt
from sshd import ALIAS, start_sshd

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
AUTODL = str(ROOT / "profiles" / "autodl")
SSH = str(ROOT / "profiles" / "ssh")
SLEEP = 0.25  # seconds per step of the plain-loop example: each run lasts longer than a restart
assert SNAKEMAKE  # the same Snakemake the executor drills use


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    server = start_sshd(tmp_path_factory.mktemp("record-host"))
    yield server
    server.release()


def fresh(directory: Path) -> Path:
    directory.mkdir(parents=True)
    return directory


def kill_jobs(root: Path) -> None:
    """Stop every job still running under ``root`` (its whole process group)."""
    for pid_file in root.glob("jobs/*/pid"):
        try:
            os.killpg(int(pid_file.read_text()), signal.SIGKILL)
        except (ValueError, ProcessLookupError, PermissionError):
            continue


def held_in_training(root: Path, run_id: str) -> bool:
    """Once the job under ``root`` has a heartbeat, SIGSTOP its ``rgt train`` and say so. Held,
    it is still training however fast or loaded the machine (alive, its progress recent) when a
    check probes it, and ``kill_jobs`` still ends it."""
    if not (root / "checkpoints" / run_id / "heartbeat.json").exists():
        return False
    trainers = _trainers(root, run_id)
    for pid in trainers:
        os.kill(pid, signal.SIGSTOP)
    return bool(trainers)


def user_profile(directory: Path, host, root: Path) -> str:
    """The user's own profile: the shipped autodl one plus the host facts a user would add."""
    shutil.copytree(AUTODL, directory)
    with open(directory / "config.yaml", "a") as profile:
        profile.write(f"rgt-remote-root: {root}\nrgt-python: {sys.executable}\n"
                      f"rgt-ssh-config: {host.ssh_config}\n")
    return str(directory)


def arguments(source: str, host, root: Path, tmp_path: Path, project: Path) -> list[str]:
    """The Snakemake call of a user whose remote root comes from ``source``."""
    common = ["--rgt-host", ALIAS, "--seconds-between-status-checks", "1"]
    if source == "profile":
        return ["--profile", user_profile(tmp_path / "my-autodl", host, root), *common]
    if source == "flag":
        return ["--profile", AUTODL, *common, "--rgt-remote-root", str(root), "--rgt-python",
                sys.executable, "--rgt-ssh-config", str(host.ssh_config)]
    up = rgt(["up", ALIAS, "--platform", "autodl", "--root", str(root), "--python",
              sys.executable, "--ssh-config", str(host.ssh_config)], project)
    assert up.returncode == 0, up.stdout + up.stderr
    return ["--profile", AUTODL, *common]


@pytest.mark.parametrize("source", ["profile", "flag", "record"])
def test_a_run_left_on_the_host_by_a_killed_controller_is_never_lost(host, tmp_path, slow,
                                                                     source):
    project = make_project(fresh(tmp_path / "project"), slow)
    [run_id] = run_ids(project)
    root = host.disk / f"gate-{source}"
    process = snakemake_process(project, arguments(source, host, root, tmp_path, project))
    try:
        wait_for(lambda: held_in_training(root, run_id), "a launched job", process)
        os.killpg(process.pid, signal.SIGKILL)  # the laptop dies after "launched"
        process.communicate(timeout=60)
        hosts = project / "config" / "hosts.yaml"
        entry = yaml.safe_load(hosts.read_text())["hosts"][ALIAS]
        assert entry["remote_root"] == str(root)  # the one record every verb reads
        hosts.write_text(hosts.read_text() + "    stop_command: [\"true\"]\n")
        gate = rgt(["down", ALIAS, "--approve", f"{ALIAS}:stop"], project)
    finally:
        kill_jobs(root)
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert f"run {run_id} is still training on {ALIAS}" in gate.stderr
    assert "does not exist" not in gate.stdout + gate.stderr
    [launch] = [json.loads(line) for line in
                (project / ".rgt" / "launches.jsonl").read_text().splitlines()]
    assert (launch["run_id"], launch["root"], launch["attempt"]) == (run_id, str(root), 1)


def test_a_flag_that_differs_from_the_record_is_refused_before_anything_runs(host, tmp_path,
                                                                             small):
    project = make_project(fresh(tmp_path / "project"), small)
    root = host.disk / "recorded-root"
    arguments("record", host, root, tmp_path, project)
    code, output = snakemake(project, ["--profile", AUTODL, "--rgt-host", ALIAS,
                                       "--rgt-remote-root", str(host.disk / "elsewhere")])
    assert code != 0
    assert (f"--rgt-remote-root (the profile or the command line) is {host.disk / 'elsewhere'}"
            f", but config/hosts.yaml records remote_root {root} for {ALIAS} (recorded by rgt "
            "up, ") in output
    assert not (project / ".rgt" / "launches.jsonl").exists()


class JobSampler(threading.Thread):
    """Samples this machine's process table (the loopback host's) for the detached training
    jobs under ``root``: the most that ever ran at once, and which."""

    def __init__(self, root: Path):
        super().__init__(daemon=True)
        self.pattern = re.compile(r": rgt-job ([0-9a-f]{16}); J=\$\(cd " + re.escape(str(root)))
        self.most: set[str] = set()
        self.samples = 0
        self.done = threading.Event()

    def alive(self) -> set[str]:
        found = set()
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                match = self.pattern.search(cmdline.read_bytes().decode(errors="replace"))
            except OSError:
                continue
            if match:
                found.add(match[1])
        return found

    def run(self) -> None:
        while not self.done.is_set():
            now = self.alive()
            self.samples += 1
            if len(now) > len(self.most):
                self.most = now
            time.sleep(0.1)


class Output(threading.Thread):
    """The lines a Snakemake process prints, read as they come."""

    def __init__(self, process):
        super().__init__(daemon=True)
        self.process, self.lines = process, []
        self.start()

    def run(self) -> None:
        for line in self.process.stdout:
            self.lines.append(line)

    def wait_for(self, *words: str, timeout: float = 300) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.process.poll() is None:
            for line in list(self.lines):
                if any(word in line for word in words):
                    return line
            time.sleep(0.1)
        raise AssertionError(f"none of {words} (exit {self.process.poll()}):\n"
                             + "".join(self.lines[-60:]))


def test_a_controller_restarted_five_times_never_runs_two_jobs_on_a_one_slot_host(
        host, tmp_path):
    # Three runs of the plain-loop example, each slowed to ~20 s: longer than a restart.
    project = example_project(tmp_path / "project", "wlm")
    config = yaml.safe_load((project / "config" / "config.yaml").read_text())
    config["experiments"]["lm"]["seeds"] = [1, 2, 3]
    config["defaults"]["job"]["params"]["sleep"] = SLEEP
    (project / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    runs = run_ids(project)
    root = host.disk / "one-slot"
    args = ["--profile", SSH, "--rgt-host", ALIAS, "--rgt-remote-root", str(root),
            "--rgt-python", sys.executable, "--rgt-ssh-config", str(host.ssh_config),
            "--seconds-between-status-checks", "1"]
    sampler = JobSampler(root)
    sampler.start()
    chance = random.Random(7)
    try:
        for _ in range(5):
            # The user asks for a run other than the one still training: the restarted
            # controller places it first.
            todo = [run_id for run_id in runs if not (project / "runs" / run_id).exists()]
            other = [run_id for run_id in todo if run_id not in sampler.alive()] or todo
            process = snakemake_process(project, [*args, f"runs/{other[0]}/run.json"])
            Output(process).wait_for("rgt: launched", "waits for it", "reattached")
            time.sleep(chance.uniform(1.0, 3.0))
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=60)
            assert snakemake(project, [*args, "--unlock"])[0] == 0
        code, final = snakemake(project, args)
    finally:
        sampler.done.set()
        sampler.join(timeout=10)
        kill_jobs(root)
    assert code == 0, final[-4000:]
    assert len(sampler.most) == 1, f"{sorted(sampler.most)} ran at once"
    assert sampler.samples > 100
    assert all((project / "runs" / run_id / "run.json").is_file() for run_id in runs)
