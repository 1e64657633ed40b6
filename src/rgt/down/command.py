"""``rgt down ALIAS``: the teardown gate. Stop a host's meter only when nothing would be lost.

The host is only read (the manifest builder rewriting each run's ``PULL_MANIFEST.json``, and
``rgt watch``'s snapshot for jobs and heartbeats); the platform's verb runs only as the host's
configured local ``stop_command`` (argv, no shell). The grid of the config is consulted for
cells that live only on the host (``rgt.grid.cells.only_on``). The decision itself is
``rgt.down.gate.decide``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from rgt.base.errors import RgtError
from rgt.hosts import add_host_options

if TYPE_CHECKING:  # the config's types; importing pydantic is for handlers, not --help
    from rgt.config import Config

STOP_TIMEOUT_S = 300


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``down`` verb."""
    parser = subparsers.add_parser(
        "down", help="stop a host's meter, only when every run on it is pulled and verified",
        description="Refused unless every run on the host (runs/ and checkpoints/) has "
                    "<export>/<run-id>/PULL_VERIFIED.json matching the manifest the host builds "
                    "now, no job runs there (unless you approve losing its work since its newest "
                    "mirrored checkpoint with --approve-loss RUN_ID), no cell of the config's "
                    "grid lives only there, and you approve the exact action (type ALIAS:VERB, "
                    "or pass --approve ALIAS:VERB). Runs only the host's stop_command from "
                    "config/hosts.yaml.")
    parser.add_argument("alias", metavar="ALIAS", help="the host's alias in config/hosts.yaml")
    parser.add_argument("--approve", metavar="ALIAS:VERB", help="approve non-interactively")
    parser.add_argument("--approve-loss", metavar="RUN_ID", action="append", default=[],
                        help="accept losing a running run's work since its newest mirrored "
                             "checkpoint (repeatable; the refusal says how much)")
    parser.add_argument("--config", default="config/config.yaml",
                        help="the config whose grid is consulted (skipped when absent)")
    parser.add_argument("--dry-run", action="store_true",
                        help="show everything, run nothing (exit 0 only if it would be allowed)")
    add_host_options(parser)
    parser.add_argument("--export", default="export", help="where verified runs are")
    parser.set_defaults(func=run_down)


def load_grid_config(path: str) -> Config | None:
    """The config whose grid ``down`` consults; None when there is no such file."""
    # lazy (--help imports every verb): loads pydantic, yaml
    from rgt.config import load_config

    return load_config(path) if Path(path).is_file() else None


def run_down(args: argparse.Namespace) -> int:
    """Handler of ``rgt down``."""
    # lazy (--help imports every verb): loads jsonschema, numpy, paramiko, pydantic, rich, yaml
    from rgt.down.evidence import gather, grid_reasons
    from rgt.down.gate import decide
    from rgt.hosts.registry import host_entry
    from rgt.platforms.facts import load_platform

    entry = host_entry(args.alias, Path(args.hosts))
    platform = load_platform(entry.platform)
    verb = platform["meter_stop"]["verb"]
    root = entry.root(Path.cwd())
    config = load_grid_config(args.config)
    states = Path(config.paths.checkpoints) if config else Path("checkpoints")
    runs, root_exists, view = gather(args.alias, entry, root, Path(args.export),
                                     args.ssh_config, states, set(args.approve_loss))
    grid = grid_reasons(config, args, entry, view)
    show(args.alias, entry, platform, root, runs, root_exists)
    print(f"  grid: {len(grid)} cell(s) of {args.config} live only on {args.alias}"
          if config else f"  grid: not consulted ({args.config} not found)")
    for run_id in sorted(set(args.approve_loss) - {run.run_id for run in runs if run.running}):
        print(f"  warning: --approve-loss {run_id}: not running on {args.alias} (nothing to "
              "approve)")
    approval = args.approve
    if approval is None and not args.dry_run and sys.stdin.isatty() and decide(
            args.alias, verb, runs, entry.stop_command, None, require_approval=False,
            grid_reasons=grid).allowed:
        approval = ask(args.alias, verb)
    decision = decide(args.alias, verb, runs, entry.stop_command, approval,
                      require_approval=not args.dry_run or approval is not None,
                      grid_reasons=grid)
    if not decision.allowed:
        raise RgtError(f"rgt down {args.alias} refused:\n  - " + "\n  - ".join(decision.reasons),
                       fix="act on each reason above, then run rgt down again")
    if args.dry_run:
        print(f"dry run: allowed; would run {list(entry.stop_command)}"
              + ("" if approval else f" once you approve {decision.expected_approval}"))
        return 0
    return stop(entry.stop_command)


def show(alias: str, entry, platform: dict, root: str, runs, root_exists: bool) -> None:
    """Print the platform's facts, its stale stamps, and every run's evidence."""
    # lazy (--help imports every verb): loads jsonschema, rich, yaml
    from rich.console import Console
    from rich.table import Table

    from rgt.platforms.facts import stale_facts

    console = Console(highlight=False)
    stop, release = platform["meter_stop"], platform["auto_release"]["after_days"]
    console.print(f"[bold]rgt down {alias}[/] ({platform['display_name']}, project {root})")
    console.print(f"  meter-stop verb: {stop['verb']}"
                  + (" (irreversible)" if stop["irreversible"] else ""))
    console.print(f"  it destroys: {stop['destroys']}")
    console.print(f"  trap: {stop['trap']}")
    console.print(f"  a stop still bills: {stop['still_bills'] or 'nothing known'}")
    console.print("  auto-release: " + (f"a stopped instance is released after {release} days"
                                        if release is not None else "none known"))
    for path in stale_facts(platform, date.today()):
        console.print(f"  [yellow]warning:[/] {path} is older than 6 months: re-check the fact")
    if not root_exists:
        console.print(f"  [yellow]warning:[/] {root} does not exist on {alias}: no rgt runs "
                      "there (check remote_root in config/hosts.yaml if that is wrong)")
    table = Table(title=f"runs on {alias}: {len(runs)}")
    for column in ("run", "pulled", "why not"):
        table.add_column(column, overflow="fold")
    for run in runs:
        why = run.not_pulled()
        state = "no" if why else ("empty" if run.remote_files == 0 else "verified")
        if run.running:
            state = "loss approved" if run.loss_approved else "running"
            why = f"still training: stopping now loses {run.at_risk or 'an unknown amount'}"
        table.add_row(run.run_id, state, why or "")
    console.print(table)
    command = list(entry.stop_command) if entry.stop_command else "none configured"
    console.print(f"  stop command (local, no shell): {command}")


def ask(alias: str, verb: str) -> str:
    """Prompt on the terminal for the exact ``ALIAS:VERB``."""
    # lazy (--help imports every verb): loads numpy, pydantic, rich, yaml
    from rich.prompt import Prompt

    from rgt.down.gate import approval_token

    return Prompt.ask(f"type [bold]{approval_token(alias, verb)}[/] to run it (anything else "
                      "cancels)", default="", show_default=False)


def stop(argv) -> int:
    """Run the host's ``stop_command`` locally (no shell, with a timeout); 0 when it succeeds."""
    print(f"running {list(argv)}", flush=True)
    try:
        result = subprocess.run(list(argv), timeout=STOP_TIMEOUT_S, check=False)
    except FileNotFoundError:
        raise RgtError(f"stop_command {argv[0]!r} not found",
                       fix="fix stop_command in config/hosts.yaml (argv, no shell)") from None
    except subprocess.TimeoutExpired:
        raise RgtError(f"stop_command {list(argv)} still running after {STOP_TIMEOUT_S} s",
                       fix="check in the platform's console whether the host stopped") from None
    if result.returncode != 0:
        raise RgtError(f"stop_command {list(argv)} exited with status {result.returncode}",
                       fix="read its output above; check the platform's console")
    print("stop command finished; check the platform's console that the meter stopped")
    return 0
