"""Your own training command (``job:`` in the config) through a real Slurm, as the built-in
trainer in test_slurm.py: the plain-loop script's Slurm job gets `scancel --signal=USR1 --batch`
mid-training, checkpoints, Snakemake resubmits it, the new job resumes from that checkpoint,
and the sealed run is bit-identical to the same run trained locally."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
import test_slurm as ts
from test_job_remote import job_config
from test_slurm import slurm  # noqa: F401  (fixture)

from conftest import ROOT, rgt_process

pytestmark = [pytest.mark.integration, pytest.mark.slurm]
SCRIPT = ROOT / "tests" / "data" / "plain_loop" / "train_mlp.py"
# 60 steps of at least 0.1 s: the signal lands mid-training, well before the last step.
COMMAND = "env PLAIN_STEPS=60 PLAIN_SLEEP=0.1 python train_mlp.py"
METRICS = {"loss": {"direction": "lower"}, "accuracy": {"direction": "higher"}}


def job_project(directory: Path) -> Path:
    """A one-run project whose training is the plain-loop script, with the cluster block."""
    config = job_config(COMMAND, [SCRIPT.name], [], {}, METRICS)
    config["cluster"] = ts.CLUSTER
    ts.make_project(directory, config)
    shutil.copy(SCRIPT, directory / SCRIPT.name)
    return directory


def newest_checkpoint(project: Path, run_id: str) -> int:
    """The step of the run's newest complete checkpoint (its marker written), -1 for none."""
    markers = (project / "checkpoints" / run_id).glob("step-*.json")
    return max((int(path.stem.removeprefix("step-")) for path in markers), default=-1)


@pytest.fixture(scope="module")
def job_drill(slurm, tmp_path_factory) -> SimpleNamespace:  # noqa: F811
    """One `snakemake --profile slurm` of the run whose Slurm job is signalled once a
    checkpoint of step 10 exists, and the same run trained locally."""
    project = job_project(tmp_path_factory.mktemp("cluster"))
    [run_id] = ts.planned(project)
    process = ts.start_snakemake(project, f"runs/{run_id}/results.json")
    first = ts.preempt(project, run_id, process,
                       lambda: newest_checkpoint(project, run_id) >= 10, "a checkpoint at step 10")
    reference = job_project(tmp_path_factory.mktemp("reference"))
    local = rgt_process(["train", "--run-id", run_id], reference)  # while Slurm resubmits
    code, output = ts.finish(process)
    local_output, _ = local.communicate(timeout=ts.TIMEOUT)
    assert local.returncode == 0, local_output[-3000:]
    return SimpleNamespace(project=project, reference=reference, run_id=run_id, first=first,
                           code=code, output=output)


def test_a_signalled_job_checkpoints_and_the_next_slurm_job_resumes_from_it(job_drill):
    project, run_id = job_drill.project, job_drill.run_id
    assert job_drill.code == 0, job_drill.output[-4000:]
    jobs = ts.slurm_jobs(project, run_id)
    assert len(jobs) == 2 and jobs[0] == job_drill.first, jobs  # interrupted, then resubmitted
    assert ts.sacct(jobs[0])[jobs[0]]["State"] == "FAILED"
    assert ts.sacct(jobs[1])[jobs[1]]["State"] == "COMPLETED"
    first, second = ((ts.slurm_logs(project, run_id) / f"{job}.log").read_text() for job in jobs)
    saved = re.search(r"received SIG\w+: checkpoint of step (\d+) saved; rerun to resume", first)
    assert saved and "exit status 75" in first, first[-3000:]  # preempted, not failed
    assert f"resumed {run_id} from step-{int(saved[1]):09d}.pt" in second, second[-3000:]
    record = json.loads((project / "runs" / run_id / "run.json").read_text())
    assert record["status"] == "finished" and record["attempts"] == 2
    assert 10 < int(saved[1]) < record["steps"]  # mid-training, after the wait


def test_the_resumed_job_is_bit_identical_to_an_uninterrupted_one(job_drill):
    assert job_drill.code == 0, job_drill.output[-4000:]
    project, reference, run_id = job_drill.project, job_drill.reference, job_drill.run_id
    assert ts.weights(project, run_id) == ts.weights(reference, run_id)
    for name in ("train.csv", "results.json"):
        assert (project / "runs" / run_id / name).read_text() == (
            reference / "runs" / run_id / name).read_text(), name
