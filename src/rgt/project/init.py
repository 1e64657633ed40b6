"""``rgt init``'s work, step by step: each step says what it did to which file, and none ever
replaces a file of the user's (it is left alone, and the step says so)."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from rgt.base.errors import ConfigError, RgtError
from rgt.base.shipped import shipped
from rgt.config import load_config
from rgt.deliver.dvc_stages import CLAIMS, dvc_yaml
from rgt.project.job import Job, job_for
from rgt.project.profiles import install_profiles
from rgt.project.scaffold import (
    LEFT,
    SNAKEFILE,
    UNCHANGED,
    add_gitignore,
    claims_text,
    config_text,
    place,
)
from rgt.project.script import read_script

CONFIG = "config/config.yaml"
BASELINE = "baseline"


@dataclass(frozen=True)
class Step:
    """One thing ``rgt init`` did (or left alone), to what, and why it matters."""

    outcome: str
    what: str
    detail: str

    @property
    def changed(self) -> bool:
        return self.outcome not in (UNCHANGED, LEFT)


@dataclass(frozen=True)
class Request:
    """What ``rgt init`` was asked for."""

    project: Path
    script: Path
    vary: tuple[str, ...] = ()  # NAME=VALUE, one variant each
    seeds: int = 3
    experiment: str | None = None


def init_project(request: Request) -> tuple[list[Step], Job]:
    """Every step of ``rgt init`` in order, and the job it derived from the script."""
    project = request.project.resolve()
    script = (project / request.script).resolve()
    if project not in script.parents:
        raise RgtError(f"rgt init: {request.script} is not inside {project}",
                       "run rgt init in the project's root, naming a script of the project")
    job = job_for(read_script(script), project)
    config = config_text(project.name, script.relative_to(project).as_posix(), job.section,
                         {_experiment_name(request, project): _experiment(request, job)})
    _check_config(config)
    steps = [_placed(project, "Snakefile", SNAKEFILE, "rgt's workflow, from the installed "
                                                      "package (include: rgt.workflow())"),
             _placed(project, CONFIG, config, f"the job: {job.section['command'][:60]}…"),
             _placed(project, CLAIMS, claims_text(job.section["metrics"]),
                     "your words for the claims (the numbers come from the results)"),
             _gitignore(project, job), _dvc_init(project), _dvc_yaml(project), _profiles()]
    return steps, job


def _placed(project: Path, name: str, text: str, detail: str) -> Step:
    outcome = place(project / name, text)
    return Step(outcome, name, "yours: not replaced" if outcome == LEFT else detail)


def _experiment_name(request: Request, project: Path) -> str:
    name = request.experiment or re.sub(r"\W", "_", project.name.lower())
    return name if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) else f"exp_{name}"


def _experiment(request: Request, job: Job) -> dict:
    """A baseline and one variant per ``--vary NAME=VALUE``, over ``seeds`` seeds."""
    variants = {BASELINE: {}}
    params = job.section["params"]
    for text in request.vary:
        name, sep, raw = text.partition("=")
        if not sep or name not in params:
            raise RgtError(f"rgt init --vary {text!r}: {request.script} has no option "
                           f"{name!r} (its options: {', '.join(params) or 'none'})",
                           "name one of them, e.g. --vary dropout=0.3")
        value = yaml.safe_load(raw)
        variants[re.sub(r"\W", "_", f"{name}_{raw}")] = {"job": {"params": {name: value}}}
    if request.seeds < 1:
        raise RgtError(f"rgt init --seeds {request.seeds}: an experiment needs a seed",
                       "give --seeds 2 or more (rgt verify says how many a claim needs)")
    return {"baseline": BASELINE, "seeds": list(range(1, request.seeds + 1)),
            "variants": variants}


def _check_config(text: str) -> None:
    try:
        load_config(yaml.safe_load(text))
    except ConfigError as error:
        raise RgtError(f"rgt init: the config made from the script is invalid: "
                       f"{error.message}", error.fix) from None


def _gitignore(project: Path, job: Job) -> Step:
    extra = (f"/{job.out_default.strip('/')}/",) if job.out_default else ()
    added = add_gitignore(project / ".gitignore", extra)
    if not added:
        return Step(UNCHANGED, ".gitignore", "already ignores what rgt writes")
    return Step("added", ".gitignore", f"{len(added)} entries: {' '.join(added)}")


def _dvc_init(project: Path) -> Step:
    """``dvc init`` (``--no-scm`` outside git, ``--subdir`` below a repository's root)."""
    if (project / ".dvc").is_dir():
        return Step(UNCHANGED, ".dvc/", "already a DVC project")
    top = _git_root(project)
    flags = ["--no-scm"] if top is None else [] if top == project else ["--subdir"]
    done = subprocess.run([sys.executable, "-m", "dvc", "init", "-q", *flags], cwd=project,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RgtError(f"rgt init: dvc init failed: {(done.stdout + done.stderr).strip()}",
                       "run `dvc init` yourself, then rgt init again")
    return Step("ran", "dvc init", "DVC's own files in .dvc/ (commit them)" +
                ("; not a git repository, so --no-scm" if top is None else ""))


def _git_root(project: Path) -> Path | None:
    try:
        done = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=project,
                              capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    return Path(done.stdout.strip()).resolve() if done.returncode == 0 else None


def _dvc_yaml(project: Path) -> Step:
    """``dvc.yaml`` from the config in place (the user's own, if it was there)."""
    try:
        config = load_config(project / CONFIG)
    except ConfigError as error:
        return Step(LEFT, "dvc.yaml", f"not written: {CONFIG}: {error.message}")
    text = dvc_yaml(config, CONFIG, (project / CLAIMS).is_file())
    return _placed(project, "dvc.yaml", text,
                   "the delivery stages `dvc repro` rebuilds without training")


def _profiles() -> Step:
    home, outcomes = install_profiles()
    kept = [name for name, outcome in outcomes.items() if outcome == "kept"]
    changed = [name for name, outcome in outcomes.items() if outcome in ("installed", "updated")]
    detail = f"in {home}, where `snakemake --profile NAME` finds them"
    if kept:
        detail += (f"; kept your own {', '.join(kept)} (rgt's: snakemake --profile "
                   f"{shipped('profiles')}/NAME)")
    return Step("installed" if changed else UNCHANGED, f"profiles {' '.join(outcomes)}", detail)
