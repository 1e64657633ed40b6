"""The project's rented hosts: ``config/hosts.yaml``, validated once, by ssh alias.

This package holds what every host-facing verb needs to register its options (light: ``rgt
--help`` imports it); ``rgt.hosts.registry`` reads and validates the file.

``~/.ssh/config`` says how to reach a host; this file says what the project needs beyond that:
its platform (whose facts live in ``config/platforms/``), its price, where the project lives on
its durable disk, and the command the user chose for stopping its meter.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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
    max_spend: float | None = None
    max_spend_per_run: float | None = None
    alarm_webhook: str | None = None

    def root(self, project: Path) -> str:
        """The project directory on the host (the executor's default when none is set)."""
        return self.remote_root or f"rgt/{Path(project).resolve().name}"


def add_host_options(parser) -> None:
    """The ``--hosts`` and ``--ssh-config`` options every host-facing verb takes."""
    parser.add_argument("--hosts", default=str(DEFAULT_PATH), help="the hosts file")
    parser.add_argument("--ssh-config", help="ssh_config file instead of ~/.ssh/config")
