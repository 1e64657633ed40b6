"""Platform facts as data: load and validate ``<name>.yaml``, judge staleness.

A platform file says where a rented host keeps data that survives a stop, which verb stops the
meter and what it destroys, what a "stop" still bills, and which clocks run against the user.
Each money-affecting fact carries ``verified: YYYY-MM``; a fact older than six months is flagged,
never silently trusted.

The facts ship with the package (``rgt.base.shipped``: the repository's ``config/platforms/``,
in a wheel ``rgt/workflow/config/platforms/``), so every verb works in any project; a project's
own ``config/platforms/<name>.yaml`` overrides the shipped file of that name (a platform of its
own, or a fact it re-checked).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator

from rgt.base.errors import ConfigError
from rgt.base.schema_messages import describe, dotted
from rgt.base.shipped import shipped
from rgt.base.yaml_files import read_yaml

SCHEMA_PATH = Path(__file__).with_name("schema.yaml")
PROJECT_ROOT = Path("config/platforms")  # a project's own files, relative to the project
EXAMPLE = "config/platforms/ssh.yaml"
NAME = re.compile(r"[a-z][a-z0-9_]*")  # also keeps a name from reaching outside root
# Where to look: one directory, or several searched in order (the first file of a name wins).
Roots = Path | str | Sequence[Path]


def shipped_platforms() -> Path:
    """The directory of the platform files rgt ships."""
    return shipped("config", "platforms")


def project_platforms(project: Path | str = ".") -> tuple[Path, ...]:
    """Where a project's platforms come from: its own ``config/platforms/`` first (a file
    there overrides the shipped one of that name), then the files rgt ships."""
    return Path(project) / PROJECT_ROOT, shipped_platforms()


def _roots(root: Roots | None) -> tuple[Path, ...]:
    if root is None:
        return project_platforms()
    if isinstance(root, str | Path):
        return (Path(root),)
    return tuple(Path(directory) for directory in root)


def platform_file(name: str, root: Roots | None = None) -> Path | None:
    """The file that describes platform ``name`` (the first of the roots that has one)."""
    if not NAME.fullmatch(name):
        return None
    return next((path for directory in _roots(root)
                 if (path := directory / f"{name}.yaml").is_file()), None)


@lru_cache(maxsize=1)
def schema() -> dict:
    """The JSON Schema of a platform file."""
    return yaml.safe_load(SCHEMA_PATH.read_text())


def known_platforms(root: Roots | None = None) -> list[str]:
    """Names of the platform files under the roots (default: the project's and the shipped
    ones), sorted."""
    return sorted({path.stem for directory in _roots(root) for path in directory.glob("*.yaml")
                   if NAME.fullmatch(path.stem)})


def load_platform(name: str, root: Roots | None = None) -> dict:
    """Read and validate one platform's facts.

    Args:
        name: the platform name, e.g. ``autodl`` (the file ``<root>/<name>.yaml``).
        root: a directory of platform files, or several searched in order; default: the
            project's ``config/platforms/``, then the files rgt ships.

    Raises:
        ConfigError: the platform is unknown (listing the known ones) or its file is invalid
            (naming the file, the key, the value and the fix).
    """
    path = platform_file(name, root)
    if path is None:
        roots = _roots(root)
        known = ", ".join(known_platforms(roots)) or \
            f"none: {' and '.join(map(str, roots))} hold no *.yaml"
        own = roots[0] / (f"{name}.yaml" if NAME.fullmatch(name) else "NAME.yaml")
        raise ConfigError(f"unknown platform {name!r} (known: {known})",
                          f"use one of the known platforms, or describe yours in {own} (start "
                          f"from a copy of {shipped_platforms() / 'ssh.yaml'})")
    return validate_platform(read_yaml(path), path)


def load_all(root: Roots | None = None) -> dict[str, dict]:
    """Every platform under the roots, validated, by name; the first invalid file raises."""
    return {name: load_platform(name, root) for name in known_platforms(root)}


def check_all(root: Roots | None = None) -> list[ConfigError]:
    """Validate every platform file and return all the problems (empty when all are valid)."""
    problems = []
    for name in known_platforms(root):
        try:
            load_platform(name, root)
        except ConfigError as error:
            problems.append(error)
    return problems


def validate_platform(data: Any, path: Path) -> dict:
    """Check parsed ``data`` against the schema; ``path`` names the file in every message."""
    errors = sorted(Draft202012Validator(schema()).iter_errors(data),
                    key=lambda error: list(map(str, error.absolute_path)))
    if errors:
        described = [_describe(error) for error in errors[:5]]
        problems = "\n  ".join(problem for problem, _ in described)
        fixes = "; ".join(dict.fromkeys(fix for _, fix in described))
        raise ConfigError(f"{path} is invalid:\n  {problems}", fixes)
    if data["name"] != path.stem:
        raise ConfigError(f"{path}: name = {data['name']!r} differs from the file name",
                          f"set name: {path.stem} (or rename the file)")
    return data


def _describe(error) -> tuple[str, str]:
    error = _deepest(error)
    where = dotted(error.absolute_path)
    if where.endswith("verified"):
        return (f"{where} = {error.instance!r} is not a month stamp (expected YYYY-MM)",
                f"set {where} to the month you last checked the fact, as YYYY-MM (e.g. 2026-06)")
    problem, fix = describe(error)
    # The shared messages point at the project config; point at a platform example instead.
    return problem, fix.replace("the config file", "the platform file").replace(
        "config/config.yaml", EXAMPLE)


def _deepest(error):
    while error.context:
        error = max(error.context, key=lambda candidate: len(candidate.absolute_path))
    return error


def stale_facts(platform: dict, today: date, months: int = 6) -> list[str]:
    """Dotted paths of the ``verified`` stamps older than ``months`` before ``today``."""
    return [path for path, stamp in _stamps(platform)
            if _age_in_months(stamp, today) > months]


def _stamps(node: Any, prefix: str = ""):
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        path = f"{prefix}{key}"
        if key == "verified" and isinstance(value, str):
            yield path, value
        else:
            yield from _stamps(value, f"{path}.")


def _age_in_months(stamp: str, today: date) -> int:
    year, month = (int(part) for part in stamp.split("-"))
    return (today.year - year) * 12 + (today.month - month)


def danger_clocks(platform: dict) -> list[str]:
    """Sentences naming what keeps costing money or destroys data on this platform."""
    name, stop = platform["display_name"], platform["meter_stop"]
    clocks = [_with_period(stop["trap"][:1].upper() + stop["trap"][1:])]
    days = platform["auto_release"]["after_days"]
    if days is not None:
        clocks.append(f"{name} auto-releases a stopped instance after {days} days, deleting its "
                      "disks: pull and verify before then, or restart it.")
    if stop["still_bills"]:
        clocks.append(f"What a stop still bills on {name}: {_with_period(stop['still_bills'])}")
    if stop["irreversible"]:
        clocks.append(f"The meter stop on {name}, '{stop['verb']}', is irreversible; it "
                      f"destroys {_with_period(stop['destroys'])}")
    return clocks


def _with_period(text: str) -> str:
    return text if text.endswith(".") else f"{text}."
