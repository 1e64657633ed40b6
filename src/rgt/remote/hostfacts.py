"""A host's facts as the executor and the verbs use them: ``config/hosts.yaml``'s record.

The record is the one source of a host's platform, interpreter, remote root and ssh config.
A value given on the command line or in a profile either fills what the record lacks (and is
then recorded, stamped with where it came from) or equals it; a value that differs is refused
with both values and the fix — never preferred by one verb and ignored by another.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path

from rgt.base.errors import ConfigError
from rgt.hosts import HostEntry
from rgt.hosts.register import OWNED
from rgt.remote.ssh import RemoteHost

# Each recorded fact, and the executor setting that may name it.
SETTINGS = {"platform": "rgt-platform", "python": "rgt-python", "remote_root": "rgt-remote-root",
            "ssh_config": "rgt-ssh-config"}


def default_root(platform: dict, project: Path) -> str:
    """Where a project lives on a host when nobody chose: ``<durable dir>/rgt/<project dir>``
    from the platform's facts, else under the login directory (``~/rgt/<project dir>``)."""
    base = (platform.get("durable_dir") or "~").rstrip("/")
    return f"{base}/rgt/{Path(project).resolve().name}"


def root_origin(platform: dict) -> str:
    """Where ``default_root`` took its base from, in words."""
    if platform.get("durable_dir"):
        return f"the platform's durable dir {platform['durable_dir']}"
    return "the login directory (the platform's facts name no durable dir)"


def absolute_on_host(host: RemoteHost, root: str) -> str:
    """``root`` as an absolute path on ``host``: ``~``, ``~/x`` and relative paths are taken
    from the login directory there (never quoted into a literal ``~`` directory)."""
    if root.startswith("/"):
        return root.rstrip("/") or "/"
    home = host.run("cd && pwd", timeout=60).stdout.strip().splitlines()[-1]
    rest = root[1:].lstrip("/") if root.startswith("~") else root
    return f"{home.rstrip('/')}/{rest}".rstrip("/") if rest else home


def make_root(host: RemoteHost, root: str) -> None:
    """Create the absolute ``root`` on the host (and its parents)."""
    host.run(f"mkdir -p {shlex.quote(root)}", timeout=60)


def absolute_ssh_config(path: str | None) -> str | None:
    """An ssh_config file as the absolute path the record keeps."""
    return str(Path(path).expanduser().resolve()) if path else None


def settle(alias: str, entry: HostEntry | None, wanted: dict[str, str | None],
           default_platform: str = "ssh") -> HostEntry:
    """The facts to use for ``alias``: the record's, with ``wanted`` (the executor's settings,
    None where unset) filling what it lacks.

    Raises:
        ConfigError: a wanted value differs from the recorded one (both named, with the fix).
    """
    wanted = {**wanted, "ssh_config": absolute_ssh_config(wanted.get("ssh_config"))}
    if entry is None:
        given = {key: value for key, value in wanted.items() if value is not None}
        return HostEntry(alias, **{"platform": default_platform, **given})
    for key, value in wanted.items():
        recorded = entry.recorded_value(key)
        if value is not None and recorded is not None and value != recorded:
            raise ConfigError(
                f"--{SETTINGS[key]} (the profile or the command line) is {value}, but "
                f"config/hosts.yaml records {key} {recorded} for {alias} ({entry.provenance()})",
                f"drop --{SETTINGS[key]} (and `{SETTINGS[key]}:` from the profile) to use the "
                f"record, or record the new value: `rgt up {alias} --{_up_flag(key)} {value}`")
    filled = {key: value for key, value in wanted.items()
              if value is not None and entry.recorded_value(key) is None}
    return replace(entry, **filled)


def _up_flag(key: str) -> str:
    return {"remote_root": "root", "ssh_config": "ssh-config"}.get(key, key)


def owned_facts(entry: HostEntry) -> dict[str, str]:
    """The facts ``rgt up`` records, as they are to be written (unset ones left out)."""
    facts = {key: getattr(entry, key) for key in OWNED}
    return {key: value for key, value in facts.items() if value is not None}
