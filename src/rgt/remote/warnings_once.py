"""The platform's danger clocks, shown the first time a host of that platform is used.

Renting is where money and data are lost: a stop that still bills, an instance released after
N days. The user sees these until the host is first reached (then recorded in
``.rgt/seen-hosts.json``: a mistyped alias is never recorded), plus a warning whenever a money
fact the tool relies on is older than six months.
"""

from __future__ import annotations

import json
import threading
from datetime import date
from pathlib import Path

from rgt.base.files import write_json
from rgt.platforms.facts import danger_clocks, load_platform, project_platforms, stale_facts

SEEN_FILE = Path(".rgt/seen-hosts.json")
# A pool reaches its hosts from a thread each: their read-modify-writes of SEEN_FILE take turns
# (else one host's entry is lost; each writer's temp file is its own: rgt.base.files).
_SEEN_LOCK = threading.Lock()


def first_use_warnings(project: Path, platform_name: str, host: str,
                       today: date | None = None) -> list[str]:
    """Lines to show before using ``host`` (empty after its first use, but for stale facts)."""
    platform = load_platform(platform_name, project_platforms(project))
    stale = [f"{platform['display_name']}: the fact '{path}' was verified more than six months "
             "ago; re-check it in the provider's documentation before relying on it"
             for path in stale_facts(platform, today or date.today())]
    if host in _read(project / SEEN_FILE):
        return stale
    return [f"first use of {host} ({platform['display_name']}):", *danger_clocks(platform),
            *stale]


def remember_host(project: Path, host: str, platform_name: str) -> None:
    """``host`` was reached: its danger clocks are not shown again."""
    with _SEEN_LOCK:
        seen = _read(project / SEEN_FILE)
        if seen.get(host) != platform_name:
            write_json(project / SEEN_FILE, {**seen, host: platform_name})


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
