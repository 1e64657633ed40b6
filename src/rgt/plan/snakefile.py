"""The Snakefile's config: validated once when it is parsed, shared with the executor plugin.

Snakemake parses the Snakefile and runs the executor plugin in one process: the plugin takes
the config the Snakefile validated (``workflow_config``) instead of reading the file again.
Every other process loads the config once, at its own boundary: ``rgt train`` and every other
verb (``load_config`` in the handler), and a job Snakemake starts as a process of its own
(it parses the Snakefile again, which calls ``load_or_exit``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from rgt.base.errors import ConfigError, RgtError
from rgt.config import Config, load_config

_VALIDATED: dict[Path, Config] = {}  # this process's validated configs, by absolute path


def load_or_exit(config_file: str, extra_keys: set[str]) -> Config:
    """For the Snakefile: the validated config, or the error and its fix, then exit 2.

    Snakemake would print a traceback of the Snakefile for an exception; a user's mistake in
    the config deserves only the message.
    """
    try:
        if extra_keys:
            raise ConfigError(f"unknown --config key(s): {', '.join(sorted(extra_keys))}",
                              "the only --config key is config_file=PATH; put settings in "
                              "the config file itself")
        config = load_config(config_file)
    except RgtError as error:
        print(f"error: {error.message}", file=sys.stderr)
        if error.fix:
            print(f"  fix: {error.fix}", file=sys.stderr)
        raise SystemExit(error.exit_code) from None
    _VALIDATED[Path(config_file).resolve()] = config
    return config


def workflow_config(config_file: str | Path) -> Config:
    """The config the Snakefile validated in this process (for the executor plugin, which
    runs in Snakemake's own process); loaded here, once, only where no Snakefile did."""
    path = Path(config_file).resolve()
    if path not in _VALIDATED:
        _VALIDATED[path] = load_config(path)
    return _VALIDATED[path]
