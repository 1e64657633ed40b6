"""Training through a real single-node Slurm (started by ci/slurm/start.sh, with slurmdbd so
`sacct` works) and Snakemake's official Slurm executor plugin, via the shipped profiles/slurm:
the example end to end with the config's resources, and the preemption drill (USR1 to the batch
shell, checkpoint, resubmission, resume, bit-identical to an uninterrupted run)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import ROOT, rgt, rgt_process, write_config

pytestmark = [pytest.mark.integration, pytest.mark.slurm]
TIMEOUT = 300
SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
# The shipped profile, polled fast: a test job lasts seconds, not hours.
PROFILE = ["--profile", str(ROOT / "profiles" / "slurm"),
           "--slurm-init-seconds-before-status-checks", "1",
           "--seconds-between-status-checks", "1", "--latency-wait", "5"]
START_HINT = ("start one: bash ci/slurm/install.sh && "
              "RGT_SLURM_STATE=/tmp/rgt-slurm bash ci/slurm/start.sh")
# The config's `cluster:` block of every drill: the test cluster's partition and account.
CLUSTER = {"partition": "debug", "account": "ciacct", "grace_seconds": 30,
           "train": {"runtime_minutes": 7, "cpus": 1, "mem_mb": 500}}


def _answers(command: list[str]) -> bool:
    try:
        return subprocess.run(command, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture(scope="session")
def slurm() -> None:
    """A running Slurm with accounting; skips without one, fails if RGT_REQUIRE_SLURM=1."""
    if _answers(["sinfo", "-h"]) and _answers(["sacct", "-n", "-X"]):
        return
    reason = f"no running Slurm with accounting (sinfo/sacct do not answer); {START_HINT}"
    if os.environ.get("RGT_REQUIRE_SLURM") == "1":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def make_project(directory: Path, config: dict) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Snakefile", directory / "Snakefile")
    shutil.copytree(ROOT / "rules", directory / "rules")
    write_config(directory, config)
    return directory


def start_snakemake(project: Path, *targets: str) -> subprocess.Popen:
    command = ["timeout", "-k", "10", str(TIMEOUT), SNAKEMAKE, *PROFILE, *targets]
    return subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)


def finish(process: subprocess.Popen) -> tuple[int, str]:
    output, _ = process.communicate(timeout=TIMEOUT + 30)
    return process.returncode, output


def slurm_logs(project: Path, run_id: str) -> Path:
    """Where the profile keeps the log of every Slurm job of a run (``<job id>.log``)."""
    return project / ".snakemake" / "slurm_logs" / "rule_train" / run_id


def slurm_jobs(project: Path, run_id: str) -> list[str]:
    """The Slurm job ids of a run's training jobs, oldest first (the profile keeps every log)."""
    logs = slurm_logs(project, run_id).glob("*.log")
    return [str(job) for job in sorted(int(path.stem) for path in logs)]


def sacct(job_id: str) -> dict[str, dict[str, str]]:
    """sacct's record of a job and its steps: {JobID: {field: value}}."""
    fields = ["JobID", "State", "ExitCode", "Timelimit", "Partition", "Account"]
    out = subprocess.run(["sacct", "-n", "-P", "-j", job_id, "-o", ",".join(fields)],
                         capture_output=True, text=True, timeout=30, check=True).stdout
    rows = [dict(zip(fields, line.split("|"), strict=True)) for line in out.splitlines()]
    return {row["JobID"]: row for row in rows}


def planned(project: Path) -> list[str]:
    return [row["run_id"] for row in json.loads(rgt(["plan", "--json"], project).stdout)]


def weights(directory: Path, run_id: str) -> str:
    return json.loads((directory / "runs" / run_id / "run.json").read_text())["weights_sha256"]


def heartbeat_step(project: Path, run_id: str) -> int:
    try:
        beat = project / "checkpoints" / run_id / "heartbeat.json"
        return json.loads(beat.read_text())["step"]
    except (OSError, ValueError, KeyError):
        return -1


def wait_for(predicate, what: str, process: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if predicate():
            return
        time.sleep(0.1)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    output = process.communicate(timeout=60)[0]
    raise AssertionError(f"no {what} (snakemake exit {process.returncode}):\n{output[-3000:]}")


def preempt(project: Path, run_id: str, process: subprocess.Popen, reached, what: str) -> str:
    """Once ``reached()`` and the run's first Slurm job is known, send that job what Slurm
    sends `grace_seconds` before a walltime or preemption (sbatch --signal=B:USR1@…); its id."""
    wait_for(lambda: reached() and slurm_jobs(project, run_id), what, process)
    first = slurm_jobs(project, run_id)[0]
    subprocess.run(["scancel", "--signal=USR1", "--batch", first], check=True, timeout=30)
    return first


def drill_config() -> dict:
    """The tiny example (one seed, two variants), long enough for a run to be interrupted."""
    import yaml

    config = yaml.safe_load((ROOT / "tests" / "data" / "tiny.yaml").read_text())
    config["experiments"]["tiny"]["seeds"] = [0]
    config["defaults"]["train"].update(epochs=4, batch_size=16)
    config["defaults"]["checkpoint"].update(every_steps=10, heartbeat_seconds=0.001)
    config["cluster"] = CLUSTER
    return config


@pytest.fixture(scope="module")
def drill(slurm, tmp_path_factory) -> SimpleNamespace:
    """One `snakemake --profile slurm` of the example in which the baseline run's training job
    gets `scancel --signal=USR1 --batch` mid-training, and the same run trained locally."""
    config = drill_config()
    project = make_project(tmp_path_factory.mktemp("cluster"), config)
    run_ids = planned(project)
    target = run_ids[0]  # tiny/plain seed 0
    process = start_snakemake(project)
    first = preempt(project, target, process, lambda: heartbeat_step(project, target) >= 20,
                    "training job past step 20")
    reference = make_project(tmp_path_factory.mktemp("reference"), config)
    local = rgt_process(["train", "--run-id", target], reference)  # while Slurm requeues
    code, output = finish(process)
    local_output, _ = local.communicate(timeout=TIMEOUT)
    assert local.returncode == 0, local_output[-3000:]
    return SimpleNamespace(project=project, reference=reference, run_ids=run_ids, target=target,
                           first=first, code=code, output=output)


def test_the_example_runs_end_to_end_through_slurm_with_the_configs_resources(drill):
    assert drill.code == 0, drill.output[-4000:]
    assert (drill.project / "evidence" / "EVIDENCE.json").exists()
    for run_id in drill.run_ids:
        last = slurm_jobs(drill.project, run_id)[-1]
        record = sacct(last)[last]
        assert record["State"] == "COMPLETED"
        assert (record["Timelimit"], record["Partition"], record["Account"]) == (
            "00:07:00", "debug", "ciacct")
        assert list((drill.project / "checkpoints" / run_id).glob("step-*.pt"))
    untouched = drill.run_ids[1]
    assert len(slurm_jobs(drill.project, untouched)) == 1  # one sbatch job per training run


def test_the_signalled_job_checkpoints_and_its_successor_resumes(drill):
    assert drill.code == 0, drill.output[-4000:]
    jobs = slurm_jobs(drill.project, drill.target)
    assert len(jobs) == 2 and jobs[0] == drill.first, jobs  # interrupted, then resubmitted
    assert sacct(drill.first)[drill.first]["State"] == "FAILED"
    log = (drill.project / "checkpoints" / drill.target / "train.log").read_text()
    assert "received SIG" in log and "checkpoint saved; rerun to resume" in log
    assert "resumed from step-" in log
    record = json.loads((drill.project / "runs" / drill.target / "run.json").read_text())
    assert record["status"] == "finished" and record["attempts"] == 2


def test_the_resumed_run_is_bit_identical_to_an_uninterrupted_one(drill):
    assert drill.code == 0, drill.output[-4000:]
    project, reference, run_id = drill.project, drill.reference, drill.target
    assert weights(project, run_id) == weights(reference, run_id)
    assert (project / "runs" / run_id / "train.csv").read_text() == (
        reference / "runs" / run_id / "train.csv").read_text()
