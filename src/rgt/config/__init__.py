"""Load and validate the project configuration, once, at the boundary.

``load_config`` is the only door: the Snakefile and every CLI verb call it and pass the typed,
frozen ``Config`` down; library code never reads the file. It rejects unknown keys, wrong
types and impossible values with a ``ConfigError`` that names the key, the value and the fix,
before any work starts. The keys themselves are declared once, in ``rgt.config.model``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ValidationError

from rgt.base.errors import ConfigError
from rgt.base.yaml_files import read_yaml
from rgt.config.model import (
    CheckpointSettings,
    ClusterSection,
    Config,
    DataSettings,
    ModelSettings,
    RunSettings,
    Settings,
    Split,
    TrainSettings,
    VerifySection,
    merge,
)
from rgt.config.problems import raise_for
from rgt.config.types import thaw

BUILTIN_DATASETS = ("digits",)
BUILTIN_MODELS = ("small_cnn",)

__all__ = ["BUILTIN_DATASETS", "BUILTIN_MODELS", "CheckpointSettings", "ClusterSection", "Config",
           "ConfigError", "DataSettings", "ModelSettings", "RunSettings", "Settings", "Split",
           "TrainSettings", "VerifySection", "load_config", "merge", "read_yaml", "thaw",
           "validated"]


def load_config(source: str | Path | Mapping) -> Config:
    """Read (if a path), validate and complete the configuration.

    Args:
        source: a YAML file path, or an already-parsed mapping (e.g. Snakemake's ``config``).

    Returns:
        The validated, frozen configuration with defaults filled in.

    Raises:
        ConfigError: naming the first problems found, each with its fix.
    """
    is_path = isinstance(source, (str, Path))
    raw = read_yaml(source) if is_path else source
    label = str(source) if is_path else "config"
    _reject_retired_keys(raw, label)
    config = validated(Config, raw, label)
    for exp_id, experiment in config.experiments.items():
        _check_experiment(config, exp_id, label)
        for variant in experiment.variants:
            _check_settings(config, exp_id, variant, label)
    _check_cluster(config.cluster, label)
    return config


def validated(model: type[BaseModel], data: object, label: str, prefix: tuple = ()) -> BaseModel:
    """``model`` built from ``data``, or a ``ConfigError`` naming each problem's key and fix."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise_for(error, model, label, prefix)


def _reject_retired_keys(raw: Mapping, label: str) -> None:
    """Keys an older config may still hold, each with what replaced it."""
    verify = raw.get("verify") if isinstance(raw.get("verify"), Mapping) else {}
    if "bootstrap" in verify:
        raise ConfigError(f"{label}: verify.bootstrap is no longer used: the interval of a "
                          f"difference is Welch's t interval (docs/verify-statistics.md)",
                          "remove verify.bootstrap from the config file")
    value = verify.get("min_effect")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise ConfigError(f"{label}: verify.min_effect = {value!r} is one number for every "
                          f"metric (accuracy in [0, 1], a loss in nats, perplexity in the "
                          f"hundreds)", f"give it per metric, e.g. verify.min_effect: "
                          f"{{accuracy: {value!r}, loss: \"2%\"}}")


def _check_experiment(config: Config, exp_id: str, label: str) -> None:
    experiment = config.experiments[exp_id]
    if experiment.baseline not in experiment.variants:
        where, variants = f"experiments.{exp_id}", ", ".join(experiment.variants)
        raise ConfigError(
            f"{label}: {where}.baseline = {experiment.baseline!r} is not a variant "
            f"of this experiment (variants: {variants})",
            f"set {where}.baseline to one of: {variants}")


def _check_settings(config: Config, exp_id: str, variant: str, label: str) -> None:
    """A variant's overrides merged over the defaults make valid, usable settings."""
    where = ("experiments", exp_id, "variants", variant)
    overrides = config.experiments[exp_id].variants[variant]
    settings = validated(Settings, merge(config.defaults.to_dict(), overrides), label, where)
    label = f"{label}: {'.'.join(where)}"
    _check_trainer_choice(settings, label)
    _check_params(config.defaults.to_dict(), overrides, label)
    if settings.job is not None:
        return
    split = settings.data.split
    if split.val + split.test >= 1:
        raise ConfigError(
            f"{label}: data.split.val + data.split.test = {split.val + split.test:g} "
            "leaves no training data",
            "make data.split.val + data.split.test smaller than 1 (e.g. 0.15 each)")
    _check_name(settings.data.name, BUILTIN_DATASETS, "data.name", label)
    _check_name(settings.model.name, BUILTIN_MODELS, "model.name", label)


BUILT_IN_SECTIONS = ("data", "model", "train", "selection")
# The sections whose params are a free mapping for a callable, with the key naming it.
PARAMS_OF = (("job", "command"), ("model", "name"), ("data", "name"))


def _check_params(defaults: Mapping, overrides: Mapping, label: str) -> None:
    """A variant that keeps the defaults' command, model or dataset overrides only params the
    defaults give it: a new key (``dropuot``) would be accepted and silently run the
    defaults' value."""
    for section, names_callable in PARAMS_OF:
        given, base = overrides.get(section), defaults.get(section) or {}
        if not isinstance(given, Mapping) or not isinstance(given.get("params"), Mapping):
            continue
        if names_callable in given and given[names_callable] != base.get(names_callable):
            continue  # another command, model or dataset: params of its own
        known = sorted(base.get("params") or {})
        unknown = sorted(set(given["params"]) - set(known))
        if unknown:
            add = f"add {unknown[0]} to defaults.{section}.params so every variant has it"
            raise ConfigError(
                f"{label}.{section}.params.{unknown[0]}: defaults.{section}.params has no "
                f"{unknown[0]!r} (it has: {', '.join(known) or 'no key'}), so this variant "
                "would run with the defaults' values",
                f"correct the name to one of {', '.join(known)}, or {add}" if known else add)


def _check_trainer_choice(settings: Settings, label: str) -> None:
    """Either your own ``job`` or all of the built-in trainer's sections, not a mix."""
    given = [name for name in BUILT_IN_SECTIONS if getattr(settings, name) is not None]
    if settings.job is not None and given:
        raise ConfigError(
            f"{label}: {', '.join(given)} configure the built-in trainer, but job runs your own "
            f"command: they would have no effect",
            "remove them, and put your hyper-parameters in job.params")
    missing = [name for name in BUILT_IN_SECTIONS if name not in given]
    if settings.job is None and missing:
        raise ConfigError(
            f"{label}: required section(s) {', '.join(missing)} missing (the built-in "
            f"trainer needs data, model, train and selection)",
            "add them under defaults (see config/config.yaml), or run your own training "
            "command with a defaults.job section (docs/own-code.md)")


def _check_name(name: str, builtins: tuple[str, ...], key: str, label: str) -> None:
    if ":" not in name and name not in builtins:
        raise ConfigError(
            f"{label}: {key} = {name!r} is not a built-in (built-ins: {', '.join(builtins)})",
            f"use a built-in, or name your own as 'package.module:callable' in {key}")


def _check_cluster(cluster: ClusterSection, label: str) -> None:
    walltime = cluster.train.runtime_minutes * 60
    if cluster.grace_seconds >= walltime:
        raise ConfigError(
            f"{label}: cluster.grace_seconds = {cluster.grace_seconds} is not shorter than the "
            f"walltime cluster.train.runtime_minutes = {cluster.train.runtime_minutes} "
            f"({walltime} s): the warning would come before any training",
            "lower cluster.grace_seconds (e.g. 120) or raise cluster.train.runtime_minutes")
