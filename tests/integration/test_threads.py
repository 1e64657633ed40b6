"""The same run id gives the same bytes whatever executes it: a job whose weights depend on its
thread count, trained locally through Snakemake (which sets OMP_NUM_THREADS=1 for its jobs)
and on a loopback OpenSSH host (which sets nothing), seals identical weights, and both
run.json files record the thread settings the run fixed (job.threads, 1 when left out)."""

from __future__ import annotations

import json
import shutil

import pytest
import test_remote_executor as rx

from conftest import ROOT
from sshd import start_sshd

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
JOB = {"defaults": {"job": {"command": "python train.py", "sources": ["train.py"],
                            "metrics": {"loss": {"direction": "lower"}}},
                    "checkpoint": {"keep": 2, "mtbf_hours": 6.0, "every_steps": 4,
                                   "heartbeat_seconds": 1}},
       "experiments": {"threads": {"baseline": "plain", "seeds": [0],
                                   "variants": {"plain": {}}}}}
LOCAL = ["--profile", str(ROOT / "profiles" / "local"), "--cores", "2"]


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    server = start_sshd(tmp_path_factory.mktemp("threads-host"))
    yield server
    server.release()


def job_project(directory):
    directory.mkdir()
    rx.make_project(directory, JOB)
    shutil.copy(ROOT / "tests" / "data" / "threads_job.py", directory / "train.py")
    return directory


def test_a_job_seals_the_same_weights_locally_and_on_a_host(host, tmp_path):
    local, remote = job_project(tmp_path / "local"), job_project(tmp_path / "remote")
    [run_id] = rx.run_ids(local)
    sealed = f"runs/{run_id}/run.json"  # the training alone: delivery is not the point here
    code, output = rx.snakemake(local, [*LOCAL, sealed])
    assert code == 0, output[-4000:]
    code, output = rx.snakemake(remote, [*rx.remote_args(host, "ssh", "root"), sealed])
    assert code == 0, output[-4000:]
    assert "rgt: launched" in output
    here = json.loads((local / "runs" / run_id / "run.json").read_text())
    there = json.loads((remote / "runs" / run_id / "run.json").read_text())
    assert there["host_audit"] and here["host_audit"] is None  # it did train on the host
    assert here["weights_sha256"] == there["weights_sha256"]
    for record in (here, there):
        assert record["platform"]["threads"] == {"intra_op": 1, "inter_op": 1, "omp": 1,
                                                 "mkl": 1}
    assert here["platform"]["fingerprint"] == there["platform"]["fingerprint"]
