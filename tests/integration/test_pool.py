"""A pool of rented hosts as one cluster: real loopback sshds stand for the boxes (separate
ports and disks). The example's six runs spread over three hosts and come back verified and
identical to local runs; a host whose sshd stops mid-run loses its job to another host, which
resumes it from the mirror, and no run ever trains twice at once."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import test_remote_executor as rx

from conftest import rgt
from sshd import start_sshd

pytestmark = [pytest.mark.integration, pytest.mark.ssh]


@pytest.fixture
def pool(tmp_path_factory, request):
    """``request.param`` loopback hosts box-0, box-1, ... and one ssh_config reaching all."""
    hosts = [start_sshd(tmp_path_factory.mktemp(f"box-{n}"), alias=f"box-{n}")
             for n in range(request.param)]
    config = tmp_path_factory.mktemp("client") / "ssh_config"
    config.write_text("\n".join(host.ssh_config.read_text() for host in hosts))
    yield hosts, config
    for host in hosts:
        host.release()


def pool_project(directory: Path, config: dict, hosts) -> Path:
    """The project, its config/hosts.yaml giving each box its own root on its own disk."""
    project = rx.make_project(directory, config)
    registry = {"hosts": {host.alias: {"platform": "ssh", "remote_root": str(remote_root(host))}
                          for host in hosts}}
    (project / "config" / "hosts.yaml").write_text(json.dumps(registry))
    return project


def pool_args(hosts, ssh_config: Path, *extra: str) -> list[str]:
    return ["--profile", str(rx.ROOT / "profiles" / "ssh"),
            "--rgt-host", ",".join(host.alias for host in hosts),
            "--rgt-ssh-config", str(ssh_config), "--rgt-python", rx.sys.executable,
            "--jobs", str(len(hosts)), "--seconds-between-status-checks", "1", *extra]


def remote_root(host) -> Path:
    return host.disk / "pool-root"


class TrainingCensus:
    """Samples the ``rgt train`` processes working in the pool's roots (other tests may train
    the same run ids elsewhere on this machine); the most copies of one run seen at once."""

    def __init__(self, hosts):
        self.roots = [str(remote_root(host)) for host in hosts]
        self.most: Counter = Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(0.1):
            trainers = {int(proc.name): run for proc in Path("/proc").glob("[0-9]*")
                        if (run := _training_run(proc, self.roots))}
            # A trainer's own child (forked for a subprocess, not yet exec'd) bears its argv:
            # it is the same copy, not a second one.
            now = Counter(run for pid, run in trainers.items()
                          if trainers.get(_parent(pid)) != run)
            for run, count in now.items():
                self.most[run] = max(self.most[run], count)


def _parent(pid: int) -> int | None:
    with contextlib.suppress(OSError, IndexError, ValueError):
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    return None


def _training_run(proc: Path, roots: list[str]) -> str | None:
    with contextlib.suppress(OSError, IndexError):
        argv = (proc / "cmdline").read_bytes().split(b"\0")
        if b"rgt" in argv and b"train" in argv and b"--run-id" in argv and any(
                os.readlink(proc / "cwd").startswith(root) for root in roots):
            return argv[argv.index(b"--run-id") + 1].decode()
    return None


def reference_weights(tmp_path: Path, config: dict, run_ids: list[str]) -> dict[str, str]:
    reference = tmp_path / "reference"
    reference.mkdir()
    rx.make_project(reference, config)
    weights = {}
    for run_id in run_ids:
        assert rgt(["train", "--run-id", run_id], reference, timeout=300).returncode == 0
        weights[run_id] = json.loads((reference / "runs" / run_id / "run.json").read_text())[
            "weights_sha256"]
    return weights


def weights(project: Path, run_id: str) -> str:
    return json.loads((project / "runs" / run_id / "run.json").read_text())["weights_sha256"]


@pytest.mark.parametrize("pool", [3], indirect=True)
def test_six_runs_spread_over_three_hosts_and_match_local_runs(pool, tmp_path, tiny_config):
    hosts, ssh_config = pool
    tiny_config["experiments"]["tiny"]["seeds"] = [0, 1, 2]
    tiny_config["defaults"]["checkpoint"]["every_steps"] = 5
    project = pool_project(tmp_path, tiny_config, hosts)
    run_ids = rx.run_ids(project)
    assert len(run_ids) == 6
    with TrainingCensus(hosts) as census:
        code, output = rx.snakemake(project, pool_args(hosts, ssh_config))
    assert code == 0, output[-4000:]
    ran_on = {host.alias: sorted(path.name for path in (remote_root(host) / "runs").iterdir())
              for host in hosts}
    assert all(ran_on.values()), ran_on  # every host got work
    assert sorted(sum(ran_on.values(), [])) == sorted(run_ids)  # each run on one host only
    assert max(census.most.values()) == 1
    assert output.count("sha256 verified") >= 6
    expected = reference_weights(tmp_path, tiny_config, run_ids)
    assert {run_id: weights(project, run_id) for run_id in run_ids} == expected


@pytest.mark.parametrize("pool", [2], indirect=True)
def test_a_silent_host_loses_its_job_to_another_which_resumes_it_from_the_mirror(
        pool, tmp_path, slow):
    hosts, ssh_config = pool
    slow["experiments"]["tiny"]["seeds"] = [0, 1]
    slow["defaults"]["train"]["epochs"] = 20
    project = pool_project(tmp_path, slow, hosts)
    run_ids = rx.run_ids(project)
    args = pool_args(hosts, ssh_config, "--rgt-mirror-every", "1", "--rgt-lease-seconds", "8",
                     "--rgt-unknown-grace", "23")
    with TrainingCensus(hosts) as census:
        process = rx.snakemake_process(project, args)
        doomed = hosts[0]
        leases = remote_root(doomed) / "jobs"
        rx.wait_for(lambda: _training_past(remote_root(doomed), run_ids, 10),
                    "a job training on box-0", process)
        moved = _training_past(remote_root(doomed), run_ids, 10)
        # box-0's copy is held mid-run (SIGSTOP) from here until its fence fires, whatever the
        # machine's speed: a copy that finished before its lease lapsed would never be fenced.
        with held_until(_trainers(remote_root(doomed), moved), leases / moved / "fenced"):
            rx.wait_for(lambda: _mirrored(project, moved) >= 10, "its checkpoint mirrored",
                        process)
            doomed.stop()  # the box stops answering; what runs there goes on until fenced
            output, _ = process.communicate(timeout=rx.TIMEOUT)
    assert process.returncode == 0, output[-4000:]
    assert f"{moved} moves to another host" in output
    # box-0's copy stopped itself (the message shows what it did instead, should it not)...
    assert (leases / moved / "fenced").is_file(), _job_files(leases / moved)
    assert (leases / moved / "exit_code").read_text().strip() == "75"  # ...checkpointed
    assert max(census.most.values()) == 1, census.most
    log = (remote_root(hosts[1]) / "checkpoints" / moved / "train.log").read_text()
    assert "resumed from step-" in log
    record = json.loads((project / ".rgt" / "pool" / f"{moved}.json").read_text())
    assert record["host"] == "box-1" and record["epoch"] == 2
    assert weights(project, moved) == reference_weights(tmp_path, slow, [moved])[moved]


def _training_past(root: Path, run_ids: list[str], step: int) -> str | None:
    """A run training under ``root`` with a checkpoint of ``step`` or later, if any."""
    for run_id in run_ids:
        markers = (root / "checkpoints" / run_id).glob("step-*.json")
        if max((int(m.stem[5:]) for m in markers), default=-1) >= step and \
                _trainers(root, run_id):
            return run_id
    return None


def _trainers(root: Path, run_id: str) -> list[int]:
    """The pids of ``rgt train --run-id run_id`` working under ``root``."""
    return [int(proc.name) for proc in Path("/proc").glob("[0-9]*")
            if _training_run(proc, [str(root)]) == run_id]


@contextlib.contextmanager
def held_until(pids: list[int], released_by: Path, timeout: float = 120):
    """SIGSTOP ``pids`` for the block, each SIGCONT-ed once ``released_by`` exists: a signal
    sent meanwhile (the fence's SIGTERM) is delivered on release."""
    assert pids, "no trainer to hold"
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    done = threading.Event()

    def release() -> None:
        deadline = time.monotonic() + timeout
        while not released_by.exists() and time.monotonic() < deadline and not done.is_set():
            time.sleep(0.1)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _job_files(job: Path) -> dict[str, str]:
    """The small files of a remote job directory, and its log's tail (failure diagnostics)."""
    found = {path.name: path.read_text(errors="replace")[-2000:] for path in job.iterdir()
             if path.is_file()} if job.is_dir() else {}
    log = job.parent.parent / "checkpoints" / job.name / "train.log"
    found["train.log"] = log.read_text(errors="replace")[-2000:] if log.is_file() else "absent"
    return found


def _mirrored(project: Path, run_id: str) -> int:
    from rgt.mirror.record import read_mirror

    record = read_mirror(project / "checkpoints" / run_id)
    return record.step if record else -1
