"""dvc.yaml: the same commands as the Snakemake rules, and `dvc repro` rebuilding exactly what
depends on a changed file — real DVC on synthetic finished runs (no training)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, TINY
from evidence_helpers import ACCURACY, synthetic_project, write_runs

pytestmark = pytest.mark.integration
BIN = Path(sys.executable).parent
TIMEOUT = 240
EXAMPLES = ROOT / "examples"
SUFFIX = re.compile(r"\s*>\s*\S+\s+2>&1\s*$")


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """A command with the venv first on PATH (DVC stages call `python -m rgt`), bounded."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["timeout", "-k", "10", str(TIMEOUT), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT + 30)


def ok(args: list[str], cwd: Path) -> str:
    result = run(args, cwd)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout + result.stderr


def rgt_args(command: str) -> str:
    """The words after `-m rgt`, without Snakemake's log redirection."""
    return SUFFIX.sub("", command.split(" -m rgt ", 1)[1]).strip()


@pytest.fixture(scope="module")
def dvc_project(tmp_path_factory) -> Path:
    """Workflow, dvc.yaml and claims file, synthetic runs aggregated, a verify report."""
    project = synthetic_project(tmp_path_factory.mktemp("dvc"), ROOT, TINY,
                                ("Snakefile", "rules", "dvc.yaml"))
    ok([sys.executable, "-m", "rgt", "aggregate", "--out", "evidence/results.json"], project)
    ok([str(BIN / "dvc"), "init", "--no-scm", "-q"], project)
    return project


def dvc_commands(project: Path) -> dict[str, str]:
    """Every expanded DVC stage (``figure@test_accuracy``…) and its command."""
    from dvc.repo import Repo

    with Repo(str(project)) as repo:
        return {stage.name: stage.cmd for stage in repo.index.stages}


def snakemake_commands(project: Path) -> dict[str, str]:
    """rgt arguments of every job of the dry-run DAG, keyed by the rgt verb."""
    out = ok([str(BIN / "snakemake"), "-n", "-p", "--cores", "1"], project)
    commands = [line.split(": ", 1)[1] for line in out.splitlines()
                if line.startswith("Shell command:") and " -m rgt " in line]
    return {rgt_args(command): command for command in commands}


def project_figures() -> list[str]:
    """The figure ids the project's config declares (or gets by default)."""
    from rgt.config import load_config
    from rgt.deliver.registry import figure_specs

    return sorted(figure_specs(load_config(ROOT / "config" / "config.yaml")))


@pytest.fixture(scope="module")
def wlm_project(tmp_path_factory) -> Path:
    """The word-level LM example (a declared training job) with the workflow, untrained."""
    project = tmp_path_factory.mktemp("wlm")
    sources = [ROOT / "Snakefile", ROOT / "rules",
               *(EXAMPLES / "wlm" / name for name in ("train.py", "data", "config", "dvc.yaml"))]
    for source in sources:
        (shutil.copytree if source.is_dir() else shutil.copy)(source, project / source.name)
    ok([str(BIN / "dvc"), "init", "--no-scm", "-q"], project)
    return project


def test_every_dvc_stage_runs_the_command_of_a_snakemake_rule(dvc_project):
    dvc = dvc_commands(dvc_project)
    # DVC alone versions the data (`data`): Snakemake's runs hash the data themselves.
    assert dvc.pop("data").startswith("python -m rgt data-pin ")
    assert_stages_are_snakemake_jobs(dvc_project, dvc, project_figures())


def test_a_training_jobs_dvc_stages_are_its_snakemake_jobs(wlm_project):
    """A declared job's project (examples/wlm): delivery stages only, one per declared figure."""
    assert_stages_are_snakemake_jobs(wlm_project, dvc_commands(wlm_project),
                                     ["test_perplexity", "train_loss"])


def assert_stages_are_snakemake_jobs(project: Path, dvc: dict[str, str],
                                     figures: list[str]) -> None:
    assert set(dvc) == {f"{stage}@{fig}" for fig in figures for stage in ("source_data", "figure")
                        } | {"metrics", "evidence"}
    snakemake = snakemake_commands(project)
    for stage, command in dvc.items():
        assert command.startswith("python -m rgt "), stage
        assert rgt_args(command) in snakemake, f"{stage}: {command} is no Snakemake job"


@pytest.mark.parametrize("project", [ROOT, EXAMPLES / "wlm", EXAMPLES / "lit"],
                         ids=["bundled", "wlm", "lit"])
def test_each_projects_dvc_yaml_follows_its_config(project):
    checked = run([sys.executable, "-m", "rgt", "dvc-yaml", "--check"], project)
    assert checked.returncode == 0, checked.stderr
    declared = yaml.safe_load((project / "dvc.yaml").read_text())["vars"][0]["figures"]
    assert declared and sorted(declared) == declared


def ran(output: str) -> set[str]:
    return set(re.findall(r"Running stage '([^']+)'", output))


def test_repro_rebuilds_exactly_what_depends_on_the_changed_file(dvc_project):
    dvc = str(BIN / "dvc")
    first = ok([dvc, "repro"], dvc_project)
    assert ran(first) - {"data"} == {"source_data@test_accuracy", "figure@test_accuracy", "metrics",
                          "evidence"}
    assert ran(ok([dvc, "repro"], dvc_project)) == set()
    report = json.loads((dvc_project / "verify/report.json").read_text())
    report["findings"] = [{"check": "leakage", "severity": "warning", "subject": "x",
                           "detail": "planted", "claims": ["digits/plain/accuracy/test"]}]
    (dvc_project / "verify/report.json").write_text(json.dumps(report))
    assert ran(ok([dvc, "repro"], dvc_project)) == {"figure@test_accuracy", "evidence"}
    write_runs(dvc_project / "runs", {**ACCURACY, ("plain", 0): 0.5})
    ok([sys.executable, "-m", "rgt", "aggregate", "--out", "evidence/results.json"], dvc_project)
    rebuilt = ok([dvc, "repro"], dvc_project)
    assert ran(rebuilt) == {"source_data@test_accuracy", "figure@test_accuracy", "metrics",
                            "evidence"}
    rows = (dvc_project / "figures/test_accuracy/source_data.csv").read_text()
    assert "plain,0,plain-0,accuracy,test,0.5," in rows
    lock = yaml.safe_load((dvc_project / "dvc.lock").read_text())
    pinned = {dep["path"]: dep["md5"] for dep in lock["stages"]["evidence"]["deps"]}
    assert len(pinned["evidence/results.json"]) == 32


def test_metrics_and_plots_show_the_project_files(dvc_project):
    dvc = str(BIN / "dvc")
    if not (dvc_project / "dvc.lock").exists():
        ok([dvc, "repro"], dvc_project)
    metrics = json.loads(ok([dvc, "metrics", "show", "--json"], dvc_project).split("\n", 1)[0])
    files = metrics[""]["data"]
    assert set(files) == {"evidence/metrics/digits/plain.json",
                          "evidence/metrics/digits/dropout.json"}
    dropout = files["evidence/metrics/digits/dropout.json"]["data"]
    assert dropout["seeds"] == 3 and len(repr(dropout["accuracy"]["test"]["mean"])) <= 7
    table = ok([dvc, "metrics", "show"], dvc_project).splitlines()
    assert table[0].split()[:3] == ["Path", "accuracy.test.mean", "accuracy.test.std"]
    assert len(table) == 3  # a row per variant
    plots = json.loads(ok([dvc, "plots", "show", "--json"], dvc_project).split("\n", 1)[0])
    assert {"figures/test_accuracy/source_data.csv",
            "figures/test_accuracy/figure.png"} <= set(plots["data"])


def test_each_figure_build_script_runs_the_dvc_commands():
    figures = project_figures()
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    for fig in figures:
        script = (ROOT / "figures" / fig / "build.sh").read_text().replace("\\\n", " ")
        commands = [" ".join(line.split()) for line in script.splitlines()
                    if line.startswith("python -m rgt ")]
        expected = [" ".join(stages[name]["do"]["cmd"].replace("${item}", fig).split())
                    for name in ("source_data", "figure")]
        assert commands == expected
