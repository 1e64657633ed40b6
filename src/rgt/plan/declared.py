"""The files a training job declares (``job.sources``, ``job.data``) and the user packages a
plug-in lives in: what a run id hashes, and what travels to a rented host.

An entry is a file, a directory (every file below it) or a glob, relative to the project root.
Bytecode caches and hidden files are left out: they never decide a result.
"""

from __future__ import annotations

import glob
import importlib.util
from collections.abc import Iterable
from pathlib import Path

from rgt.base.errors import ConfigError
from rgt.base.hashing import sha256_files

SKIPPED_PARTS = ("__pycache__",)


def declared_files(entries: Iterable[str], root: Path, key: str) -> list[Path]:
    """Every file ``entries`` name under ``root`` (sorted, unique); an entry that names no file
    is a ``ConfigError`` naming ``key`` and the entry."""
    found: set[Path] = set()
    for entry in entries:
        matches = _expand(entry, root)
        if not matches:
            raise ConfigError(f"{key}: {entry!r} names no file under {root}",
                              f"fix the path in {key} (paths are relative to the project "
                              f"root), or remove the entry")
        found.update(matches)
    return sorted(found)


def _expand(entry: str, root: Path) -> list[Path]:
    paths = [Path(p) for p in glob.glob(str(root / entry), recursive=True)]
    files = []
    for path in paths:
        candidates = path.rglob("*") if path.is_dir() else [path]
        files += [p for p in candidates if p.is_file() and _kept(p.relative_to(root))]
    return files


def _kept(relative: Path) -> bool:
    return not any(part in SKIPPED_PARTS or part.startswith(".") for part in relative.parts) \
        and relative.suffix != ".pyc"


def files_sha256(files: list[Path], root: Path) -> str:
    """One sha256 over the files' paths (relative to ``root``) and bytes ("" for no file)."""
    return sha256_files(root, files) if files else ""


def plugin_package_files(name: str) -> list[Path]:
    """Every Python file of the top-level package a ``package.module:attribute`` plug-in
    lives in (its own file when it is a top-level module): editing any module the plug-in
    imports from its package changes the run id."""
    if ":" not in name:
        return []
    top = name.split(":", 1)[0].split(".")[0]
    spec = importlib.util.find_spec(top)
    if spec is None or spec.origin is None:
        return []
    if spec.submodule_search_locations:
        package = Path(next(iter(spec.submodule_search_locations)))
        return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)
    return [Path(spec.origin)] if spec.origin.endswith(".py") else []
