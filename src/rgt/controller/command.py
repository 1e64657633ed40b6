"""``rgt run [--detach] PROFILE [TARGET...] [-- SNAKEMAKE-OPTIONS...]``: the controller.

In the foreground it is ``snakemake --profile PROFILE ...`` with its exit code. With
``--detach`` the controller runs in its own session with a log and a record under
``.rgt/controller/`` and outlives the terminal; ``--stop`` and ``--status`` act on it.
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

from rgt.base.errors import ConfigError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``run`` verb."""
    parser = subparsers.add_parser(
        "run", help="run the Snakemake controller, in the foreground or detached (--detach)",
        description="Run `snakemake --profile PROFILE TARGET...` in this project. PROFILE is a "
                    "name from profiles/ (used in place, nothing to install), a profile folder, "
                    "or a name Snakemake finds in ~/.config/snakemake. With --detach the "
                    "controller runs in its own session, logging to .rgt/controller/, and "
                    "survives closing the terminal or logging out; `rgt watch` shows it. "
                    "Options for rgt go before PROFILE; words after the targets that start "
                    "with '-' (or follow '--') go to Snakemake.")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--detach", action="store_true",
                        help="start the controller detached and return (refused while one runs)")
    action.add_argument("--stop", action="store_true",
                        help="send SIGTERM to the detached controller (remote jobs keep running)")
    action.add_argument("--status", action="store_true",
                        help="print the detached controller's state and log path")
    parser.add_argument("profile", nargs="?", metavar="PROFILE", help="the Snakemake profile")
    parser.add_argument("rest", nargs=argparse.REMAINDER, metavar="TARGET",
                        help="targets, then Snakemake options")
    parser.set_defaults(func=run_run)


def run_run(args: argparse.Namespace) -> int:
    """Handler of ``rgt run``."""
    # lazy (--help imports every verb; all verbs' own modules together: 50 ms)
    from rgt.controller.profile import resolve_profile, snakemake_argv, split_targets

    project = Path.cwd()
    if args.stop or args.status:
        if args.profile is not None:
            raise ConfigError(f"rgt run --{'stop' if args.stop else 'status'} takes no PROFILE",
                              fix="drop the profile and targets")
        return _stop(project) if args.stop else _status(project)
    if args.profile is None:
        raise ConfigError("rgt run needs a PROFILE", fix="e.g. rgt run --detach local")
    targets, extra = split_targets(args.rest)
    misplaced = {"--detach", "--stop", "--status"} & set(extra)
    if misplaced:
        raise ConfigError(f"{', '.join(sorted(misplaced))} came after PROFILE and would go to "
                          "Snakemake", fix=f"put it before PROFILE: rgt run "
                                           f"{sorted(misplaced)[0]} {args.profile} ...")
    profile = resolve_profile(args.profile, project)
    argv = snakemake_argv(profile, targets, extra)
    if args.detach:
        return _detach(project, argv, args.profile, targets, extra)
    return _foreground(project, argv)


def _detach(project: Path, argv: list[str], profile: str, targets: list[str],
            extra: list[str]) -> int:
    # lazy (--help imports every verb; all verbs' own modules together: 50 ms)
    from rgt.controller.detach import start_detached

    record = start_detached(project, argv, profile, targets, extra)
    print(f"controller started: pid {record.pid}, log {record.log}\n"
          f"  follow: tail -f {record.log}   watch: rgt watch   stop: rgt run --stop")
    return 0


def _foreground(project: Path, argv: list[str]) -> int:
    # lazy (--help imports every verb; all verbs' own modules together: 50 ms)
    from rgt.controller.detach import refuse_if_running
    from rgt.controller.supervise import exit_code

    refuse_if_running(project)
    process = subprocess.Popen(argv, cwd=project)
    while True:
        try:
            return exit_code(process.wait())
        except KeyboardInterrupt:
            continue  # Snakemake got the same Ctrl-C and is stopping its jobs: wait for it


def _stop(project: Path) -> int:
    # lazy (--help imports every verb; all verbs' own modules together: 50 ms)
    from rgt.controller.detach import stop

    record = stop(project)
    if record is None:
        print("no detached controller runs for this project")
        return 0
    print(f"sent SIGTERM to controller pid {record.pid}; Snakemake stops its local jobs and "
          f"leaves remote ones running (rgt watch shows them); log {record.log}")
    return 0


def _status(project: Path) -> int:
    # lazy (--help imports every verb): loads rich
    from rgt.controller.record import read_record
    from rgt.controller.show import describe

    record = read_record(project)
    print("no detached controller was started in this project" if record is None
          else describe(record)[0])
    return 0
