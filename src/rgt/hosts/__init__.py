"""The project's rented hosts: ``config/hosts.yaml``, validated once, by ssh alias.

``~/.ssh/config`` says how to reach a host; this file says what the project needs beyond that:
its platform (whose facts live in ``config/platforms/``), its price, where the project lives on
its durable disk, and the command the user chose for stopping its meter.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from rgt.base.errors import ConfigError
from rgt.config import read_yaml

SCHEMA_PATH = Path(__file__).with_name("schema.yaml")
DEFAULT_PATH = Path("config/hosts.yaml")
EXAMPLE = "config/hosts.example.yaml"


@dataclass(frozen=True)
class HostEntry:
    """One host of ``config/hosts.yaml`` with every default filled in."""

    alias: str
    platform: str
    price_per_hour: float | None = None
    currency: str = "USD"
    remote_root: str | None = None
    python: str = "python3"
    stop_command: tuple[str, ...] | None = None
    stall_after_s: int = 600
    idle_alarm_after_s: int = 1800
    auto_stop: bool = False
    host_stop_command: tuple[str, ...] | None = None
    slots: int | None = None

    def root(self, project: Path) -> str:
        """The project directory on the host (the executor's default when none is set)."""
        return self.remote_root or f"rgt/{Path(project).resolve().name}"


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


def add_host_options(parser) -> None:
    """The ``--hosts`` and ``--ssh-config`` options every host-facing verb takes."""
    parser.add_argument("--hosts", default=str(DEFAULT_PATH), help="the hosts file")
    parser.add_argument("--ssh-config", help="ssh_config file instead of ~/.ssh/config")


def validate_hosts(data: Any, path: Path) -> dict[str, HostEntry]:
    """Check parsed ``data`` against the schema; ``path`` names the file in every message."""
    from jsonschema import Draft202012Validator

    from rgt.config.messages import describe

    errors = sorted(Draft202012Validator(schema()).iter_errors(data),
                    key=lambda error: list(map(str, error.absolute_path)))
    if errors:
        described = [describe(_deepest(error)) for error in errors[:5]]
        problems = "\n  ".join(problem for problem, _ in described)
        fixes = "; ".join(dict.fromkeys(fix for _, fix in described))
        raise ConfigError(f"{path} is invalid:\n  {problems}",
                          fixes.replace("config/config.yaml", EXAMPLE))
    return {alias: _entry(alias, fields) for alias, fields in data["hosts"].items()}


def _entry(alias: str, fields: dict) -> HostEntry:
    values = dict(fields)
    for key in ("stop_command", "host_stop_command"):
        if values.get(key) is not None:
            values[key] = tuple(values[key])
    return HostEntry(alias=alias, **values)


def _deepest(error):
    while error.context:
        error = max(error.context, key=lambda candidate: len(candidate.absolute_path))
    return error
