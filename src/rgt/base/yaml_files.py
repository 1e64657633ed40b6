"""Reading a YAML file the user wrote: a missing file or a syntax error is a ``ConfigError``
naming the file, the line and the fix, never a traceback."""

from __future__ import annotations

from pathlib import Path

import yaml

from rgt.base.errors import ConfigError

# libyaml's parser when present (the same values; the pure-Python one is ten times slower)
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: str | Path) -> dict:
    """Parse a YAML mapping; a missing file or a syntax error becomes a ``ConfigError``."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist",
                          "pass an existing file, e.g. config/config.yaml")
    try:
        data = yaml.load(path.read_text(), Loader=SAFE_LOADER)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{path} is not valid YAML{where}: {getattr(error, 'problem', error)}",
                          "fix the YAML syntax (indentation, colons, quotes)") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping, got {type(data).__name__}",
                          "start from config/config.yaml")
    return data
