"""README's "Use rgt in your own project", walked as written: a project outside this repository
(a git repository with a module-level training script, a package of its own and its data:
examples/charlm), rgt installed from a wheel built from this tree into a fresh venv, `rgt init`,
the local pipeline (2 variants x 2 seeds), a second run that does nothing, `git status` holding
only what the user commits, `dvc repro` without training, `rgt platforms`, `rgt up` and the
training of one more seed on a loopback OpenSSH host through the shipped `ssh` profile.

The commands are read from README.md; only the host's alias, the interpreter and remote root on
the host, the project folder and the package (the wheel's path) are substituted."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from sshd import ALIAS

pytestmark = [pytest.mark.integration, pytest.mark.ssh]

README = ROOT / "README.md"
SECTION = "## Use rgt in your own project"
EXAMPLE = ROOT / "examples" / "charlm"
TIMEOUT = 600
# What a user commits after the local run: rgt init's files and the delivery.
COMMITTED = re.compile(r"(Snakefile|\.gitignore|dvc\.yaml|\.dvcignore|\.dvc/(config|\.gitignore)|"
                       r"config/config\.yaml|evidence/(claims\.yaml|EVIDENCE\.json|results\.json|"
                       r"metrics/.+\.json)|figures/val_loss/.+|verify/report\.json)")


def section() -> str:
    text = README.read_text()
    start = text.index(f"\n{SECTION}\n")
    return text[start:text.index("\n## ", start + 1)]


def readme_commands() -> list[str]:
    """The section's shell commands, in order, without their trailing comments."""
    blocks = re.findall(r"```bash\n(.*?)```", section(), re.S)
    lines = [re.sub(r"\s{2,}#.*$", "", line).strip() for block in blocks
             for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def readme_file(name: str) -> str:
    """The YAML block of the section whose first line names ``name``."""
    [block] = [block for block in re.findall(r"```yaml\n(.*?)```", section(), re.S)
               if block.startswith(f"# {name}")]
    return block


class Walk:
    """The README's commands, each run as a user types it, in the user's environment."""

    def __init__(self, tmp: Path, built, host):
        self.home, self.built, self.host = tmp / "home", built, host
        self.project = tmp / "my-project"
        self.cwd = tmp
        self.root = host.disk / "own-project-rgt"
        (self.home / ".ssh").mkdir(parents=True)
        (self.home / ".ssh" / "config").write_text(host.ssh_config.read_text())
        dev = str(Path(sys.executable).parent)
        path = [built.bin, *(p for p in os.environ["PATH"].split(os.pathsep) if p != dev)]
        self.env = {**{k: v for k, v in os.environ.items() if not k.startswith(("RGT_",
                                                                                "PYTHON"))},
                    "PATH": os.pathsep.join(map(str, path)), "HOME": str(self.home),
                    "VIRTUAL_ENV": str(built.venv), "XDG_CONFIG_HOME": str(tmp / "xdg"),
                    "DVC_NO_ANALYTICS": "1", "GIT_AUTHOR_NAME": "A Researcher",
                    "GIT_AUTHOR_EMAIL": "a@lab.example", "GIT_COMMITTER_NAME": "A Researcher",
                    "GIT_COMMITTER_EMAIL": "a@lab.example", "PYTHONUNBUFFERED": "1"}

    def substituted(self, command: str) -> str:
        """Only hosts and paths change: the alias, the host's interpreter and root, the
        project folder and the package's place (the wheel)."""
        command = re.sub(r"\bgpubox\b", ALIAS, command)
        command = command.replace("/usr/bin/python3", str(self.built.python))
        command = command.replace("/data/rgt", str(self.root))
        return command.replace("pip install remote-gpu-trainer", f"pip install {self.built.wheel}")

    def __call__(self, command: str, ok: bool = True) -> str:
        if command.startswith("cd "):
            self.cwd = self.project
            return ""
        done = subprocess.run(["timeout", "-k", "10", str(TIMEOUT), "bash", "-c",
                               self.substituted(command)], cwd=self.cwd, env=self.env,
                              capture_output=True, text=True, timeout=TIMEOUT + 30)
        output = done.stdout + done.stderr
        assert not ok or done.returncode == 0, f"`{command}` exited {done.returncode}:\n" \
                                                f"{output[-5000:]}"
        return output

    def git_status(self) -> list[str]:
        return self("git status --porcelain --untracked-files=all").splitlines()


def make_project(path: Path) -> None:
    """The user's repository: the example's script, package and data, committed."""
    shutil.copytree(EXAMPLE, path, ignore=shutil.ignore_patterns("__pycache__"))
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "my project"]):
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True,
                       env={**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@b",
                            "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@b"})


def sealed_runs(project: Path) -> dict[str, dict]:
    return {path.parent.name: json.loads(path.read_text())
            for path in (project / "runs").glob("*/run.json")}


def test_the_readme_walk_in_a_project_of_ones_own(tmp_path, wheel_venv, sshd_server):
    walk = Walk(tmp_path, wheel_venv, sshd_server)
    make_project(walk.project)
    commands = iter(readme_commands())
    assert_installed_from_the_wheel(walk, next(commands))
    assert walk(next(commands)) == "" and walk.cwd == walk.project  # cd my-project
    assert_init(walk, next(commands))
    assert_local_run(walk, next(commands))
    assert "Nothing to be done" in walk(next(commands))
    assert all(COMMITTED.fullmatch(line[3:]) for line in walk.git_status()), walk.git_status()
    walk(next(commands))  # git add -A && git commit
    assert walk.git_status() == []
    assert_dvc_repro_without_training(walk, next(commands))
    assert_platforms(walk, next(commands))
    assert_up(walk, next(commands))
    assert_one_more_seed_on_the_host(walk, next(commands))
    assert next(commands, None) is None


def assert_installed_from_the_wheel(walk: Walk, command: str) -> None:
    assert command.startswith("pip install remote-gpu-trainer")
    output = walk(command)
    assert "Successfully installed remote-gpu-trainer-0.1.0" in output, output
    assert "Downloading" not in output  # every dependency was already there (the lock)
    where = walk(f"{walk.built.python} -c 'import rgt, sys; from rgt.base.shipped import "
                 "shipped_root; print(rgt.__file__); print(shipped_root()); print(sys.path)'")
    package, shipped, path = where.splitlines()[-3:]
    assert package.startswith(str(walk.built.venv)) and shipped.endswith("site-packages/rgt/"
                                                                         "workflow")
    assert str(ROOT) not in path  # nothing of this repository is on the user's path


def assert_init(walk: Walk, command: str) -> None:
    output = walk(command)
    for name in ("Snakefile", "config/config.yaml", "evidence/claims.yaml", "dvc.yaml"):
        assert re.search(rf"wrote +{re.escape(name)} ", output), output
    assert "rgt doctor train.py: no findings" in output
    assert output.rstrip().endswith("next: snakemake --profile local")


def assert_local_run(walk: Walk, command: str) -> None:
    output = walk(command)
    runs = sealed_runs(walk.project)
    assert len(runs) == 4 and {run["seed"] for run in runs.values()} == {1, 2}
    assert "dropout_0_3 − baseline = " in output and " val loss (" in output  # verify's line
    evidence = json.loads((walk.project / "evidence" / "EVIDENCE.json").read_text())
    claims = {claim["id"]: claim for claim in evidence["claims"]}
    assert set(claims) == {"charlm/baseline/loss/val", "charlm/dropout_0_3/loss/val",
                           "charlm/dropout_0_3-vs-baseline/loss/val"}
    assert all(any("report-split" in line for line in claim["disclosures"])
               for claim in claims.values())
    assert (walk.project / "figures" / "val_loss" / "figure.png").is_file()
    for run_id in runs:  # each run's own files went to its own folder, not a shared out/
        assert (walk.project / "checkpoints" / run_id / "out" / "samples.txt").is_file()
    assert not (walk.project / "out").exists()


def assert_dvc_repro_without_training(walk: Walk, command: str) -> None:
    delivery = delivered(walk.project)
    (walk.project / "runs").rename(walk.project / "runs.aside")  # no run can be read
    try:
        output = walk(command)
    finally:
        (walk.project / "runs.aside").rename(walk.project / "runs")
    assert "Running stage 'evidence'" in output and "smoke" not in output
    assert delivered(walk.project) == delivery  # the same bytes
    assert [line[3:] for line in walk.git_status()] == ["dvc.lock"]


def delivered(project: Path) -> dict[str, bytes]:
    return {path.relative_to(project).as_posix(): path.read_bytes()
            for folder in ("figures", "evidence") for path in sorted((project / folder).rglob("*"))
            if path.is_file() and path.suffix != ".png"}  # PNG bytes: matplotlib's own


def assert_platforms(walk: Walk, command: str) -> None:
    output = walk(command)
    assert not (walk.project / "config" / "platforms").exists()
    for name in ("autodl", "china", "lambda", "paperspace", "runpod", "ssh", "vastai"):
        assert f"{name}: " in output, output


def assert_up(walk: Walk, command: str) -> None:
    output = walk(command)
    assert "plan fits" in output and "torch 2." in output, output
    assert "config/hosts.yaml" not in "\n".join(walk.git_status())  # per machine: ignored


def assert_one_more_seed_on_the_host(walk: Walk, command: str) -> None:
    (walk.project / "more_seeds.yaml").write_text(readme_file("more_seeds.yaml"))
    before = set(sealed_runs(walk.project))
    output = walk(command)
    assert "rgt: launched" in output and "sha256 verified" in output, output[-4000:]
    runs = sealed_runs(walk.project)
    new = set(runs) - before
    assert len(new) == 2 and {runs[run_id]["seed"] for run_id in new} == {3}
    for run_id in new:  # trained there: its checkpoints on the host's disk, its audit sealed
        assert list((walk.root / "checkpoints" / run_id).glob("step-*.pt"))
        assert runs[run_id]["host_audit"] is not None
    evidence = json.loads((walk.project / "evidence" / "EVIDENCE.json").read_text())
    assert {claim["n"] for claim in evidence["claims"] if "-vs-" not in claim["id"]} == {3}


def test_the_wheel_and_the_sdist_carry_the_workflow_as_the_repository_keeps_it(built_dist):
    """One copy in git (the top-level Snakefile, rules/, profiles/, config/platforms/), the
    same bytes in rgt/workflow/ of the wheel; the sdist holds the sources the wheel came from."""
    import tarfile
    import zipfile

    from rgt.base.shipped import SHIPPED

    shipped = {path.relative_to(ROOT).as_posix(): path.read_bytes() for name in SHIPPED
               for path in ([ROOT / name] if (ROOT / name).is_file() else
                            sorted((ROOT / name).rglob("*")))
               if path.is_file() and "__pycache__" not in path.parts}
    sdist_path, wheel_path = built_dist
    with zipfile.ZipFile(wheel_path) as wheel:
        packaged = {name.removeprefix("rgt/workflow/"): wheel.read(name)
                    for name in wheel.namelist() if name.startswith("rgt/workflow/")}
    assert packaged == shipped
    with tarfile.open(sdist_path) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert set(shipped) <= names
