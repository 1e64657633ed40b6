"""Read and validate ``config/hosts.yaml`` against its JSON Schema (``schema.yaml``)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator

from rgt.base.errors import ConfigError
from rgt.base.schema_messages import describe
from rgt.base.yaml_files import read_yaml
from rgt.hosts import DEFAULT_PATH, EXAMPLE, HostEntry

SCHEMA_PATH = Path(__file__).with_name("schema.yaml")


@lru_cache(maxsize=1)
def schema() -> dict:
    """The JSON Schema of ``config/hosts.yaml``."""
    return yaml.safe_load(SCHEMA_PATH.read_text())


def load_hosts(path: Path = DEFAULT_PATH) -> dict[str, HostEntry]:
    """Every host of ``path`` by alias; a missing file means no host is registered."""
    path = Path(path)
    if not path.is_file():
        return {}
    return validate_hosts(read_yaml(path), path)


def host_entry(alias: str, path: Path = DEFAULT_PATH) -> HostEntry:
    """The entry of one alias; an unregistered alias raises with how to register it."""
    hosts = load_hosts(path)
    if alias not in hosts:
        known = ", ".join(sorted(hosts)) or "none"
        raise ConfigError(f"host {alias!r} is not in {path} (registered: {known})",
                          f"add it under hosts: in {path} (copy {EXAMPLE})")
    return hosts[alias]


def validate_hosts(data: Any, path: Path) -> dict[str, HostEntry]:
    """Check parsed ``data`` against the schema; ``path`` names the file in every message."""
    errors = sorted(Draft202012Validator(schema()).iter_errors(data),
                    key=lambda error: list(map(str, error.absolute_path)))
    if errors:
        described = [describe(_deepest(error)) for error in errors[:5]]
        problems = "\n  ".join(problem for problem, _ in described)
        fixes = "; ".join(dict.fromkeys(fix for _, fix in described))
        raise ConfigError(f"{path} is invalid:\n  {problems}",
                          fixes.replace("config/config.yaml", EXAMPLE))
    hosts = {alias: _entry(alias, fields) for alias, fields in data["hosts"].items()}
    for entry in hosts.values():
        _check_caps(entry, path)
    return hosts


def _check_caps(entry: HostEntry, path: Path) -> None:
    """A spending cap is money: it needs the price it is counted from."""
    capped = [name for name in ("max_spend", "max_spend_per_run") if getattr(entry, name)]
    if capped and entry.price_per_hour is None:
        raise ConfigError(f"{path}: host {entry.alias} sets {' and '.join(capped)} but no "
                          "price_per_hour, so its spending cannot be counted",
                          f"add price_per_hour: <cost per hour> under hosts: {entry.alias}: "
                          f"in {path}, or remove {capped[0]}")


def _entry(alias: str, fields: dict) -> HostEntry:
    values = dict(fields)
    for key in ("stop_command", "host_stop_command"):
        if values.get(key) is not None:
            values[key] = tuple(values[key])
    return HostEntry(alias=alias, given=frozenset(fields), **values)


def _deepest(error):
    while error.context:
        error = max(error.context, key=lambda candidate: len(candidate.absolute_path))
    return error
