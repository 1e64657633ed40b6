"""Which hosts form the pool and how many jobs each takes at once.

``--rgt-host boxA,boxB,boxC`` names them directly; ``--rgt-pool FILE`` names a hosts file (the
schema of ``config/hosts.yaml``) whose every host joins. A host's slots come from its
``slots`` entry, else from its phase-0 audit (one per GPU, at least one).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from rgt.base.errors import ConfigError
from rgt.hosts import HostEntry
from rgt.hosts.registry import load_hosts

ALIAS = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@dataclass(frozen=True)
class PoolHost:
    """One member of the pool: its entry (the record's, or None-filled defaults for a host not
    recorded yet), its slot count if fixed, the hosts file that records it, and whether it is
    recorded there already."""

    entry: HostEntry
    slots: int | None
    registry: Path = Path("config/hosts.yaml")
    recorded: bool = True

    @property
    def alias(self) -> str:
        return self.entry.alias


def parse_host_list(text: str | None) -> list[str]:
    """``"a,b , c"`` -> ``["a", "b", "c"]``; ConfigError naming a bad or repeated alias."""
    aliases = [part.strip() for part in (text or "").split(",") if part.strip()]
    for alias in aliases:
        if not ALIAS.fullmatch(alias):
            raise ConfigError(f"--rgt-host: {alias!r} is not an ssh alias",
                              "pass aliases from ~/.ssh/config separated by commas: a,b,c")
    repeated = sorted({alias for alias in aliases if aliases.count(alias) > 1})
    if repeated:
        raise ConfigError(f"--rgt-host names {', '.join(repeated)} more than once",
                          "name each host once; give a host more slots in the pool file")
    return aliases


def pool_hosts(host_setting: str | None, pool_file: str | None, registry: Path,
               platform: str) -> list[PoolHost]:
    """The pool: the hosts named on the command line, else every host of ``pool_file``."""
    aliases = parse_host_list(host_setting)
    if aliases and pool_file:
        raise ConfigError("both --rgt-host and --rgt-pool are set",
                          "name the hosts with one of them")
    if pool_file:
        entries = _load_pool_file(Path(pool_file))
        return [PoolHost(entry, entry.slots, Path(pool_file)) for entry in entries.values()]
    known = load_hosts(registry)
    if not aliases:
        raise _no_host(known, Path(os.path.relpath(registry)), platform)
    return [PoolHost(known[alias], known[alias].slots, registry) if alias in known
            else PoolHost(HostEntry(alias, platform), None, registry, False)
            for alias in aliases]


def _no_host(known: dict[str, HostEntry], registry: Path, platform: str) -> ConfigError:
    """The refusal of a run without a host: the registered hosts and the command to type."""
    if not known:
        return ConfigError(f"no host: pass --rgt-host ALIAS (no host is registered in "
                           f"{registry} yet)",
                           f"`rgt up ALIAS --platform {platform}` checks a host and registers "
                           f"it, then: snakemake --profile {platform} --rgt-host ALIAS")
    listed = ", ".join(f"{alias} ({entry.platform})" for alias, entry in sorted(known.items()))
    alias = next((a for a, e in sorted(known.items()) if e.platform == platform), min(known))
    return ConfigError(f"no host: pass --rgt-host ALIAS; hosts in {registry}: {listed}",
                       f"snakemake --profile {known[alias].platform} --rgt-host {alias}   "
                       f"(or --rgt-host a,b for a pool, --rgt-pool FILE)")


def _load_pool_file(path: Path) -> dict[str, HostEntry]:
    if not path.is_file():
        raise ConfigError(f"--rgt-pool {path}: no such file",
                          "point it at a hosts file (the format of config/hosts.yaml)")
    entries = load_hosts(path)
    if not entries:
        raise ConfigError(f"--rgt-pool {path} lists no hosts", "add hosts under hosts:")
    return entries


def audit_slots(audit: dict | None) -> int:
    """One slot per GPU the audit found; one when it found none (a CPU host)."""
    return max(1, len((audit or {}).get("gpus") or []))
