"""Which Snakemake profile ``rgt run PROFILE`` means, and the Snakemake command it runs."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from rgt.base.errors import ConfigError, RgtError


def user_profile_dirs() -> list[Path]:
    """Where Snakemake looks up a profile given by name (its user and site config folders)."""
    config_home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    site = os.environ.get("XDG_CONFIG_DIRS") or "/etc/xdg"
    return [Path(config_home) / "snakemake",
            *(Path(base) / "snakemake" for base in site.split(":") if base)]


def resolve_profile(profile: str, project: Path) -> str:
    """What to give ``snakemake --profile``: the project's ``profiles/<name>`` when it exists
    (works without installing profiles), a profile folder path, or a name Snakemake finds in
    its config folders. ``ConfigError`` naming PROFILE and the choices otherwise."""
    project = Path(project)
    if profile and "/" not in profile and (project / "profiles" / profile).is_dir():
        return str((project / "profiles" / profile).resolve())
    if profile and (project / profile).is_dir():
        return str((project / profile).resolve())
    if profile and "/" not in profile and any((base / profile).is_dir()
                                              for base in user_profile_dirs()):
        return profile
    raise ConfigError(
        f"rgt run: PROFILE {profile!r} is not a profile: no folder profiles/{profile} in "
        f"{project}, no folder {profile!r}, and none in "
        f"{', '.join(str(base) for base in user_profile_dirs())}",
        fix=f"give a profile name from profiles/ ({', '.join(known_profiles(project)) or 'none'})"
            " or the path of a folder holding a Snakemake profile's config.yaml")


def known_profiles(project: Path) -> list[str]:
    """The names of the project's bundled profiles."""
    folder = Path(project) / "profiles"
    return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def snakemake_executable() -> str:
    """The ``snakemake`` next to this interpreter (the same environment as ``rgt``), else the
    one on PATH."""
    beside = Path(sys.executable).parent / "snakemake"
    if beside.exists():
        return str(beside)
    found = shutil.which("snakemake")
    if found is None:
        raise RgtError("snakemake is not installed in this environment nor on PATH",
                       fix=f"{sys.executable} -m pip install snakemake")
    return found


def snakemake_argv(profile: str, targets: list[str], extra: list[str]) -> list[str]:
    """The controller's command line."""
    return [snakemake_executable(), "--profile", profile, *targets, *extra]


def split_targets(rest: list[str]) -> tuple[list[str], list[str]]:
    """``TARGET... [--] [snakemake options...]`` into targets and extra Snakemake arguments.

    Targets are files or rule names and never start with ``-``; the first word that does (or
    ``--``) starts the options passed through to Snakemake.
    """
    for index, word in enumerate(rest):
        if word == "--":
            return rest[:index], rest[index + 1:]
        if word.startswith("-"):
            return rest[:index], rest[index:]
    return list(rest), []
