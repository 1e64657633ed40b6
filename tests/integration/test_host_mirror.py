"""The host-side mirror: checkpoints leave the host with the laptop gone. A run starts on host A
with a bucket as its host-side mirror (a real local S3 server), the controller is SIGKILLed,
the mirror on A pushes two more checkpoints by itself, A is destroyed, and the pipeline re-run
on host B resumes from the bucket's checkpoint and ends bit-identical. A bucket the controller
cannot use is refused before anything is launched."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest
import test_remote_executor as rx
from test_mirror_drill import host_args, two_hosts  # noqa: F401 - the fixture
from test_pool import _trainers, reference_weights, weights

from rgt.mirror.record import record_from

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
BUCKET = "rgt-host-mirror-drill"


def bucket_args(s3_server, endpoint: str | None = None) -> list[str]:
    return ["--rgt-host-mirror", f"s3://{BUCKET}/proj", "--rgt-host-mirror-endpoint",
            endpoint or s3_server.endpoint, "--rgt-host-mirror-every", "1", "--rgt-secrets",
            "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]


def bucket_step(s3_server, run_id: str) -> int:
    """The step the bucket's MIRROR.json names (-1: none yet)."""
    try:
        body = s3_server.client().get_object(Bucket=BUCKET, Key=f"proj/{run_id}/MIRROR.json")
    except Exception:  # noqa: BLE001 - not there yet
        return -1
    record = record_from(json.loads(body["Body"].read()))
    return record.step if record else -1


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def newest_on_host(state_dir) -> int:
    return max((int(marker.stem[5:]) for marker in state_dir.glob("step-*.json")), default=-1)


def until(predicate, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.005)


def step_and_hold(trainer: int, state_dir) -> int:
    """Let the held trainer write one more checkpoint, hold it again; the newest step."""
    before = newest_on_host(state_dir)
    os.kill(trainer, signal.SIGCONT)
    until(lambda: newest_on_host(state_dir) > before, "a new checkpoint")
    os.kill(trainer, signal.SIGSTOP)
    return newest_on_host(state_dir)


def test_the_host_mirrors_with_the_controller_gone_and_another_host_resumes_from_the_bucket(
        two_hosts, s3_server, tmp_path, slow):  # noqa: F811 - the fixture
    a, b, ssh_config = two_hosts
    s3_server.make_bucket(BUCKET)
    slow["defaults"]["train"]["epochs"] = 20
    project = rx.make_project(tmp_path, slow)
    [run_id] = rx.run_ids(project)
    state_a = a.disk / "root" / "checkpoints" / run_id
    process = rx.snakemake_process(project, [*host_args(a, ssh_config, "root"), "--rgt-mirror",
                                             "off", *bucket_args(s3_server)], s3_server.env())
    rx.wait_for(lambda: bucket_step(s3_server, run_id) >= 10, "a checkpoint in the bucket",
                process)
    secret = s3_server.secret_key.encode()
    assert not [path for path in Path("/proc").glob("[0-9]*/cmdline") if secret in _read(path)]
    os.killpg(process.pid, signal.SIGKILL)  # the laptop dies; host A trains on, alone
    process.communicate(timeout=60)
    [trainer] = _trainers(a.disk / "root", run_id)
    os.kill(trainer, signal.SIGSTOP)  # stepped by hand from here: a run that cannot finish
    pushed = []
    for _ in range(2):
        step = step_and_hold(trainer, state_a)
        until(lambda step=step: bucket_step(s3_server, run_id) == step, f"step {step} pushed")
        pushed.append(step)
    assert pushed[0] < pushed[1] and not (a.disk / "root" / "runs" / run_id).exists()
    assert not [path for path in (a.disk / "root").rglob("*")
                if path.is_file() and secret in _read(path)]  # never on the durable disk
    a.release()  # host A is destroyed: its processes, its sshd and its disk
    shutil.rmtree(a.disk / "root")
    args = [*host_args(b, ssh_config, "root"), *bucket_args(s3_server)]
    assert rx.snakemake(project, [*args, "--unlock"], s3_server.env())[0] == 0
    code, output = rx.snakemake(project, args, s3_server.env())
    assert code == 0, output[-4000:]
    assert f"holds the newest checkpoint (step {pushed[1]}" in output
    assert f"pushed the mirrored checkpoint of step {pushed[1]}" in output
    log = (b.disk / "root" / "checkpoints" / run_id / "train.log").read_text()
    assert f"resumed from step-{pushed[1]:09d}.pt" in log, log[-2000:]
    assert weights(project, run_id) == reference_weights(tmp_path, slow, [run_id])[run_id]


def test_a_bucket_the_controller_cannot_use_is_refused_before_anything_is_launched(
        sshd_server, s3_server, tmp_path, small):
    project = rx.make_project(tmp_path, small)
    host = rx.remote_args(sshd_server, "ssh", "refused-root")
    wrong = {**s3_server.env(), "AWS_SECRET_ACCESS_KEY": "not-the-secret"}
    code, output = rx.snakemake(project, [*host, *bucket_args(s3_server)], wrong)
    assert code != 0 and "refused the credentials" in output, output[-3000:]
    assert "not-the-secret" not in output
    closed = bucket_args(s3_server, "http://127.0.0.1:9")
    code, output = rx.snakemake(project, [*host, *closed], s3_server.env())
    assert code != 0 and "cannot reach s3://" in output, output[-3000:]
    assert not (sshd_server.disk / "refused-root" / "jobs").exists()
