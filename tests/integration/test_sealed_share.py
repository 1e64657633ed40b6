"""Sealed means sealed, through the Makefile's own targets (`make run`, `make share`, `make
repro`, read from README.md and run in a project that holds the same Makefile):

- a fresh clone's `make repro` brings the shared runs, then Snakemake plans no training and a
  real run trains nothing and changes no byte of a sealed run;
- a working clone with a run not shared yet: `make repro` leaves every run in place and prints
  nothing that points at `--force`;
- the committed evidence made on another platform (faked in its runs): a fresh clone's `make run`
  leaves `git status` clean, and `make repro RETRAIN=1` passes, printing the cross-machine
  comparison of each number.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, TINY
from rgt.base.hashing import sha256_file

pytestmark = pytest.mark.integration
TIMEOUT = 600
VENV = Path(sys.executable).parent.parent
# The Makefile needs these beside it; they stay out of the project's commits.
MAKE_FILES = ("Makefile", "pyproject.toml", "envs", "profiles")
ELSEWHERE = {"cpu": {"vendor": "GenuineIntel", "model": "Intel(R) Xeon(R) Gold 6248",
                     "machine": "x86_64", "isa": ["avx2", "avx512f"]},
             "fingerprint": "0123456789abcdef"}


def run(args: list[str], cwd: Path, env: dict) -> str:
    done = subprocess.run(["timeout", "-k", "10", str(TIMEOUT), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT + 30)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{args}: {output[-4000:]}"
    return output


def make(command: str, cwd: Path, env: dict) -> str:
    """``command`` (``make TARGET [VAR=…]``) read from README.md, run with the venv already
    built."""
    readme = (ROOT / "README.md").read_text()
    assert f"`{command}`" in readme or f"\n{command} " in readme, f"README.md shows no {command}"
    words = command.split()
    return run([words[0], "-s", *words[1:], f"VENV={VENV}"], cwd, env)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict:
    """The venv first on PATH and the Snakemake profiles installed in a directory of ours."""
    xdg = tmp_path_factory.mktemp("xdg")
    return {**os.environ, "XDG_CONFIG_HOME": str(xdg), "PYTHONUNBUFFERED": "1",
            "PATH": f"{VENV / 'bin'}{os.pathsep}{os.environ['PATH']}"}


def with_make_files(project: Path) -> Path:
    for name in MAKE_FILES:
        (project / name).symlink_to(ROOT / name)
    with open(project / ".git" / "info" / "exclude", "a") as exclude:
        exclude.write("".join(f"/{name}\n" for name in MAKE_FILES))
    return project


def fake_elsewhere(runs: Path) -> None:
    """Each run as if trained on another CPU (its record's platform: what made_on reads)."""
    for record_path in runs.glob("*/run.json"):
        record = json.loads(record_path.read_text())
        record["platform"] = {**record["platform"], **ELSEWHERE}
        record_path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")


@pytest.fixture(scope="module")
def origin(tmp_path_factory, env) -> Path:
    """A project trained with `make run` on "another machine", shared with `make share` into
    its embedded DVC remote, and committed."""
    project = tmp_path_factory.mktemp("origin")
    for name in ("Snakefile", "rules", ".gitignore"):
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, project / name)
    (project / ".dvc").mkdir()
    shutil.copy(ROOT / ".dvc" / "config", project / ".dvc" / "config")
    config = yaml.safe_load(TINY.read_text())
    config["defaults"]["train"]["epochs"] = 1
    (project / "config").mkdir()
    (project / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    (project / "evidence").mkdir()
    (project / "evidence" / "claims.yaml").write_text("tolerances: {accuracy: 1.0e-9}\n")
    git(project, "init", "-q")
    with_make_files(project)
    run([sys.executable, "-m", "rgt", "dvc-yaml"], project, env)
    make("make run", project, env)
    fake_elsewhere(project / "runs")
    shutil.rmtree(project / ".rgt")  # deliver again: the evidence made "elsewhere"
    make("make run", project, env)
    make("make share", project, env)
    git(project, "add", "-A")
    git(project, "commit", "-qm", "results")
    return project


def clone(origin: Path, directory: Path) -> Path:
    git(origin.parent, "clone", "-q", str(origin), str(directory))
    return with_make_files(directory)


def run_files(project: Path) -> dict[str, str]:
    return {path.relative_to(project / "runs").as_posix(): sha256_file(path)
            for path in sorted((project / "runs").rglob("*")) if path.is_file()}


def snakemake(project: Path, env: dict, *args: str) -> str:
    return run([str(VENV / "bin" / "snakemake"), "--profile", "local", *args], project, env)


def jobs(output: str) -> list[str]:
    return [line.split()[1].rstrip(":") for line in output.splitlines()
            if line.startswith(("rule ", "localrule "))]


def test_a_fresh_clone_repro_then_snakemake_trains_nothing_and_keeps_every_byte(
        origin, tmp_path, env):
    project = clone(origin, tmp_path / "clone")
    output = make("make repro", project, env)
    assert "4 sealed run(s) brought from the DVC remote" in output
    assert "4 of 4 reference claim(s) reproduced" in output or "reproduced, 0 mismatch" in output
    before = run_files(project)
    assert before == run_files(origin)  # the shared bytes, unchanged
    planned = jobs(snakemake(project, env, "-n"))
    assert "train" not in planned and "evaluate" not in planned, planned
    done = snakemake(project, env)
    assert "train" not in jobs(done) and run_files(project) == before


def test_repro_in_a_working_clone_leaves_unshared_runs_and_never_points_at_force(
        origin, tmp_path, env):
    project = clone(origin, tmp_path / "working")
    make("make repro", project, env)
    mine = yaml.safe_load((project / "config" / "config.yaml").read_text())
    mine["experiments"]["tiny"].update(seeds=[7], variants={"plain": {}, "dropout":
                                                            mine["experiments"]["tiny"]
                                                            ["variants"]["dropout"]})
    (project / "mine.yaml").write_text(yaml.safe_dump(mine))
    snakemake(project, env, "--configfile", "mine.yaml")  # two runs of one's own, not shared
    status = subprocess.run([sys.executable, "-m", "rgt", "status", "--json", "--config",
                             "mine.yaml"], cwd=project, env=env, capture_output=True, text=True,
                            timeout=TIMEOUT, check=True)
    rows = json.loads(status.stdout)
    assert sorted((row["in_plan"], row["shared"]) for row in rows) == \
        [(False, True)] * 4 + [(True, False)] * 2  # rgt status says what lives only here
    before = run_files(project)
    assert len({name.split("/")[0] for name in before}) == 6
    output = make("make repro", project, env)
    assert "--force" not in output
    assert "2 sealed run(s) in runs/ are not shared yet" in output and "make share" in output
    assert run_files(project) == before  # every run in place, byte for byte


def test_a_fresh_clone_on_another_platform_stays_clean_and_retrain_compares_by_spread(
        origin, tmp_path, env):
    project = clone(origin, tmp_path / "elsewhere")
    output = make("make run", project, env)
    assert "4 sealed run(s) brought from the DVC remote" in output
    assert "train" not in jobs(output)
    assert git(project, "status", "--porcelain") == ""
    evidence = json.loads((project / "evidence" / "EVIDENCE.json").read_text())
    assert [entry["fingerprint"] for entry in evidence["made_on"]] == ["0123456789abcdef"]
    output = make("make repro RETRAIN=1", project, env)
    assert "train every run again" in output and "the data matches its pins" in output
    assert "cross-machine reproduction: the committed evidence was made on Intel(R) Xeon(R) " \
           "Gold 6248" in output
    assert "ok tiny/dropout/accuracy/test:" in output and "committed" in output
    assert "reproduced, 0 mismatch(es)" in output
    assert git(project, "status", "--porcelain") == ""  # retrained in .rgt/retrain/ only
