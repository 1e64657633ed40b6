"""Pure parsers for what remote commands print: no I/O, each tested on captured real output.

One remote command may print several listings, each opened by a marker line ``--NAME--``
(``echo --NAME--``); no listing line can look like one (sizes start with a digit, hashes with 64
hex digits, real paths with ``/``). Listings are one file per line, so transfer paths may not
hold a newline, a carriage return or a backslash (``sha256sum`` escapes those, ``openssl`` does
not): ``rgt.remote.transfer.validate_relpath`` refuses them.
"""

from __future__ import annotations

import re

_MARKER = re.compile(r"--([a-z0-9]+)--")
_SHA256_LINE = re.compile(r"([0-9a-f]{64}) [ *](.+)")


def marker(name: str) -> str:
    """The shell command that opens section ``name`` in a command's output."""
    return f"echo --{name}--"


def split_sections(output: str) -> dict[str, list[str]]:
    """Split marker-delimited output into ``{section name: non-empty lines}``.

    Lines before the first marker are ignored; a section that printed nothing maps to ``[]``.
    """
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in output.split("\n"):
        opened = _MARKER.fullmatch(line)
        if opened:
            current = sections.setdefault(opened.group(1), [])
        elif current is not None and line:
            current.append(line)
    return sections


def parse_stat_sizes(lines: list[str]) -> dict[str, int]:
    """``stat --printf '%s %n\\n'`` lines -> ``{name: bytes}``."""
    sizes = {}
    for line in lines:
        size, space, name = line.partition(" ")
        if not (space and size.isdigit() and name):
            raise ValueError(f"not a 'SIZE NAME' stat line: {line!r}")
        sizes[name] = int(size)
    return sizes


def parse_sha256sum(lines: list[str], prefix: str = "") -> dict[str, str]:
    """``sha256sum`` (``HASH  NAME``) or ``openssl dgst -sha256 -r`` (``HASH *NAME``) lines ->
    ``{name: hex digest}``, with ``prefix`` removed from the front of each name."""
    hashes = {}
    for line in lines:
        matched = _SHA256_LINE.fullmatch(line)
        if not matched:
            raise ValueError(f"not a sha256sum line: {line!r}")
        hashes[matched.group(2).removeprefix(prefix)] = matched.group(1)
    return hashes


def sha256_printed(output: str, name: str) -> str | None:
    """The digest printed for ``name`` in sha256 ``output`` (other lines, such as errors, are
    ignored); ``None`` when there is none."""
    lines = [line for line in output.splitlines() if line[64:] in (f" *{name}", f"  {name}")]
    return parse_sha256sum(lines).get(name)


def parse_manifest(sizes: list[str], hashes: list[str], hashed_prefix: str = ""
                   ) -> dict[str, tuple[int, str]]:
    """Join stat and sha256 lines: ``{name: (bytes, sha256)}`` for names in both.

    ``hashed_prefix`` is removed from hashed names first (``find -exec`` passes ``./NAME``).
    """
    by_size, by_hash = parse_stat_sizes(sizes), parse_sha256sum(hashes, hashed_prefix)
    return {name: (by_size[name], by_hash[name]) for name in by_hash if name in by_size}


def parse_escapes(paths: list[str], realpath_lines: list[str]) -> list[str]:
    """The ``paths`` that ``realpath -m -- . PATHS...`` resolved outside ``.`` (symlink escapes).

    The first line is the root's own real path; the others follow ``paths`` in order.
    """
    if len(realpath_lines) != len(paths) + 1:
        raise ValueError(f"realpath printed {len(realpath_lines)} lines for "
                         f"{len(paths) + 1} paths")
    inside = realpath_lines[0].rstrip("/") + "/"
    return [path for path, real in zip(paths, realpath_lines[1:], strict=True)
            if not real.startswith(inside)]
