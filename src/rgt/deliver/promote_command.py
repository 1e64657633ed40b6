"""``rgt promote``: put a delivery built in ``.rgt/delivery/`` in place (the pipeline's last
step), each file atomically, identical files untouched."""

from __future__ import annotations

import argparse
import sys

from rgt.base.files import write_json
from rgt.plan.paths import DELIVERY_PROMOTED, DELIVERY_WORK


def register(subparsers) -> None:
    """Add the ``promote`` verb."""
    parser = subparsers.add_parser(
        "promote",
        help=f"copy a complete delivery from {DELIVERY_WORK}/ into place (the pipeline's "
             "last step)",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help=f"delivery files or directories, relative to the project; each "
                             f"is read from {DELIVERY_WORK}/PATH")
    parser.add_argument("--manifest", default=DELIVERY_PROMOTED,
                        help=f"where to record what was put in place (default: "
                             f"{DELIVERY_PROMOTED})")
    parser.set_defaults(func=run_promote)


def run_promote(args: argparse.Namespace) -> int:
    """Handler of ``rgt promote``."""
    from rgt.deliver.staging import platform_change, promote  # lazy (--help imports every verb)

    change = platform_change()
    manifest = promote(args.paths)
    if change:
        print(f"warning: {change}", file=sys.stderr)
    write_json(args.manifest, manifest)
    print(f"promoted {len(manifest['files'])} delivery file(s) into place", file=sys.stderr)
    return 0
