"""Install the project's Snakemake profiles where `snakemake --profile NAME` looks for them
(``$XDG_CONFIG_HOME/snakemake/NAME``, else ``~/.config/snakemake/NAME``), never deleting a file
of yours: a profile of the same name that is not ours (or ours edited since) is kept as it is,
and ours stays usable without installing, as ``snakemake --profile profiles/NAME``.

Standard library only: ``make profiles`` runs it with the system Python.
Usage: python3 profiles/install.py TARGET_DIR [NAME ...]
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MARKER = ".installed-by-remote-gpu-trainer"  # the sha256 of what was installed


def digest(directory: Path) -> str:
    """sha256 over every file of ``directory`` (names and bytes), the marker excluded."""
    hasher = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file() and p.name != MARKER):
        hasher.update(path.relative_to(directory).as_posix().encode() + b"\0")
        hasher.update(path.read_bytes() + b"\0")
    return hasher.hexdigest()


def install(source: Path, target: Path) -> str:
    """Install ``source`` as ``target``: installed, updated, unchanged or kept (yours)."""
    wanted = digest(source)
    if not target.exists():
        _place(source, target, wanted)
        return "installed"
    if target.is_dir() and digest(target) == wanted:
        (target / MARKER).write_text(wanted + "\n")
        return "unchanged"
    marker = target / MARKER
    if target.is_dir() and marker.is_file() and marker.read_text().strip() == digest(target):
        _place(source, target, wanted)  # an older copy of ours that nobody edited
        return "updated"
    return "kept"


def _place(source: Path, target: Path, wanted: str) -> None:
    """Copy ``source`` next to ``target``, then swap it in (an old copy of ours goes)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    shutil.copytree(source, staging / "new")
    (staging / "new" / MARKER).write_text(wanted + "\n")
    if target.exists():
        os.replace(target, staging / "old")
    os.replace(staging / "new", target)
    shutil.rmtree(staging)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    home = Path(argv[0]).expanduser()
    names = argv[1:] or sorted(p.name for p in HERE.iterdir() if (p / "config.yaml").is_file())
    outcomes = {name: install(HERE / name, home / name) for name in names}
    done = [name for name, outcome in outcomes.items() if outcome != "kept"]
    print(f"profiles installed in {home}: {' '.join(done) or 'none'}")
    for name in (name for name, outcome in outcomes.items() if outcome == "kept"):
        print(f"profiles: kept your own {home / name} (it differs from profiles/{name}); "
              f"use the project's with `snakemake --profile profiles/{name}` from the project "
              f"root, or rename yours and run `make profiles` again")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
