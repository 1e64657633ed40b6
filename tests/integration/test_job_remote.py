"""Your own training command (``job:`` in the config) on rented hosts, as the built-in trainer:
a plain-loop script (the word-level LM example), a Lightning one (the MLP example) and a Hugging
Face Trainer one (the adapter drills' tiny BERT) each train on host A
through ``snakemake --profile ssh``, `rgt watch` shows its row, A vanishes, the run resumes on
host B from the mirror and ends bit-identical to a local run, and `rgt pull` brings back outputs
and checkpoints; a job that fails is not hidden from the teardown gate."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
import test_remote_executor as rx
import yaml
from test_mirror_drill import host_args, mirrored_step, two_hosts  # noqa: F401  (fixture)
from test_pool import _trainers

from conftest import ROOT, rgt

pytestmark = [pytest.mark.integration, pytest.mark.ssh]
LOWER, HIGHER = {"direction": "lower"}, {"direction": "higher"}


@dataclass(frozen=True)
class Example:
    """A script as a one-run job, slowed so a host can be lost mid-training: the script (run
    as train.py), its command, data (beside the script) and params."""

    script: Path
    command: str
    data: tuple[str, ...]
    params: dict
    metrics: dict


EXAMPLES = {
    "wlm": Example(ROOT / "examples" / "wlm" / "train.py",
                   "python train.py --epochs {params.epochs} --nhid {params.nhid} --emsize 32 "
                   "--sleep {params.sleep} --seed {seed}", ("data",),
                   {"epochs": 2, "nhid": 32, "sleep": 0.05},
                   {"perplexity": LOWER, "loss": LOWER}),
    # 8 epochs of 11 batches: ~9 s of training, long past the first mirrored checkpoint.
    "lit": Example(ROOT / "examples" / "lit" / "train.py",
                   "python train.py --epochs {params.epochs} --hidden 16 --sleep {params.sleep} "
                   "--seed {seed}", (), {"epochs": 8, "sleep": 0.1},
                   {"accuracy": HIGHER, "loss": LOWER}),
    # 60 steps, a checkpoint at every 6th (its logged steps): ~9 s of training.
    "hf": Example(ROOT / "tests" / "data" / "adapters" / "train_hf.py",
                  "env ADAPTER_STEPS={params.steps} ADAPTER_SLEEP={params.sleep} python train.py",
                  (), {"steps": 60, "sleep": 0.15}, {"loss": LOWER}),
}


def job_config(command: str, sources: list[str], data: list[str], params: dict,
               metrics: dict) -> dict:
    return {"defaults": {"job": {"command": command, "sources": sources, "data": data,
                                 "params": params, "metrics": metrics},
                         "checkpoint": {"keep": 2, "mtbf_hours": 6.0, "every_steps": 5,
                                        "heartbeat_seconds": 0.5}},
            "experiments": {"lm": {"baseline": "plain", "seeds": [1],
                                   "variants": {"plain": {}}}}}


def example_project(directory, name: str):
    """A script as a project: the script (and its data), a one-run config."""
    example = EXAMPLES[name]
    directory.mkdir()
    rx.make_project(directory, job_config(example.command, ["train.py"], list(example.data),
                                          example.params, example.metrics))
    shutil.copy(example.script, directory / "train.py")
    for data in example.data:
        shutil.copytree(example.script.parent / data, directory / data)
    return directory


def watch_rows(project, alias: str, root, ssh_config) -> dict:
    hosts = {"hosts": {alias: {"platform": "ssh", "remote_root": str(root)}}}
    (project / "config" / "hosts.yaml").write_text(yaml.safe_dump(hosts))
    result = rgt(["watch", "--once", "--json", "--ssh-config", str(ssh_config)], project,
                 timeout=120)
    assert result.returncode == 0, result.stderr
    return {row["run_id"]: row for row in json.loads(result.stdout) if row["run_id"]}


def held_past(root: Path, run_id: str, step: int) -> bool:
    """Once a checkpoint of ``step`` or later is on the host's disk under ``root``, SIGSTOP the
    job's script (the children of its ``rgt train``) and say so. Held, it can neither finish nor
    be pulled back before the host is lost, however fast or loaded the machine; it stays alive
    (`rgt watch` sees it running) and dies with the host's SIGKILL."""
    markers = (root / "checkpoints" / run_id).glob("step-*.json")
    if max((int(marker.stem[5:]) for marker in markers), default=-1) < step:
        return False
    scripts = [child for trainer in _trainers(root, run_id) for child in _children(trainer)]
    for pid in scripts:
        os.kill(pid, signal.SIGSTOP)
    return bool(scripts)


def _children(pid: int) -> list[int]:
    try:
        return [int(child) for child in
                Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_a_job_is_watched_mirrored_resumed_elsewhere_bit_identical_and_pulled(
        two_hosts, tmp_path, example):  # noqa: F811
    a, b, ssh_config = two_hosts
    project = example_project(tmp_path / "project", example)
    [run_id] = rx.run_ids(project)
    process = rx.snakemake_process(project, host_args(a, ssh_config, "root"))
    rx.wait_for(lambda: held_past(a.disk / "root", run_id, 10), "a checkpoint on host A",
                process)
    rx.wait_for(lambda: mirrored_step(project, run_id) >= 10, "a mirrored checkpoint", process)
    row = watch_rows(project, a.alias, a.disk / "root", ssh_config)[run_id]
    assert row["state"] == "running" and 0 < row["step"] < row["total"], row
    assert isinstance(row["loss"], float) and row["heartbeat_age_s"] < 30
    os.killpg(process.pid, signal.SIGKILL)  # the laptop dies with the host
    process.communicate(timeout=60)
    mirrored = mirrored_step(project, run_id)
    a.release()  # host A is destroyed: its processes, its sshd and its disk
    shutil.rmtree(a.disk / "root")
    assert rx.snakemake(project, [*host_args(b, ssh_config, "root"), "--unlock"])[0] == 0
    code, output = rx.snakemake(project, host_args(b, ssh_config, "root"))
    assert code == 0, output[-4000:]
    log = (b.disk / "root" / "checkpoints" / run_id / "train.log").read_text()
    assert f"from step-{mirrored:09d}.pt" in log, log[-2000:]
    reference = example_project(tmp_path / "reference", example)
    assert rgt(["train", "--run-id", run_id], reference, timeout=300).returncode == 0
    for name in ("train.csv", "results.json"):
        assert (project / "runs" / run_id / name).read_text() == \
            (reference / "runs" / run_id / name).read_text(), name
    moved = json.loads((project / "runs" / run_id / "run.json").read_text())
    local = json.loads((reference / "runs" / run_id / "run.json").read_text())
    assert moved["weights_sha256"] == local["weights_sha256"]
    # The run came home whole: every file a local run has (model.pt, predictions.parquet…),
    # so verify re-derives its metrics from the per-sample predictions.
    def kinds(run_dir):  # an event file's name carries its writer's time, host and pid
        return {"events.out.tfevents" if path.name.startswith("events.out.tfevents")
                else path.name for path in run_dir.iterdir()}

    assert kinds(reference / "runs" / run_id) <= kinds(project / "runs" / run_id)
    report = json.loads((project / "verify" / "report.json").read_text())
    assert not [finding for finding in report["findings"]
                if finding["check"] == "not-rederivable" and run_id in finding["subject"]
                and "predictions.parquet" in finding["detail"]], report["findings"]
    hosts = {"hosts": {b.alias: {"platform": "ssh", "remote_root": str(b.disk / "root")}}}
    (project / "config" / "hosts.yaml").write_text(yaml.safe_dump(hosts))
    pulled = rgt(["pull", run_id, "--host", b.alias, "--ssh-config", str(ssh_config)],
                 project, timeout=300)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    bundle = project / "export" / run_id
    assert (bundle / "PULL_VERIFIED.json").is_file()
    assert (bundle / "run" / "results.json").is_file() and (bundle / "run" / "model.pt").is_file()
    assert list((bundle / "checkpoints").glob("step-*.pt"))
    assert (bundle / "checkpoints" / "job.log").is_file()


def test_a_failed_job_is_reported_with_its_log_and_blocks_the_teardown(
        two_hosts, tmp_path):  # noqa: F811
    a, _, ssh_config = two_hosts
    project = tmp_path / "project"
    project.mkdir()
    rx.make_project(project, job_config(
        "env PLAIN_FAIL_AT=30 PLAIN_STEPS=60 python train_mlp.py", ["train_mlp.py"], [], {},
        {"loss": {"direction": "lower"}, "accuracy": {"direction": "higher"}}))
    shutil.copy(ROOT / "tests" / "data" / "plain_loop" / "train_mlp.py", project)
    [run_id] = rx.run_ids(project)
    code, output = rx.snakemake(project, host_args(a, ssh_config, "root"))
    assert code != 0
    assert "a bug at step 30" in output  # the job's own log tail, brought back
    assert list((a.disk / "root" / "checkpoints" / run_id).glob("step-*.pt"))
    hosts = {"hosts": {a.alias: {"platform": "ssh", "remote_root": str(a.disk / "root"),
                                 "stop_command": ["true"]}}}
    (project / "config" / "hosts.yaml").write_text(yaml.safe_dump(hosts))
    down = subprocess.run([rx.sys.executable, "-m", "rgt", "down", a.alias, "--dry-run",
                           "--approve", f"{a.alias}:true", "--ssh-config", str(ssh_config)],
                          cwd=project, capture_output=True, text=True, timeout=300)
    assert down.returncode != 0, down.stdout + down.stderr
    assert run_id in down.stdout + down.stderr
