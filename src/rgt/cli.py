"""The ``rgt`` command: one verb per stage; rules, DVC stages and people all call these.

Each verb lives in the package that owns it (``rgt/<area>/command.py``) and exposes
``register(subparsers)``; registering imports nothing heavy, so ``rgt --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from rgt import __version__
from rgt.base.errors import RgtError

COMMAND_MODULES = (
    "rgt.train.command",
    "rgt.evaluate.command",
    "rgt.verify.command",
    "rgt.deliver.command",
    "rgt.evidence.command",
    "rgt.evidence.check_command",
    "rgt.report.command",
    "rgt.grid.status_command",
    "rgt.plan.command",
    "rgt.platforms.command",
    "rgt.remote.command",
    "rgt.watch.command",
    "rgt.pull.command",
    "rgt.down.command",
    "rgt.grid.command",
    "rgt.doctor.command",
    "rgt.controller.command",
)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every verb registered."""
    parser = argparse.ArgumentParser(
        prog="rgt",
        description="remote-gpu-trainer: RUN -> VERIFY -> DELIVER for deep-learning experiments.",
    )
    parser.add_argument("--version", action="version", version=f"rgt {__version__}")
    subparsers = parser.add_subparsers(title="verbs", metavar="VERB")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv``, run the verb and return its exit code; user errors print no traceback."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except RgtError as error:
        print(f"error: {error.message}", file=sys.stderr)
        if error.fix:
            print(f"  fix: {error.fix}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `rgt status | head`: the reader left, nothing is wrong
        return 0
