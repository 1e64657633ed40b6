"""Which run directories a verb reads: all of ``runs/``, or only the runs of the plan.

Runs are append-only, so ``runs/`` also holds runs of earlier configs; the pipeline passes the
planned run ids so that old runs never mix into this config's statistics.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path


def run_directories(runs_dir: str | Path, only: Collection[str] | None = None) -> list[Path]:
    """Run directories under ``runs_dir``, sorted by name, restricted to ``only`` when given."""
    runs_dir = Path(runs_dir)
    directories = sorted(path for path in runs_dir.iterdir()
                         if path.is_dir() and not path.name.startswith("."))
    if only is None:
        return directories
    wanted = set(only)
    return [path for path in directories if path.name in wanted]


def add_only_option(parser) -> None:
    """The ``--only RUN_ID ...`` option shared by the verbs that read many runs."""
    parser.add_argument("--only", nargs="+", metavar="RUN_ID",
                        help="read only these runs (the pipeline passes the planned run ids)")
