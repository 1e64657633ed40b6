"""Registering a host in ``config/hosts.yaml`` once, when ``rgt up`` first reaches it.

The entry is appended as text (the user's comments and order stay) and the file is validated
again; an entry already there is never touched: the user's edits win.
"""

from __future__ import annotations

from pathlib import Path

from rgt.base.errors import ConfigError
from rgt.base.files import write_text
from rgt.hosts.registry import load_hosts

HEADER = ("# Rented hosts of this project, by ~/.ssh/config alias (schema: src/rgt/hosts/"
          "schema.yaml;\n# every key: config/hosts.example.yaml). `rgt up ALIAS` adds a host "
          "it reached.\n# Per machine and per rental, so git-ignored.\nhosts:\n")


def register_host(path: str | Path, alias: str, fields: dict[str, str]) -> bool:
    """Add ``alias`` with ``fields`` (platform, python, remote_root) unless it is registered;
    True when it was added."""
    path = Path(path)
    if alias in load_hosts(path):
        return False
    before = path.read_text() if path.is_file() else HEADER
    entry = f"  {alias}:\n" + "".join(f"    {key}: {value}\n" for key, value in fields.items())
    write_text(path, before + ("" if before.endswith("\n") else "\n") + entry)
    try:
        load_hosts(path)
    except ConfigError as error:
        write_text(path, before)
        raise ConfigError(f"could not add {alias} to {path}: {error.message}",
                          f"add it by hand under hosts: ({', '.join(fields)})") from None
    return True
