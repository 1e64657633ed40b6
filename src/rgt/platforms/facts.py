"""Platform facts as data: load and validate ``config/platforms/<name>.yaml``, judge staleness.

A platform file says where a rented host keeps data that survives a stop, which verb stops the
meter and what it destroys, what a "stop" still bills, and which clocks run against the user.
Each money-affecting fact carries ``verified: YYYY-MM``; a fact older than six months is flagged,
never silently trusted.
"""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator

from rgt.base.errors import ConfigError
from rgt.base.schema_messages import describe, dotted
from rgt.base.yaml_files import read_yaml

SCHEMA_PATH = Path(__file__).with_name("schema.yaml")
DEFAULT_ROOT = Path("config/platforms")
# The facts shipped with rgt, for a project of the user's own that keeps none.
BUNDLED_ROOT = Path(__file__).resolve().parents[3] / "config" / "platforms"
EXAMPLE = "config/platforms/ssh.yaml"
NAME = re.compile(r"[a-z][a-z0-9_]*")  # also keeps a name from reaching outside root


@lru_cache(maxsize=1)
def schema() -> dict:
    """The JSON Schema of a platform file."""
    return yaml.safe_load(SCHEMA_PATH.read_text())


def project_platforms(project: Path) -> Path:
    """The platform files of ``project`` (``config/platforms``), else the ones rgt ships."""
    root = Path(project) / DEFAULT_ROOT
    return root if root.is_dir() else BUNDLED_ROOT


def known_platforms(root: Path = DEFAULT_ROOT) -> list[str]:
    """Names of the platform files under ``root`` (sorted)."""
    return sorted(path.stem for path in Path(root).glob("*.yaml"))


def load_platform(name: str, root: Path = DEFAULT_ROOT) -> dict:
    """Read and validate one platform's facts.

    Args:
        name: the platform name, e.g. ``autodl`` (the file ``<root>/<name>.yaml``).
        root: the directory of platform files.

    Raises:
        ConfigError: the platform is unknown (listing the known ones) or its file is invalid
            (naming the file, the key, the value and the fix).
    """
    path = Path(root) / f"{name}.yaml"
    if not NAME.fullmatch(name) or not path.is_file():
        known = ", ".join(known_platforms(root)) or f"none: {root} holds no *.yaml"
        raise ConfigError(f"unknown platform {name!r} (known: {known})",
                          f"use one of the known platforms, or add {path} (copy {EXAMPLE})")
    return validate_platform(read_yaml(path), path)


def load_all(root: Path = DEFAULT_ROOT) -> dict[str, dict]:
    """Every platform under ``root``, validated, by name; the first invalid file raises."""
    return {name: load_platform(name, root) for name in known_platforms(root)}


def check_all(root: Path = DEFAULT_ROOT) -> list[ConfigError]:
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
