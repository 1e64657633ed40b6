"""What is pushed to a rented host: the project's code tree (the ``rgt`` package, the user's
plugin modules, and the sources and data a training job declares), hashed, plus the run config.
The declared data travels once per content, through the host's data cache (``datacache.py``).

The host runs exactly the local code: the tree hash names the remote code directory, and the
pushed files are verified by sha256 before a launch and again before results are pulled.
"""

from __future__ import annotations

import importlib.machinery
from pathlib import Path

import yaml

import rgt
from rgt.base.hashing import digest_json, sha256_file
from rgt.config import Config
from rgt.plan.declared import declared_files
from rgt.plan.runplan import plugin_names

SKIP_PARTS = ("__pycache__",)
REMOTE_CONFIG = "run-config.yaml"
HOST_AUDIT = "host-audit.json"  # the phase-0 audit, pushed beside the config, sealed with runs


def project_files() -> dict[str, Path]:
    """The ``rgt`` package exactly as this process runs it, as ``src/rgt/...`` paths.

    The same files decide the run ids (see ``rgt.plan.runplan``), so the host computes the same ids.
    """
    package = Path(rgt.__file__).parent
    return {f"src/rgt/{path.relative_to(package).as_posix()}": path
            for path in sorted(package.rglob("*"))
            if path.is_file() and not any(part in path.parts for part in SKIP_PARTS)
            and path.suffix not in (".pyc", ".tmp")}


def plugin_files(config: Config, project: Path) -> dict[str, Path]:
    """The user's plugin modules named in ``config`` that live in ``project``, as ``src/...``.

    A module found in the project (its root or its ``src/``) goes with its whole top-level
    package, so its own imports of sibling modules work on the host. A plugin installed
    elsewhere (site-packages) is not shipped: the host's environment must provide it.
    """
    files: dict[str, Path] = {}
    for name in plugin_names(config):
        files.update(_module_tree(name.split(":", 1)[0].split(".")[0], Path(project)))
    return files


def job_sources(config: Config, project: Path) -> dict[str, Path]:
    """The sources the config's training jobs declare, at their project paths (the job runs
    from the code directory, so its relative paths hold there as here)."""
    return _declared(config, project, "sources")


def job_data(config: Config, project: Path) -> dict[str, Path]:
    """The data files the config's training jobs declare, at their project paths (they reach
    the code directory through the host's data cache: ``rgt.remote.datacache``)."""
    return _declared(config, project, "data")


def job_packages(config: Config) -> dict[str, str]:
    """The modules the config's training jobs import that a host may lack (``job.packages``),
    each with the pip requirement that provides it."""
    packages: dict[str, str] = {}
    for exp_id, experiment in config.experiments.items():
        for variant in experiment.variants:
            job = config.variant_settings(exp_id, variant).job
            packages.update(job.packages if job is not None else {})
    return packages


def _declared(config: Config, project: Path, key: str) -> dict[str, Path]:
    files: dict[str, Path] = {}
    for exp_id, experiment in config.experiments.items():
        for variant in experiment.variants:
            job = config.variant_settings(exp_id, variant).job
            if job is not None:
                for path in declared_files(getattr(job, key), project, f"job.{key}"):
                    files[path.relative_to(project).as_posix()] = path
    return files


def _module_tree(top: str, project: Path) -> dict[str, Path]:
    roots = [project.resolve(), (project / "src").resolve()]
    spec = importlib.machinery.PathFinder.find_spec(top, [str(root) for root in roots])
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return {}
    origin = Path(spec.origin)
    package = origin.name == "__init__.py"
    root = origin.parent.parent if package else origin.parent  # the directory it was found in
    sources = sorted(origin.parent.rglob("*.py")) if package else [origin]
    return {f"src/{path.relative_to(root).as_posix()}": path for path in sources
            if not any(part in path.parts for part in SKIP_PARTS)}


def file_digests(files: dict[str, Path]) -> dict[str, str]:
    """``{relative path: sha256 of the file's bytes}``."""
    return {rel: sha256_file(path) for rel, path in files.items()}


def tree_hash(digests: dict[str, str]) -> str:
    """A short hash of the tree: relative paths and the sha256 of their bytes."""
    return digest_json(digests)[:16]


def remote_config_text(config: Config, runs: str, checkpoints: str) -> str:
    """The run config for the host: the validated config (defaults written out) with the
    host's runs/checkpoints paths.

    Paths are not part of a run's identity, so the host computes the same run ids.
    """
    return yaml.safe_dump(config.with_paths(runs, checkpoints).to_dict(), sort_keys=True)
