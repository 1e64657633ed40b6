"""The project's rented hosts: ``config/hosts.yaml``, validated once, by ssh alias.

This package holds what every host-facing verb needs to register its options (light: ``rgt
--help`` imports it); ``rgt.hosts.registry`` reads and validates the file.

``~/.ssh/config`` says how to reach a host; this file says what the project needs beyond that:
its platform (whose facts live in ``config/platforms/``), its price, where the project lives on
its durable disk, the interpreter that runs its jobs, the ssh config that names it, and the
command the user chose for stopping its meter. It is the one record of those facts: ``rgt up``
writes them, and the executor and every verb read them from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rgt.base.errors import ConfigError

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
    ssh_config: str | None = None
    stop_command: tuple[str, ...] | None = None
    stall_after_s: int = 600
    idle_alarm_after_s: int = 1800
    auto_stop: bool = False
    host_stop_command: tuple[str, ...] | None = None
    slots: int | None = None
    max_spend: float | None = None
    max_spend_per_run: float | None = None
    alarm_webhook: str | None = None
    recorded: dict | None = None  # {"by": "rgt up", "at": UTC time}: who wrote the facts last
    given: frozenset[str] = frozenset()  # the keys the file sets (the others are defaults)

    def recorded_value(self, key: str):
        """The value the file records for ``key``; None when it leaves the key to its
        default (a hand-written entry without ``python:``, say)."""
        return getattr(self, key) if key in self.given else None

    def root(self) -> str:
        """The project directory on the host, as recorded; a refusal naming the fix when the
        record has none (a guessed root would make every verb look in the wrong place)."""
        if not self.remote_root:
            raise ConfigError(f"config/hosts.yaml records no remote_root for {self.alias}",
                              f"run `rgt up {self.alias} --platform {self.platform}`: it "
                              "records the project's directory on the host")
        return self.remote_root

    def provenance(self) -> str:
        """Who recorded the facts and when, for messages (``rgt up, 2026-12-01T10:00:00Z``)."""
        if not self.recorded:
            return "written by hand"
        return f"recorded by {self.recorded['by']}, {self.recorded['at']}"

    def ssh_config_for(self, flag: str | None) -> str | None:
        """The ssh_config to read for this host: the recorded one; ``--ssh-config`` only when
        nothing is recorded or it names the same file (else a refusal with both)."""
        if flag is None or self.ssh_config is None:
            return self.ssh_config or flag
        if Path(flag).expanduser().resolve() != Path(self.ssh_config).resolve():
            raise ConfigError(
                f"--ssh-config {flag} differs from the ssh_config config/hosts.yaml records for "
                f"{self.alias}: {self.ssh_config} ({self.provenance()})",
                f"drop --ssh-config, or record the new file with `rgt up {self.alias} "
                f"--ssh-config {flag}`")
        return self.ssh_config


def add_host_options(parser) -> None:
    """The ``--hosts`` and ``--ssh-config`` options every host-facing verb takes."""
    parser.add_argument("--hosts", default=str(DEFAULT_PATH), help="the hosts file")
    parser.add_argument("--ssh-config", help="ssh_config file instead of the one config/"
                                             "hosts.yaml records (rgt up records it)")
