"""The build step that puts the workflow into the wheel (everything else is in pyproject.toml).

The repository keeps its workflow at the top level (``Snakefile``, ``rules/``, ``profiles/``,
``config/platforms/``: ``rgt.base.shipped.SHIPPED``), where Snakemake, ``make`` and the tests use
it, and git holds that one copy. A built wheel (and an sdist's wheel: MANIFEST.in takes them
into the sdist) gets them in ``rgt/workflow/``, the same layout, so a project of the user's own
needs nothing but ``pip install``. An editable install copies nothing: ``rgt.base.shipped``
reads them in place. Why a build step and not ``package-dir``: a package directory cannot be
mapped onto a single top-level file (``Snakefile``), and the editable finder setuptools writes
for nested mappings does not serve plain data directories.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "src"))
from rgt.base.shipped import SHIPPED  # noqa: E402  (the list lives once, beside its reader)

SKIPPED = ("__pycache__",)


class BuildWithWorkflow(build_py):
    """``build_py``, then the shipped files copied into ``<build>/rgt/workflow/``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads them in the repository
        target = Path(self.build_lib) / "rgt" / "workflow"
        for name in SHIPPED:
            for source in shipped_files(HERE / name):
                destination = target / source.relative_to(HERE)
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, destination)


def shipped_files(path: Path) -> list[Path]:
    """``path`` itself, or every file below it (caches skipped)."""
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file()
                  and not any(part in SKIPPED for part in p.parts) and p.suffix != ".pyc")


setup(cmdclass={"build_py": BuildWithWorkflow})
