"""The ``rgt`` command: one verb per stage; rules, DVC stages and people all call these.

Each verb lives in the area that owns it (``rgt/<area>/command.py``) and exposes
``register(subparsers)``. The verb modules are imported here, statically; each imports its
area's library inside its handler, so ``rgt --help`` loads no torch, paramiko or matplotlib.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from rgt import __version__
from rgt.base.errors import RgtError
from rgt.base.files import is_disk_full
from rgt.controller import command as controller
from rgt.deliver import command as deliver
from rgt.deliver import dvc_command as dvc_yaml
from rgt.deliver import metrics_command as metrics
from rgt.deliver import promote_command as promote
from rgt.deliver import share_command as share
from rgt.doctor import command as doctor
from rgt.down import command as down
from rgt.evaluate import command as evaluate
from rgt.evidence import check_command as evidence_check
from rgt.evidence import command as evidence
from rgt.evidence import repro_command as repro
from rgt.grid import command as grid
from rgt.grid import status_command as grid_status
from rgt.mirror import command as mirror
from rgt.plan import command as plan
from rgt.platforms import command as platforms
from rgt.project import command as project
from rgt.pull import command as pull
from rgt.remote import command as remote
from rgt.report import command as report
from rgt.train import command as train
from rgt.verify import command as verify
from rgt.watch import command as watch

# Every verb, in the order `rgt --help` lists them; each module exposes ``register(subparsers)``.
VERBS = (
    project,
    train,
    evaluate,
    verify,
    deliver,
    metrics,
    dvc_yaml,
    evidence,
    promote,
    evidence_check,
    repro,
    share,
    report,
    grid_status,
    plan,
    platforms,
    remote,
    watch,
    mirror,
    pull,
    down,
    grid,
    doctor,
    controller,
)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every verb registered."""
    parser = argparse.ArgumentParser(
        prog="rgt",
        description="remote-gpu-trainer: RUN -> VERIFY -> DELIVER for deep-learning experiments.",
    )
    parser.add_argument("--version", action="version", version=f"rgt {__version__}")
    subparsers = parser.add_subparsers(title="verbs", metavar="VERB")
    for verb in VERBS:
        verb.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv``, run the verb and return its exit code; user errors print no traceback."""
    # The `rgt` script, unlike `python -m rgt`, does not put the working directory on the path:
    # a project's own plug-ins (model.name: mylab.nets:Net) must import the same either way.
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    # pydantic (the config's models) looks for plugins in every installed package's metadata
    # first: 10 ms at each start (measured) for plugins rgt does not use. Set it empty to keep them.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
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
        if getattr(args, "json", False) and not error.printed_json:
            # --json promises JSON on stdout, a failure included
            print(json.dumps({"error": error.message, "fix": error.fix}, indent=2))
        return error.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except OSError as error:
        if not is_disk_full(error):
            raise
        # A write outside rgt's own (a library's): the same one message, no traceback.
        where = f" writing {error.filename}" if error.filename else ""
        print(f"error: No space left on device{where}", file=sys.stderr)
        print("  fix: free space on that disk (or move the directory to a larger one), then "
              "run the same command again", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `rgt status | head`: the reader left, nothing is wrong
        return 0
