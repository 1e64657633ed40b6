"""The run plan: which runs a config asks for, and their content-addressed ids.

The Snakefile calls ``plan_runs`` at parse time; ``rgt train`` calls it again to find its run.
A run id hashes everything that decides the result (resolved config, training code, data,
split, seed), so equal inputs give equal ids and any change gives a new run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

import rgt
from rgt.base.errors import ConfigError
from rgt.base.hashing import digest_json, sha256_files
from rgt.config import Config, DataSettings, RunSettings
from rgt.config.model import JobSettings
from rgt.data import load_dataset, make_split, split_sha256
from rgt.plan.declared import declared_files, files_sha256, plugin_package_files
from rgt.plan.paths import smoke_record

# The packages whose code decides what a run computes; editing others retrains nothing.
RUN_CODE = ("data", "models", "train", "evaluate", "base/plugins.py", "base/hashing.py")
# What a job's own command runs through: the plain-loop API and the adapters.
JOB_CODE = ("train", "adapters", "base/hashing.py")
ID_LENGTH = 16


@dataclass(frozen=True)
class RunSpec:
    """Everything that identifies one training run."""

    run_id: str
    exp_id: str
    variant: str
    seed: int
    baseline_variant: str
    settings: RunSettings = field(repr=False)
    variant_overrides: Mapping = field(repr=False)
    code_sha256: str = ""
    data_sha256: str = ""
    split_sha256: str = ""

    @cached_property
    def config(self) -> dict:
        """The resolved settings as plain data: what the run id hashes, ``config.yaml`` holds."""
        return self.settings.to_dict()

    @property
    def config_digest(self) -> str:
        """sha256 of the resolved config."""
        return digest_json(self.config)

    @property
    def smoke_id(self) -> str:
        """Identity of the variant (the run id without the seed): one smoke test covers it."""
        return variant_smoke_id(self.config, self.exp_id, self.variant,
                                (self.code_sha256, self.data_sha256, self.split_sha256))


def variant_smoke_id(config: Mapping, exp_id: str, variant: str,
                     hashes: tuple[str, str, str]) -> str:
    """The smoke id of a resolved config (plain data, e.g. a sealed run's ``config.yaml``) and
    its (code, data, split) hashes."""
    identity = {key: value for key, value in config.items() if key != "run"}
    identity["variant"] = [exp_id, variant]
    return digest_json([identity, *hashes])[:ID_LENGTH]


def code_sha256(extra_names: tuple[str, ...] = ()) -> str:
    """Hash of the run-deciding package code plus every file of the user packages the plug-ins
    named in the config live in."""
    root = Path(rgt.__file__).parent
    files = [path for name in RUN_CODE for path in _python_files(root / name)]
    digest = sha256_files(root, files)
    extras = []
    for name in sorted(extra_names):
        package = plugin_package_files(name)
        if package:
            base = package[0].parent if len(package) == 1 else _common_parent(package).parent
            extras.append(f"{name}:{sha256_files(base, package)}")
    return digest_json([digest, *extras])


def _common_parent(paths: list[Path]) -> Path:
    parent = paths[0].parent
    while not all(parent in path.parents for path in paths):
        parent = parent.parent
    return parent


def job_code_sha256(job: JobSettings, project: Path) -> str:
    """Hash of the plain-loop API and adapters (what a job's checkpoints go through) and of the
    job's declared sources."""
    root = Path(rgt.__file__).parent
    files = [path for name in JOB_CODE for path in _python_files(root / name)]
    sources = declared_files(job.sources, project, "job.sources")
    return digest_json([sha256_files(root, files), files_sha256(sources, project)])


def job_data_sha256(job: JobSettings, project: Path) -> str:
    """Hash of the job's declared data files ("" when it declares none)."""
    return files_sha256(declared_files(job.data, project, "job.data"), project)


def _python_files(path: Path) -> list[Path]:
    return [path] if path.is_file() else sorted(path.rglob("*.py"))


@lru_cache(maxsize=16)
def data_identity(data: DataSettings) -> tuple[str, str]:
    """(data sha256, split sha256) of a data section; computed once per process."""
    dataset = load_dataset(data)
    return dataset.sha256(), split_sha256(make_split(dataset, data.split))


def plan_runs(config: Config) -> list[RunSpec]:
    """Every run the config asks for, in experiment, variant, seed order."""
    runs = []
    for exp_id, experiment in config.experiments.items():
        for variant in experiment.variants:
            for seed in experiment.seeds:
                runs.append(_spec(config, exp_id, variant, seed))
    return runs


def plugin_names(config: Config) -> list[str]:
    """The user's ``package.module:attribute`` names (dataset, model) any planned run uses."""
    names = set()
    for exp_id, experiment in config.experiments.items():
        for variant in experiment.variants:
            settings = config.variant_settings(exp_id, variant)
            if settings.job is None:
                names.update((settings.data.name, settings.model.name))
    return sorted(name for name in names if ":" in name)


def _spec(config: Config, exp_id: str, variant: str, seed: int) -> RunSpec:
    settings = config.run_settings(exp_id, variant, seed)
    if settings.job is not None:
        project = Path.cwd()
        code, data_sha, split_sha = (job_code_sha256(settings.job, project),
                                     job_data_sha256(settings.job, project), "")
    else:
        names = (settings.data.name, settings.model.name)
        code = code_sha256(tuple(name for name in names if ":" in name))
        data_sha, split_sha = data_identity(settings.data)
    run_id = digest_json({"config": settings.to_dict(), "code": code, "data": data_sha,
                          "split": split_sha, "seed": seed})[:ID_LENGTH]
    experiment = config.experiments[exp_id]
    return RunSpec(run_id, exp_id, variant, seed, experiment.baseline, settings,
                   experiment.variants[variant], code, data_sha, split_sha)


def train_outputs(runs: str, jobs: bool) -> dict[str, str]:
    """The sealed files a training job declares (Snakemake output patterns by name)."""
    stem = f"{runs}/{{run_id}}"
    outputs = {"run": f"{stem}/run.json", "history": f"{stem}/train.csv",
               "config": f"{stem}/config.yaml"}
    if jobs:  # your own command seals its results itself (run.finish)
        return {**outputs, "results": f"{stem}/results.json"}
    return {**outputs, "model": f"{stem}/model.pt"}


def smoke_path(plan: list[RunSpec], run_id: str) -> str:
    """The smoke record that gates a run (one per variant)."""
    for spec in plan:
        if spec.run_id == run_id:
            return smoke_record(spec.smoke_id)
    raise ConfigError(f"run {run_id} is not in the current plan",
                      "the config or training code changed since Snakemake planned it: rerun "
                      "snakemake (or `rgt plan`) to get the current run ids")


def find_run(config: Config, run_id: str) -> RunSpec:
    """The planned run with this id, or a ``ConfigError`` explaining why it is not planned."""
    for spec in plan_runs(config):
        if spec.run_id == run_id:
            return spec
    raise ConfigError(f"run {run_id} is not in the plan of this config",
                      "the config, data or training code changed since the workflow was "
                      "planned: rerun snakemake (or `rgt plan`) to get the current run ids")
