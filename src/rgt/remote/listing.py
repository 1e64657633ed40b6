"""What is on the remote side: one command lists real paths, sizes and sha256s of files.

The listing commands only print; ``parse.py`` turns their output into data.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from rgt.remote.parse import (
    marker,
    parse_escapes,
    parse_sha256sum,
    parse_stat_sizes,
    split_sections,
)
from rgt.remote.ssh import RemoteHost
from rgt.remote.streams import SHA256_SETUP


def quoted(paths: Sequence[str]) -> str:
    """``paths`` as shell words."""
    return " ".join(shlex.quote(path) for path in paths)


def listing(host: RemoteHost, root: str, commands: list[str], create: bool = False
            ) -> dict[str, list[str]]:
    """Run listing ``commands`` in ``root`` as one remote command; return its sections.

    A missing ``root`` lists nothing, unless ``create`` makes it first.
    """
    root_word = shlex.quote(root)
    enter = (f"mkdir -p -- {root_word} && cd -- {root_word} || exit 1" if create
             else f"cd -- {root_word} 2>/dev/null || exit 0")
    result = host.run("; ".join([SHA256_SETUP, enter, *commands, "exit 0"]), timeout=3600)
    return split_sections(result.stdout)


def size_and_hash_commands(sized: Sequence[str], hashed: Sequence[str]) -> list[str]:
    """Listing commands for the sizes of ``sized`` and the sha256 of ``hashed`` (if any)."""
    commands = [marker("size"), f"stat -L --printf '%s %n\\n' -- {quoted(sized)} 2>/dev/null"]
    if hashed:
        commands += [marker("sha256"), f"$SHA256 -- {quoted(hashed)} 2>/dev/null"]
    return commands


@dataclass(frozen=True)
class RemoteFiles:
    """Sizes of the surveyed paths that exist, hashes of those asked for, and the paths whose
    real location lies outside the root."""

    sizes: dict[str, int]
    hashes: dict[str, str]
    escapes: list[str]


def survey(host: RemoteHost, root: str, sized: list[str], hashed: list[str],
           create: bool = False) -> RemoteFiles:
    """Real paths and sizes of ``sized`` and sha256 of ``hashed`` under ``root``: one command."""
    commands = [marker("real"), f"realpath -m -- . {quoted(sized)}",
                *size_and_hash_commands(sized, hashed)]
    sections = listing(host, root, commands, create=create)
    real = sections.get("real")
    return RemoteFiles(parse_stat_sizes(sections.get("size", [])),
                       parse_sha256sum(sections.get("sha256", [])),
                       parse_escapes(sized, real) if real else [])
