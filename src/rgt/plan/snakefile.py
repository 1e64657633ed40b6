"""The Snakefile's config: validated once when it is parsed, shared with the executor plugin.

Snakemake parses the Snakefile and runs the executor plugin in one process: the plugin takes
the config the Snakefile validated (``workflow_config``) instead of reading the file again.
Every other process loads the config once, at its own boundary: ``rgt train`` and every other
verb (``load_config`` in the handler), and a job Snakemake starts as a process of its own
(it parses the Snakefile again, which calls ``load_or_exit``).

Which file: ``config/config.yaml``, or what ``snakemake --configfile A.yaml [B.yaml …]`` names
(the Snakemake way; several files merge in order, as Snakemake merges them), or the project's
own ``--config config_file=PATH``. Each rule passes that one file to ``rgt``, so several
``--configfile`` files are merged into ``.rgt/config/merged-<digest>.yaml``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import yaml

from rgt.base.errors import ConfigError, RgtError
from rgt.base.files import write_text
from rgt.base.hashing import digest_json
from rgt.base.yaml_files import read_yaml
from rgt.config import Config, load_config

DEFAULT_CONFIG = "config/config.yaml"
MERGED_DIR = Path(".rgt/config")
_VALIDATED: dict[Path, Config] = {}  # this process's validated configs, by absolute path


def config_source(configfiles: Sequence[str | Path], overrides: Mapping) -> str:
    """The config file this workflow runs, from Snakemake's ``--configfile`` files and its
    ``--config`` pairs (``workflow.overwrite_configfiles``, ``workflow.config_settings.config``).

    Raises:
        ConfigError: a ``--config`` key other than ``config_file``, or both ways at once.
    """
    extra = set(overrides) - {"config_file"}
    if extra:
        raise ConfigError(f"unknown --config key(s): {', '.join(sorted(extra))}",
                          "the only --config key is config_file=PATH; pass another config "
                          "with --configfile PATH, or put settings in the config file itself")
    named = overrides.get("config_file")
    if configfiles and named:
        raise ConfigError(f"two configs given: --configfile {' '.join(map(str, configfiles))} "
                          f"and --config config_file={named}",
                          "pass one of them (--configfile is the Snakemake way)")
    files = [_relative(path) for path in configfiles] or [str(named or DEFAULT_CONFIG)]
    return files[0] if len(files) == 1 else merged_config(files)


def merged_config(files: Sequence[str]) -> str:
    """Several config files merged in order (a later file's keys win, mappings merged key by
    key, as Snakemake merges ``--configfile``s), written once under ``.rgt/config/``."""
    merged: dict = {}
    for path in files:
        _merge_into(merged, read_yaml(path))
    target = MERGED_DIR / f"merged-{digest_json(merged)[:12]}.yaml"
    if not target.is_file():
        header = "".join(f"# merged from {path}\n" for path in files)
        write_text(target, header + yaml.safe_dump(merged, sort_keys=False))
    return target.as_posix()


def _merge_into(base: dict, update: Mapping) -> None:
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            _merge_into(base[key], value)
        else:
            base[key] = value


def _relative(path: str | Path) -> str:
    """``path`` as the user most likely typed it: relative to here when below it."""
    relative = os.path.relpath(path)
    return str(path) if relative.startswith("..") else relative


def load_or_exit(configfiles: Sequence[str | Path], overrides: Mapping) -> tuple[str, Config]:
    """For the Snakefile: the config file and its validated config, or the error and its fix,
    then exit 2.

    Snakemake would print a traceback of the Snakefile for an exception; a user's mistake in
    the config deserves only the message.
    """
    config_file = or_exit(config_source, configfiles, overrides)
    config = or_exit(load_config, config_file)
    _VALIDATED[Path(config_file).resolve()] = config
    return config_file, config


def or_exit(function: Callable, *args):
    """``function(*args)``; an ``RgtError`` (a user's mistake) is printed with its fix, and the
    Snakefile exits with its code instead of a traceback."""
    try:
        return function(*args)
    except RgtError as error:
        print(f"error: {error.message}", file=sys.stderr)
        if error.fix:
            print(f"  fix: {error.fix}", file=sys.stderr)
        raise SystemExit(error.exit_code) from None


def workflow_config(config_file: str | Path) -> Config:
    """The config the Snakefile validated in this process (for the executor plugin, which
    runs in Snakemake's own process); loaded here, once, only where no Snakefile did."""
    path = Path(config_file).resolve()
    if path not in _VALIDATED:
        _VALIDATED[path] = load_config(path)
    return _VALIDATED[path]
