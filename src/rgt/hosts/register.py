"""Recording a host's facts in ``config/hosts.yaml``: the one record every verb reads.

``rgt up`` (and the executor, for a host it is the first to reach) writes the facts it owns —
platform, interpreter, remote root, ssh config — with who wrote them and when. The file stays
the user's: an entry is edited in place, line by line, so comments, order and the keys the user
added by hand (price, stop command, watchdog limits) are kept; the file is validated again and
put back as it was when the edit would not validate.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path

import yaml

from rgt.base.clock import utc_now
from rgt.base.errors import ConfigError
from rgt.base.files import write_text
from rgt.hosts import HostEntry
from rgt.hosts.registry import load_hosts

HEADER = ("# Rented hosts of this project, by ~/.ssh/config alias (schema: src/rgt/hosts/"
          "schema.yaml;\n# every key: config/hosts.example.yaml). `rgt up ALIAS` records a host "
          "it reached.\n# Per machine and per rental, so git-ignored.\nhosts:\n")
OWNED = ("platform", "python", "remote_root", "ssh_config")  # the facts rgt up records
_RECORDING = threading.Lock()


@dataclass(frozen=True)
class Change:
    """One recorded fact that changed: ``old`` is None for a fact recorded the first time."""

    key: str
    old: object
    new: object

    def describe(self) -> str:
        return (f"{self.key}: {self.new}" if self.old is None
                else f"{self.key}: {self.old} -> {self.new}")


def record_host(path: str | Path, alias: str, facts: dict[str, object], by: str) -> list[Change]:
    """Write ``facts`` for ``alias`` (adding the host if absent), stamped ``recorded: {by,
    at}``; the facts that changed (none: the record already said all of it, and nothing is
    written)."""
    # The pool's threads record their hosts at once: each edit reads the file another made.
    with _RECORDING:
        return _record(Path(path), alias, facts, by)


def _record(path: Path, alias: str, facts: dict[str, object], by: str) -> list[Change]:
    known = load_hosts(path).get(alias)
    changes = _changes(known, facts)
    if not changes:
        return []
    before = path.read_text() if path.is_file() else HEADER
    stamp = {"by": by, "at": utc_now()}
    values = {change.key: change.new for change in changes} | {"recorded": stamp}
    if known is None:
        text = _appended(before, alias, {**facts, "recorded": stamp})
    else:
        text = _edited(before, alias, values) or _rewritten(before, alias, values)
    write_text(path, text)
    try:
        load_hosts(path)
    except ConfigError as error:
        write_text(path, before)
        raise ConfigError(f"could not record {alias} in {path}: {error.message}",
                          f"edit it by hand under hosts: {alias}: ({', '.join(facts)})") from None
    return changes


def _changes(known: HostEntry | None, facts: dict[str, object]) -> list[Change]:
    if known is None:
        return [Change(key, None, value) for key, value in facts.items()]
    return [Change(key, known.recorded_value(key), value)
            for key, value in facts.items() if known.recorded_value(key) != value]


def _value(value: object) -> str:
    """One YAML scalar or flow collection, as it would be written by hand."""
    return yaml.safe_dump(value, default_flow_style=True, allow_unicode=True,
                          width=1 << 16).strip().removesuffix("...").strip()


def _appended(before: str, alias: str, values: dict[str, object]) -> str:
    entry = f"  {alias}:\n" + "".join(f"    {key}: {_value(value)}\n"
                                      for key, value in values.items())
    return before + ("" if before.endswith("\n") else "\n") + entry


def _rewritten(before: str, alias: str, values: dict[str, object]) -> str:
    """The whole file written again with ``values`` set for ``alias``: for a file whose entry
    is no block of key lines (JSON, or YAML in flow style), which holds no comments to keep."""
    data = yaml.safe_load(before)
    data["hosts"][alias] = {**data["hosts"][alias], **values}
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def _edited(before: str, alias: str, values: dict[str, object]) -> str | None:
    """``before`` with each key of ``values`` set in ``alias``'s block: its line replaced, or
    a line added under the alias; None when the entry is no such block."""
    lines = before.splitlines(keepends=True)
    found = _block_start(lines, alias)
    if found is None:
        return None
    start, indent = found
    end = _block_end(lines, start, indent)
    child = _child_indent(lines[start + 1:end], indent)
    for key, value in values.items():
        line = f"{child}{key}: {_value(value)}\n"
        found = next((index for index in range(start + 1, end)
                      if re.match(rf"{child}{re.escape(key)}\s*:", lines[index])), None)
        if found is None:
            lines.insert(start + 1, line)
            end += 1
        else:
            lines[found] = line
    return "".join(lines)


def _block_start(lines: list[str], alias: str) -> tuple[int, str] | None:
    for index, line in enumerate(lines):
        match = re.match(rf"(\s+){re.escape(alias)}\s*:\s*(#.*)?$", line)
        if match:
            return index, match[1]
    return None


def _block_end(lines: list[str], start: int, indent: str) -> int:
    for index in range(start + 1, len(lines)):
        text = lines[index]
        if text.strip() and not text.lstrip().startswith("#") and \
                len(text) - len(text.lstrip()) <= len(indent):
            return index
    return len(lines)


def _child_indent(block: list[str], indent: str) -> str:
    for text in block:
        if text.strip() and not text.lstrip().startswith("#"):
            return text[:len(text) - len(text.lstrip())]
    return indent + "  "
