"""Load and validate the project configuration, once, at the boundary.

``load_config`` is the only door: the Snakefile and every CLI verb call it. It rejects unknown
keys, wrong types and impossible values with a ``ConfigError`` that names the key, the value and
the fix, before any work starts.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from rgt.base.errors import ConfigError

SCHEMA_PATH = Path(__file__).with_name("schema.yaml")
BUILTIN_DATASETS = ("digits",)
BUILTIN_MODELS = ("small_cnn",)
SETTINGS_SECTIONS = ("data", "model", "train", "checkpoint", "selection")


@lru_cache(maxsize=1)
def schema() -> dict:
    """The JSON Schema of the configuration file."""
    return yaml.safe_load(SCHEMA_PATH.read_text())


def load_config(source: str | Path | Mapping) -> dict:
    """Read (if a path), validate and complete the configuration.

    Args:
        source: a YAML file path, or an already-parsed mapping (e.g. Snakemake's ``config``).

    Returns:
        The validated configuration with defaults filled in.

    Raises:
        ConfigError: naming the first problems found, each with its fix.
    """
    raw = read_yaml(source) if isinstance(source, (str, Path)) else copy.deepcopy(dict(source))
    label = str(source) if isinstance(source, (str, Path)) else "config"
    _reject_retired_keys(raw, label)
    _validate(raw, schema(), label)
    config = _with_defaults(raw)
    _check_semantics(config, label)
    return config


def read_yaml(path: str | Path) -> dict:
    """Parse a YAML mapping; a missing file or a syntax error becomes a ``ConfigError``."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist",
                          "pass an existing file, e.g. config/config.yaml")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{path} is not valid YAML{where}: {getattr(error, 'problem', error)}",
                          "fix the YAML syntax (indentation, colons, quotes)") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping, got {type(data).__name__}",
                          "start from config/config.yaml")
    return data


def _validate(instance: Any, schema_: dict, label: str) -> None:
    from jsonschema import Draft202012Validator

    from rgt.config.messages import describe

    validator = Draft202012Validator(schema_)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.path)))
    if not errors:
        return
    described = [describe(_deepest(error)) for error in errors[:5]]
    problems = "\n  ".join(problem for problem, _ in described)
    fixes = "; ".join(dict.fromkeys(fix for _, fix in described))
    raise ConfigError(f"{label} is invalid:\n  {problems}", fixes)


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


def _deepest(error):
    """For ``$ref``-ed sub-schemas jsonschema reports the leaf; keep the most specific one."""
    # An alternative (anyOf) that describes itself says more than any one branch's error.
    while error.context and not (error.validator == "anyOf" and "description" in error.schema):
        error = min(error.context, key=lambda e: -len(e.absolute_path))
    return error


def _with_defaults(raw: dict) -> dict:
    config = copy.deepcopy(raw)
    config.setdefault("paths", {})
    config["paths"].setdefault("runs", "runs")
    config["paths"].setdefault("checkpoints", "checkpoints")
    config.setdefault("verify", {})
    config["verify"].setdefault("min_effect", {})
    config["verify"].setdefault("pairing", "unpaired")
    config["verify"].setdefault("multiplicity", "holm")
    defaults = config["defaults"]
    defaults["data"].setdefault("params", {})
    defaults["model"].setdefault("params", {})
    defaults["checkpoint"].setdefault("every_steps", None)
    defaults["train"].setdefault("device", "auto")
    defaults["train"].setdefault("processes", 1)
    defaults["train"].setdefault("process_group_timeout_s", 300)
    return config


def _check_semantics(config: dict, label: str) -> None:
    for exp_id, experiment in config["experiments"].items():
        where = f"experiments.{exp_id}"
        if experiment["baseline"] not in experiment["variants"]:
            variants = ", ".join(experiment["variants"])
            raise ConfigError(
                f"{label}: {where}.baseline = {experiment['baseline']!r} is not a variant "
                f"of this experiment (variants: {variants})",
                f"set {where}.baseline to one of: {variants}")
        for variant, overrides in experiment["variants"].items():
            _validate(overrides, _override_schema(), f"{label}: {where}.variants.{variant}")
            resolved = merge(config["defaults"], overrides)
            _check_settings(resolved, f"{label}: {where}.variants.{variant}")


def _check_settings(settings: dict, label: str) -> None:
    split = settings["data"]["split"]
    if split["val"] + split["test"] >= 1:
        raise ConfigError(
            f"{label}: data.split.val + data.split.test = {split['val'] + split['test']:g} "
            "leaves no training data",
            "make data.split.val + data.split.test smaller than 1 (e.g. 0.15 each)")
    _check_name(settings["data"]["name"], BUILTIN_DATASETS, "data.name", label)
    _check_name(settings["model"]["name"], BUILTIN_MODELS, "model.name", label)


def _check_name(name: str, builtins: tuple[str, ...], key: str, label: str) -> None:
    if ":" not in name and name not in builtins:
        raise ConfigError(
            f"{label}: {key} = {name!r} is not a built-in (built-ins: {', '.join(builtins)})",
            f"use a built-in, or name your own as 'package.module:callable' in {key}")


@lru_cache(maxsize=1)
def _override_schema() -> dict:
    """The settings schema with nothing required: a variant overrides only what it changes."""
    settings = copy.deepcopy(schema()["$defs"]["settings"])
    _drop_required(settings)
    settings["$defs"] = schema()["$defs"]
    return settings


def _drop_required(node: Any) -> None:
    if isinstance(node, dict):
        node.pop("required", None)
        for value in node.values():
            _drop_required(value)


def merge(base: Mapping, override: Mapping) -> dict:
    """Deep-merge ``override`` into a copy of ``base`` (mappings merge, other values replace)."""
    merged = copy.deepcopy(dict(base))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def resolve_run_config(config: dict, exp_id: str, variant: str, seed: int) -> dict:
    """The fully resolved settings of one run: defaults ⊕ variant overrides ⊕ identity."""
    experiment = config["experiments"][exp_id]
    resolved = merge(config["defaults"], experiment["variants"][variant])
    resolved["run"] = {"exp_id": exp_id, "variant": variant, "seed": seed}
    return resolved
