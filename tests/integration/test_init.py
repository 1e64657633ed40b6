"""`rgt init` in a project of one's own, as a process: what it writes from the script, that a
second run changes nothing and says so, that a user's files are never replaced (and named),
DVC set up with or without git, and the doctor's findings at the end."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

pytestmark = pytest.mark.integration

EXAMPLE = ROOT / "examples" / "charlm"
NANOGPT = ROOT / "tests" / "data" / "doctor" / "nanogpt" / "train.py"
INIT = ["init", "--script", "train.py", "--vary", "dropout=0.3", "--seeds", "2"]


def init(project: Path, *args: str) -> subprocess.CompletedProcess:
    """``rgt init ARGS`` in ``project``, its profiles installed under the test's own folder."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(project.parent / "xdg"), "DVC_NO_ANALYTICS": "1"}
    return subprocess.run([sys.executable, "-m", "rgt", *args], cwd=project, env=env, text=True,
                          capture_output=True, timeout=300)


def git(project: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=project, check=True, capture_output=True,
                          text=True).stdout


def example(tmp_path: Path, repository: bool = True) -> Path:
    project = tmp_path / "charlm"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__"))
    if repository:
        git(project, "init", "-q")
    return project


def tree(project: Path) -> dict[str, str]:
    """Every file's sha256 (git's own files aside)."""
    return {path.relative_to(project).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(project.rglob("*")) if path.is_file() and ".git" not in path.parts}


def test_init_reads_the_job_from_the_script_and_a_second_run_changes_nothing(tmp_path):
    project = example(tmp_path)
    first = init(project, *INIT)
    assert first.returncode == 0, first.stdout + first.stderr
    config = yaml.safe_load((project / "config" / "config.yaml").read_text())
    job = config["defaults"]["job"]
    assert job["command"].startswith("python train.py --context {params.context}")
    assert "--seed {seed} --out_dir {out_dir}" in job["command"]
    assert job["sources"] == ["train.py", "charlm"] and job["data"] == ["data"]
    assert job["params"]["dropout"] == 0.0 and job["params"]["max_iters"] == 300
    assert job["metrics"] == {"loss": {"direction": "lower", "split": "val"}}
    experiment = config["experiments"]["charlm"]
    assert experiment["seeds"] == [1, 2] and experiment["variants"] == {
        "baseline": {}, "dropout_0_3": {"job": {"params": {"dropout": 0.3}}}}
    assert "include: rgt.workflow()" in (project / "Snakefile").read_text()
    assert "/runs/" in (project / ".gitignore").read_text().splitlines()
    assert "/out/" in (project / ".gitignore").read_text().splitlines()  # the script's own
    assert (project / ".dvc").is_dir() and "val_loss" in (project / "dvc.yaml").read_text()
    assert (tmp_path / "xdg" / "snakemake" / "local" / "config.yaml").is_file()
    assert "rgt doctor train.py: no findings" in first.stdout
    assert first.stdout.rstrip().endswith("next: snakemake --profile local")
    before = tree(project)
    second = init(project, *INIT)
    assert second.returncode == 0, second.stderr
    assert "nothing to change: every file is already there" in second.stdout
    assert "wrote" not in second.stdout and "added" not in second.stdout
    assert tree(project) == before


def test_a_users_snakefile_and_config_are_never_replaced_and_are_named(tmp_path):
    project = example(tmp_path)
    (project / "Snakefile").write_text("rule mine:\n    output: 'x'\n    shell: 'touch x'\n")
    init(project, "init", "--script", "train.py", "--seeds", "3")
    mine = (project / "config" / "config.yaml").read_text().replace("seeds: [1, 2, 3]",
                                                                      "seeds: [7, 8]")
    (project / "config" / "config.yaml").write_text(mine)
    (project / ".gitignore").write_text("secrets.txt\n/runs/\n")
    done = init(project, *INIT)
    assert done.returncode == 0, done.stderr
    assert (project / "Snakefile").read_text().startswith("rule mine:")
    assert (project / "config" / "config.yaml").read_text() == mine
    assert "left alone  Snakefile" in done.stdout and "yours: not replaced" in done.stdout
    assert "left alone  config/config.yaml" in done.stdout
    ignored = (project / ".gitignore").read_text().splitlines()
    assert ignored[:2] == ["secrets.txt", "/runs/"] and ignored.count("/runs/") == 1
    assert "/checkpoints/" in ignored


def test_outside_git_dvc_is_initialised_without_scm_and_below_a_root_as_a_subdir(tmp_path):
    alone = example(tmp_path / "a", repository=False)
    done = init(alone, *INIT)
    assert done.returncode == 0, done.stderr
    assert "not a git repository, so --no-scm" in done.stdout
    assert "no_scm = True" in (alone / ".dvc" / "config").read_text()
    outer = tmp_path / "b"
    outer.mkdir()
    git(outer, "init", "-q")
    below = example(outer)
    shutil.rmtree(below / ".git")
    done = init(below, *INIT)
    assert done.returncode == 0, done.stderr
    assert (below / ".dvc").is_dir() and not (outer / ".dvc").exists()


def test_a_variant_of_an_option_the_script_lacks_is_refused_before_anything_is_written(
        tmp_path):
    project = example(tmp_path)
    before = tree(project)
    done = init(project, "init", "--script", "train.py", "--vary", "dropuot=0.3")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "train.py has no option 'dropuot' (its options: context, hidden, dropout" in done.stderr
    assert tree(project) == before
    missing = init(project, "init", "--script", "trian.py")
    assert missing.returncode == 1 and "no training script at" in missing.stderr
    assert "fix: name yours: rgt init --script" in missing.stderr


def test_a_nanogpt_style_script_gets_its_settings_notes_and_findings(tmp_path):
    project = tmp_path / "nano"
    project.mkdir()
    shutil.copy(NANOGPT, project / "train.py")
    (project / "model.py").write_text("class GPTConfig: ...\nclass GPT: ...\n")
    (project / "configurator.py").write_text("# --key=value overrides of train.py's settings\n")
    done = init(project, "init", "--script", "train.py", "--vary", "dropout=0.1")
    assert done.returncode == 0, done.stderr
    job = yaml.safe_load((project / "config" / "config.yaml").read_text())["defaults"]["job"]
    assert "--out_dir={out_dir}" in job["command"]
    assert "--dropout={params.dropout}" in job["command"]
    assert job["params"]["compile"] is True and job["params"]["n_layer"] == 12
    assert set(job["sources"]) == {"train.py", "model.py", "configurator.py"}
    assert "takes no --seed option" in done.stdout and "does not train through rgt" in done.stdout
    assert "[state-not-in-checkpoint] X, Y" in done.stdout
    assert "[torch-load-weights-only]" not in done.stdout  # torch >= 2.6 here
    assert done.stdout.rstrip().endswith("next: snakemake --profile local")


def test_a_users_own_profile_of_the_same_name_is_kept(tmp_path):
    mine = tmp_path / "xdg" / "snakemake" / "local"
    mine.mkdir(parents=True)
    (mine / "config.yaml").write_text("cores: 1\n")
    project = example(tmp_path)
    done = init(project, *INIT)
    assert done.returncode == 0, done.stderr
    assert (mine / "config.yaml").read_text() == "cores: 1\n"
    assert "kept your own local" in done.stdout
    assert (tmp_path / "xdg" / "snakemake" / "ssh" / "config.yaml").is_file()
