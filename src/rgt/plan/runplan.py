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
from rgt.base.plugins import source_file
from rgt.config import Config, DataSettings, RunSettings
from rgt.data import load_dataset, make_split, split_sha256
from rgt.plan.paths import smoke_record

# The packages whose code decides what a run computes; editing others retrains nothing.
RUN_CODE = ("data", "models", "train", "evaluate", "base/plugins.py", "base/hashing.py")
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
    """Hash of the run-deciding package code plus user plugin files named in the config."""
    root = Path(rgt.__file__).parent
    files = [path for name in RUN_CODE for path in _python_files(root / name)]
    extras = [path for name in extra_names if (path := source_file(name))]
    digest = sha256_files(root, files)
    return digest_json([digest, *(f"{path.name}:{sha256_files(path.parent, [path])}"
                                  for path in sorted(extras))])


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
            names.update((settings.data.name, settings.model.name))
    return sorted(name for name in names if ":" in name)


def _spec(config: Config, exp_id: str, variant: str, seed: int) -> RunSpec:
    settings = config.run_settings(exp_id, variant, seed)
    names = (settings.data.name, settings.model.name)
    code = code_sha256(tuple(name for name in names if ":" in name))
    data_sha, split_sha = data_identity(settings.data)
    run_id = digest_json({"config": settings.to_dict(), "code": code, "data": data_sha,
                          "split": split_sha, "seed": seed})[:ID_LENGTH]
    experiment = config.experiments[exp_id]
    return RunSpec(run_id, exp_id, variant, seed, experiment.baseline, settings,
                   experiment.variants[variant], code, data_sha, split_sha)


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
