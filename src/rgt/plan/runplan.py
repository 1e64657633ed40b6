"""The run plan: which runs a config asks for, and their content-addressed ids.

The Snakefile calls ``plan_runs`` at parse time; ``rgt train`` calls it again to find its run.
A run id hashes everything that decides the result (resolved config, training code, data,
split, seed), so equal inputs give equal ids and any change gives a new run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import rgt
from rgt.base.errors import ConfigError
from rgt.base.hashing import digest_json, sha256_files
from rgt.base.plugins import source_file
from rgt.config import resolve_run_config

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
    config: dict = field(repr=False)
    variant_overrides: dict = field(repr=False)
    code_sha256: str = ""
    data_sha256: str = ""
    split_sha256: str = ""

    @property
    def config_digest(self) -> str:
        """sha256 of the resolved config."""
        return digest_json(self.config)

    @property
    def smoke_id(self) -> str:
        """Identity of the variant (the run id without the seed): one smoke test covers it."""
        config = {key: value for key, value in self.config.items() if key != "run"}
        config["variant"] = [self.exp_id, self.variant]
        return digest_json([config, self.code_sha256, self.data_sha256,
                            self.split_sha256])[:ID_LENGTH]


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
def _data_identity(data_json: str) -> tuple[str, str]:
    import json

    from rgt.data import load_dataset, make_split, split_sha256

    data_config = json.loads(data_json)
    dataset = load_dataset(data_config)
    return dataset.sha256(), split_sha256(make_split(dataset, data_config["split"]))


def data_identity(data_config: dict) -> tuple[str, str]:
    """(data sha256, split sha256) for a data config; computed once per process."""
    import json

    return _data_identity(json.dumps(data_config, sort_keys=True))


def plan_runs(config: dict) -> list[RunSpec]:
    """Every run the config asks for, in experiment, variant, seed order."""
    runs = []
    for exp_id, experiment in config["experiments"].items():
        for variant, overrides in experiment["variants"].items():
            for seed in experiment["seeds"]:
                runs.append(_spec(config, exp_id, variant, seed, overrides))
    return runs


def plugin_names(config: dict) -> list[str]:
    """The user's ``package.module:attribute`` names (dataset, model) any planned run uses."""
    names = set()
    for exp_id, experiment in config["experiments"].items():
        for variant in experiment["variants"]:
            resolved = resolve_run_config(config, exp_id, variant, experiment["seeds"][0])
            names.update((resolved["data"]["name"], resolved["model"]["name"]))
    return sorted(name for name in names if ":" in name)


def _spec(config: dict, exp_id: str, variant: str, seed: int, overrides: dict) -> RunSpec:
    resolved = resolve_run_config(config, exp_id, variant, seed)
    names = (resolved["data"]["name"], resolved["model"]["name"])
    code = code_sha256(tuple(name for name in names if ":" in name))
    data_sha, split_sha = data_identity(resolved["data"])
    run_id = digest_json({"config": resolved, "code": code, "data": data_sha,
                          "split": split_sha, "seed": seed})[:ID_LENGTH]
    baseline = config["experiments"][exp_id]["baseline"]
    return RunSpec(run_id, exp_id, variant, seed, baseline, resolved, overrides, code,
                   data_sha, split_sha)


def smoke_path(plan: list[RunSpec], run_id: str) -> str:
    """The smoke record that gates a run (one per variant)."""
    from rgt.plan.paths import smoke_record

    for spec in plan:
        if spec.run_id == run_id:
            return smoke_record(spec.smoke_id)
    raise ConfigError(f"run {run_id} is not in the current plan",
                      "the config or training code changed since Snakemake planned it: rerun "
                      "snakemake (or `rgt plan`) to get the current run ids")


def load_or_exit(config_file: str, extra_keys: set[str]) -> dict:
    """For the Snakefile: the validated config, or the error and its fix, then exit 2.

    Snakemake would print a traceback of the Snakefile for an exception; a user's mistake in
    the config deserves only the message.
    """
    import sys

    from rgt.base.errors import RgtError
    from rgt.config import load_config

    try:
        if extra_keys:
            raise ConfigError(f"unknown --config key(s): {', '.join(sorted(extra_keys))}",
                              "the only --config key is config_file=PATH; put settings in "
                              "the config file itself")
        return load_config(config_file)
    except RgtError as error:
        print(f"error: {error.message}", file=sys.stderr)
        if error.fix:
            print(f"  fix: {error.fix}", file=sys.stderr)
        raise SystemExit(error.exit_code) from None


def find_run(config: dict, run_id: str) -> RunSpec:
    """The planned run with this id, or a ``ConfigError`` explaining why it is not planned."""
    for spec in plan_runs(config):
        if spec.run_id == run_id:
            return spec
    raise ConfigError(f"run {run_id} is not in the plan of this config",
                      "the config, data or training code changed since the workflow was "
                      "planned: rerun snakemake (or `rgt plan`) to get the current run ids")
