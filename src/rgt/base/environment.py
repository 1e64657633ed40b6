"""Facts about where and with what code a run executed: git state and package versions."""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path

DEFAULT_PACKAGES = ("torch", "numpy", "scikit-learn", "remote-gpu-trainer")


def git_state(root: str | Path = ".") -> tuple[str | None, bool | None]:
    """(commit sha, dirty flag) of the git work tree at ``root``; (None, None) outside git."""
    try:
        commit = _git(root, "rev-parse", "HEAD")
        # Untracked files (fresh outputs) do not make the code dirty; --no-optional-locks never
        # takes index.lock, which would race a concurrent commit.
        dirty = bool(_git(root, "--no-optional-locks", "status", "--porcelain",
                          "--untracked-files=no"))
    except (OSError, subprocess.CalledProcessError):
        return None, None
    return commit, dirty


def code_state(directory: str | Path, paths: tuple[str, ...] = (".",)
               ) -> tuple[str | None, bool | None]:
    """(the last commit that changed the code under ``directory`` — or only its ``paths`` —,
    whether that code has uncommitted changes); (None, None) outside git.

    Unlike ``git_state``, committing other files (the delivery files a rebuild writes) changes
    neither, so a rebuild from the same inputs and code records the same code.
    """
    try:
        commit = _git(directory, "log", "-1", "--format=%H", "--", *paths)
        dirty = bool(_git(directory, "--no-optional-locks", "status", "--porcelain",
                          "--untracked-files=no", "--", *paths))
    except (OSError, subprocess.CalledProcessError):
        return None, None
    return commit or None, dirty if commit else None


def _git(root: str | Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                          text=True, timeout=30).stdout.strip()


def package_versions(names: tuple[str, ...] = DEFAULT_PACKAGES) -> dict[str, str | None]:
    """Installed versions of ``names`` plus the Python version (None when not installed)."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions
