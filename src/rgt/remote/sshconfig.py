"""Resolve an OpenSSH client-config alias into the facts needed to connect (pure: no network)."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

import paramiko

from rgt.base.errors import ConfigError


@dataclass(frozen=True)
class HostSpec:
    """Resolved connection facts for one host alias."""

    alias: str
    hostname: str
    port: int
    user: str
    identity_files: tuple[str, ...]
    proxy_jump: str | None
    known_hosts: tuple[str, ...]
    jump: HostSpec | None = None
    """The resolved ``proxy_jump`` host (one hop), when there is one."""
    config_file: str = "~/.ssh/config"
    """The ssh config this was resolved through (named when the host cannot be found)."""
    in_config: bool = True
    """Whether a ``Host`` block of ``config_file`` names the alias."""


def resolve_host(alias: str, ssh_config: str | Path | None = None) -> HostSpec:
    """Resolve ``alias`` through an OpenSSH client config (default ``~/.ssh/config``).

    Honours HostName, Port, User, IdentityFile, ProxyJump (one hop, resolved the same way) and
    UserKnownHostsFile. Defaults: port 22, user ``$USER`` (else root), ``~/.ssh/known_hosts``.

    Raises:
        ConfigError: ``ssh_config`` was given but does not exist, or ProxyJump has several hops.
    """
    spec = _lookup(load_config(ssh_config), alias, seen=())
    return replace(spec, config_file=str(ssh_config or "~/.ssh/config"))


def load_config(ssh_config: str | Path | None) -> paramiko.SSHConfig:
    """The parsed ssh config (``~/.ssh/config`` by default; empty when that is absent)."""
    path = Path(ssh_config or "~/.ssh/config").expanduser()
    if ssh_config is not None and not path.is_file():
        raise ConfigError(f"ssh config {path} does not exist", fix="pass an existing ssh_config")
    return paramiko.SSHConfig.from_path(str(path)) if path.is_file() else paramiko.SSHConfig()


def _lookup(config: paramiko.SSHConfig, alias: str, seen: tuple[str, ...],
            user: str | None = None, port: str | None = None) -> HostSpec:
    if alias in seen:
        raise ConfigError(f"ProxyJump loop through {' -> '.join((*seen, alias))}",
                          fix="fix the ProxyJump lines in your ssh config")
    entry = config.lookup(alias)
    jump = entry.get("proxyjump")
    jump = None if jump is None or jump.lower() == "none" else jump
    known = entry.get("userknownhostsfile", "~/.ssh/known_hosts").split()
    spec = HostSpec(alias=alias, hostname=entry.get("hostname", alias),
                    port=int(port or entry.get("port", 22)),
                    user=user or entry.get("user") or os.environ.get("USER") or "root",
                    identity_files=_expand(entry.get("identityfile", [])),
                    proxy_jump=jump, known_hosts=_expand(known),
                    in_config=alias in config.get_hostnames())
    return replace(spec, jump=lookup_jump(config, jump, (*seen, alias)) if jump else None)


def lookup_jump(config: paramiko.SSHConfig, value: str, seen: tuple[str, ...]) -> HostSpec:
    """Resolve a ProxyJump value ``[ssh://][user@]host[:port]`` (one hop only)."""
    if "," in value:
        raise ConfigError(f"ProxyJump {value!r} has several hops; rgt supports one",
                          fix="give the jump host its own ProxyJump line in the ssh config")
    user, _, host = value.removeprefix("ssh://").rpartition("@")
    host, _, port = host.partition(":") if host.count(":") == 1 else (host, "", "")
    return _lookup(config, host, seen, user=user or None, port=port or None)


def _expand(paths: list[str]) -> tuple[str, ...]:
    return tuple(os.path.expanduser(path) for path in paths)
