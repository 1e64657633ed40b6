"""``rgt metrics``: the DVC metrics files (``evidence/metrics/<exp>/<variant>.json``)."""

from __future__ import annotations

import argparse
import sys

from rgt.plan.paths import AGGREGATE, METRICS_DIR


def register(subparsers) -> None:
    """Add the ``metrics`` verb."""
    parser = subparsers.add_parser(
        "metrics",
        help=f"each variant's rounded means and spreads, one file each ({METRICS_DIR}/), "
             "for `dvc metrics show`",
    )
    parser.add_argument("--aggregate", default=AGGREGATE, help=f"default: {AGGREGATE}")
    parser.add_argument("--out-dir", default=METRICS_DIR, help=f"default: {METRICS_DIR}")
    parser.set_defaults(func=run_metrics)


def run_metrics(args: argparse.Namespace) -> int:
    """Handler of ``rgt metrics``."""
    from rgt.deliver.metrics import write_metrics  # lazy (--help imports every verb)

    written = write_metrics(args.aggregate, args.out_dir)
    print(f"{args.out_dir}: {len(written)} metrics file(s)", file=sys.stderr)
    return 0
