"""The real Snakemake pipeline on the tiny config: smoke -> train -> evaluate -> verify ->
deliver -> evidence, then a no-op re-run, a config error and a failing smoke gate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, rgt

pytestmark = pytest.mark.integration
SNAKEMAKE_TIMEOUT = 900
PROFILE = str(ROOT / "profiles" / "local")


def snakemake(project: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``snakemake --profile local`` in ``project``, killed after a bounded time."""
    command = ["timeout", "-k", "10", str(SNAKEMAKE_TIMEOUT),
               str(Path(sys.executable).parent / "snakemake"), "--profile", PROFILE, *args]
    return subprocess.run(command, cwd=project, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=SNAKEMAKE_TIMEOUT + 30)


@pytest.fixture(scope="module")
def finished_project(tmp_path_factory) -> Path:
    """The tiny pipeline, run once to completion for the tests of this module."""
    from conftest import TINY

    project = tmp_path_factory.mktemp("pipeline")
    for name in ("Snakefile", "rules"):
        subprocess.run(["cp", "-r", str(ROOT / name), str(project / name)], check=True)
    (project / "config").mkdir()
    (project / "config" / "config.yaml").write_text(TINY.read_text())
    result = snakemake(project)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return project


def test_pipeline_delivers_runs_report_figure_and_evidence(finished_project):
    runs = sorted((finished_project / "runs").glob("*/results.json"))
    assert len(runs) == 4
    for results_file in runs:
        results = json.loads(results_file.read_text())
        assert results["schema"] == "rgt/results/v1" and results["selection"]["split"] == "val"
        assert {(m["name"], m["split"]) for m in results["metrics"]} == {
            ("accuracy", "val"), ("accuracy", "test"), ("loss", "val"), ("loss", "test")}
    report = json.loads((finished_project / "verify" / "report.json").read_text())
    assert report["schema"] == "rgt/verify/v1" and len(report["comparisons"]) >= 1
    assert all(c["verdict"] != "confounded" for c in report["comparisons"])
    # The clean example raises no false alarm from the data, control or probe checks.
    assert not [f for f in report["findings"] if f["severity"] == "error"
                or f["check"].startswith(("leakage", "shuffle", "no-grad", "optimizer"))]
    figure = finished_project / "figures" / "test_accuracy"
    assert (figure / "figure.png").stat().st_size > 0
    assert json.loads((figure / "provenance.json").read_text())["pixel_gate"]["ok"] is True
    evidence = json.loads((finished_project / "evidence" / "EVIDENCE.json").read_text())
    assert evidence["schema"] == "rgt/evidence/v1" and evidence["claims"]


def test_checkpoints_are_kept_outside_the_run_directories(finished_project):
    for run_dir in (finished_project / "runs").iterdir():
        assert not list(run_dir.glob("step-*"))
        assert len(list(run_dir.glob("events.out.tfevents.*"))) == 1  # TensorBoard scalars
        assert list((finished_project / "checkpoints" / run_dir.name).glob("step-*.pt"))


def test_second_run_retrains_nothing(finished_project):
    before = {p: p.stat().st_mtime_ns for p in (finished_project / "runs").rglob("*")}
    result = snakemake(finished_project)
    assert result.returncode == 0
    assert "Nothing to be done" in result.stdout + result.stderr
    assert {p: p.stat().st_mtime_ns for p in (finished_project / "runs").rglob("*")} == before


def test_status_lists_finished_runs_with_metrics(finished_project):
    result = rgt(["status", "--json"], finished_project, timeout=120)
    rows = json.loads(result.stdout)
    assert [row["state"] for row in rows] == ["finished"] * 4
    assert all("test accuracy" in row["metrics"] for row in rows)


def test_status_shows_planned_runs_for_a_new_seed(finished_project, tmp_path):
    config = yaml.safe_load((finished_project / "config" / "config.yaml").read_text())
    config["experiments"]["tiny"]["seeds"].append(9)
    path = tmp_path / "more.yaml"
    path.write_text(yaml.safe_dump(config))
    rows = json.loads(rgt(["status", "--json", "--config", str(path)], finished_project,
                          timeout=120).stdout)
    assert sorted(row["state"] for row in rows) == ["finished"] * 4 + ["planned"] * 2


def test_bad_config_stops_snakemake_before_any_job(project):
    config = yaml.safe_load((project / "config" / "config.yaml").read_text())
    config["defaults"]["train"]["epochs"] = 0
    (project / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(project)
    assert result.returncode != 0
    assert "defaults.train.epochs = 0" in result.stderr and "fix:" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (project / "smoke").exists() and not (project / "runs").exists()


def test_failing_smoke_gate_stops_before_training(project):
    plugin = project / "broken_model.py"
    plugin.write_text("import torch\n\nclass Broken(torch.nn.Module):\n"
                      "    def __init__(self, input_shape, num_classes):\n"
                      "        super().__init__()\n        self.head = torch.nn.Linear(3, 10)\n"
                      "    def forward(self, x):\n        return self.head(x)\n")
    config = yaml.safe_load((project / "config" / "config.yaml").read_text())
    config["defaults"]["model"] = {"name": "broken_model:Broken"}
    (project / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(project, env={"PYTHONPATH": str(project)})
    assert result.returncode != 0
    assert "smoke test of tiny/" in result.stdout + result.stderr
    assert "mat1 and mat2 shapes cannot be multiplied" in result.stdout + result.stderr
    assert not (project / "runs").exists() and not (project / "checkpoints").exists()


def test_installed_profile_is_found_by_name(project, tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    subprocess.run(["make", "-s", "-C", str(ROOT), "profiles"], check=True, timeout=60,
                   env={**os.environ, **env}, capture_output=True)
    command = ["timeout", "-k", "10", "300", str(Path(sys.executable).parent / "snakemake"),
               "--profile", "local", "-n"]
    result = subprocess.run(command, cwd=project, capture_output=True, text=True,
                            env={**os.environ, **env}, timeout=330)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "rule train" in result.stdout + result.stderr


def test_a_configfile_plans_its_runs_the_snakemake_way(project):
    from conftest import TINY
    from rgt.config import load_config
    from rgt.plan.runplan import plan_runs

    (project / "config" / "config.yaml").write_text((ROOT / "config" / "config.yaml").read_text())
    result = snakemake(project, "-n", "--configfile", str(TINY))
    assert result.returncode == 0, result.stderr[-2000:]
    planned = {f"runs/{run.run_id}/run.json" for run in plan_runs(load_config(TINY))}
    trained = {line.split()[1].rstrip(",") for line in result.stdout.splitlines()
               if line.strip().startswith("output: runs/") and "run.json" in line}
    assert trained == planned


def copy_of(project: Path, tmp_path: Path) -> Path:
    """The finished project, copied with its times (the module's tests share the original)."""
    subprocess.run(["cp", "-a", str(project), str(tmp_path / "copy")], check=True)
    return tmp_path / "copy"


def jobs_run(result: subprocess.CompletedProcess) -> list[str]:
    return [line.split()[1].rstrip(":") for line in (result.stdout + result.stderr).splitlines()
            if line.startswith("rule ") or line.startswith("localrule ")]


def test_a_changed_config_trains_its_new_runs_and_redelivers(finished_project, tmp_path):
    project = copy_of(finished_project, tmp_path)
    delivered = (project / "evidence" / "EVIDENCE.json").read_bytes()
    config = yaml.safe_load((project / "config" / "config.yaml").read_text())
    config["experiments"]["tiny"]["seeds"].append(7)
    (project / "more.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(project, "--configfile", "more.yaml")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert jobs_run(result).count("train") == 2
    assert {"aggregate", "verify", "evidence", "promote"} <= set(jobs_run(result))
    evidence = json.loads((project / "evidence" / "EVIDENCE.json").read_text())
    assert {claim["n"] for claim in evidence["claims"] if "n" in claim} == {3}
    # Back to the first config: its delivery again, byte for byte, and nothing retrained.
    back = snakemake(project)
    assert back.returncode == 0 and "train" not in jobs_run(back)
    assert (project / "evidence" / "EVIDENCE.json").read_bytes() == delivered


def test_a_failing_delivery_job_leaves_every_committed_file_intact(finished_project, tmp_path):
    project = copy_of(finished_project, tmp_path)
    delivered = {path: path.read_bytes() for folder in ("evidence", "figures", "verify")
                 for path in (project / folder).rglob("*") if path.is_file()}
    (project / "evidence" / "claims.yaml").write_text("claims: [not, a, mapping]\n")
    result = snakemake(project)
    assert result.returncode != 0 and "evidence" in jobs_run(result)
    assert "Error in rule evidence" in result.stdout + result.stderr
    kept = {path: path.read_bytes() for path in delivered}
    assert kept == delivered  # evidence/EVIDENCE.json included, byte-identical


def test_a_declared_curve_is_delivered_from_the_runs_history_without_retraining(
        finished_project, tmp_path):
    project = copy_of(finished_project, tmp_path)
    bars = (project / "figures" / "test_accuracy" / "source_data.csv").read_bytes()
    config = yaml.safe_load((project / "config" / "config.yaml").read_text())
    config["figures"] = {"test_accuracy": {"metric": "accuracy"},
                         "val_loss": {"kind": "curve", "metric": "val_los"}}
    (project / "typo.yaml").write_text(yaml.safe_dump(config))
    typo = snakemake(project, "--configfile", "typo.yaml")
    log = (project / "logs" / "deliver" / "aggregate.log").read_text()
    assert typo.returncode != 0 and "figures.val_loss.metric = 'val_los'" in log
    assert "val_accuracy, val_loss" in log and "Traceback" not in log
    config["figures"]["val_loss"]["metric"] = "val_loss"
    (project / "curve.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(project, "--configfile", "curve.yaml")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "train" not in jobs_run(result)
    curve = project / "figures" / "val_loss"
    rows = (curve / "source_data.csv").read_text().splitlines()
    # 2 variants x 2 seeds x 2 epochs, validated at the end of each
    assert rows[0] == "variant,seed,run_id,step,value" and len(rows) == 1 + 8
    provenance = json.loads((curve / "provenance.json").read_text())
    assert provenance["pixel_gate"]["ok"] is True and provenance["claims"] == []
    assert (project / "figures" / "test_accuracy" / "source_data.csv").read_bytes() == bars
