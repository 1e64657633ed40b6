"""``rgt dvc-yaml``: write the project's ``dvc.yaml`` from its config, or check that it follows
the config."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

CONFIG = "config/config.yaml"


def register(subparsers) -> None:
    """Add the ``dvc-yaml`` verb."""
    parser = subparsers.add_parser(
        "dvc-yaml",
        help="write dvc.yaml (the delivery stages, one per figure of the config) from the "
             "config, or --check that the file still follows it",
    )
    parser.add_argument("--config", default=CONFIG, help=f"default: {CONFIG}")
    parser.add_argument("--out", default="dvc.yaml", help="default: dvc.yaml")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when --out differs from what the config "
                             "gives")
    parser.set_defaults(func=run_dvc_yaml)


def run_dvc_yaml(args: argparse.Namespace) -> int:
    """Handler of ``rgt dvc-yaml``."""
    from rgt.base.files import write_text  # lazy (--help imports every verb)
    from rgt.config import load_config
    from rgt.deliver.dvc_stages import CLAIMS, dvc_yaml

    out = Path(args.out)
    text = dvc_yaml(load_config(args.config), args.config, (out.parent / CLAIMS).is_file())
    if not args.check:
        write_text(out, text)
        print(f"{out}: the delivery stages of {args.config}'s figures", file=sys.stderr)
        return 0
    if out.is_file() and out.read_text() == text:
        print(f"{out} follows {args.config}", file=sys.stderr)
        return 0
    print(f"{out} does not follow {args.config} (its figures or stages differ); "
          f"fix: rgt dvc-yaml --config {args.config} --out {out}", file=sys.stderr)
    return 1
