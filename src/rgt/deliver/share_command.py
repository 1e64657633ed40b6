"""``rgt restore``: bring the shared sealed runs that ``runs/`` lacks back from the DVC remote
(added, never replacing or deleting a local run; ``make run`` and ``make repro`` call it)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``restore`` verb."""
    parser = subparsers.add_parser(
        "restore", help="bring the sealed runs of runs.dvc that runs/ lacks from the DVC remote "
                        "(never removes or replaces a local run)")
    parser.add_argument("--quiet", action="store_true",
                        help="say nothing when there is nothing to bring")
    parser.add_argument("--directory", default=".", metavar="DIR",
                        help="the project (default: here)")
    parser.set_defaults(func=run_restore)


def run_restore(args: argparse.Namespace) -> int:
    """Handler of ``rgt restore``: 0 when every shared run is here (or none is shared)."""
    # lazy (--help imports every verb): the DVC import costs ~0.3 s
    from rgt.deliver.share import print_restored, restore_runs

    report = restore_runs(Path(args.directory))
    if report is None:
        if not args.quiet:
            print("rgt restore: no runs.dvc here: no runs are shared through DVC",
                  file=sys.stderr)
        return 0
    print_restored(report, quiet=args.quiet)
    return 0
