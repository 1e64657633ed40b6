"""What the package ships besides its code: the workflow and the facts every verb reads.

The repository keeps them at its top level — ``Snakefile``, ``rules/*.smk``, ``profiles/<name>/``
and ``config/platforms/*.yaml`` — and that is their only copy in git. A wheel carries them in
``rgt/workflow/`` with the same layout (``setup.py`` copies them there at build time), so
``pip install remote-gpu-trainer`` is all a project of the user's own needs. An editable install
of the repository (``pip install -e .``) reads them where they are.

``shipped_root()`` is the one place that knows which of the two it is; everything else asks for
a path below it (``shipped("rules")``, ``shipped("config", "platforms")``).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rgt.base.errors import RgtError

PACKAGE = Path(__file__).resolve().parents[1]
WHEEL_ROOT = PACKAGE / "workflow"  # where setup.py puts them in a wheel
SOURCE_ROOT = PACKAGE.parents[1]  # the repository, for src/rgt run in place
# What the package ships, relative to its root (setup.py copies exactly these into a wheel).
SHIPPED = ("Snakefile", "rules", "profiles", "config/platforms")


@lru_cache(maxsize=1)
def shipped_root() -> Path:
    """The directory holding ``Snakefile``, ``rules/``, ``profiles/`` and
    ``config/platforms/``: inside the installed wheel, else the repository this package runs
    from."""
    for root in (WHEEL_ROOT, SOURCE_ROOT):
        if (root / "Snakefile").is_file() and (root / "rules").is_dir():
            return root
    raise RgtError(f"this installation of rgt ({PACKAGE}) carries no workflow files: neither "
                   f"{WHEEL_ROOT} nor a repository around it holds Snakefile and rules/",
                   "reinstall it: pip install --force-reinstall remote-gpu-trainer (or, from a "
                   "clone of the repository, pip install -e .)")


def shipped(*parts: str) -> Path:
    """A path below ``shipped_root()``: ``shipped("config", "platforms")``."""
    return shipped_root().joinpath(*parts)


def workflow_snakefile() -> str:
    """The shipped ``Snakefile``, for a project's own Snakefile to ``include:``."""
    return str(shipped("Snakefile"))
