"""``rgt down ALIAS``: the teardown gate. Stop a host's meter only when nothing would be lost.

The host is only read (the manifest builder rewriting each run's ``PULL_MANIFEST.json``, and
``rgt watch``'s snapshot for jobs and heartbeats), under every remote root the host's record
and the launch ledger (``.rgt/launches.jsonl``) name; the platform's verb runs only as the
host's configured local ``stop_command`` (argv, no shell). The decision itself is
``rgt.down.gate.decide``; what cannot be seen is a refusal (``rgt.down.evidence``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from datetime import date
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.hosts import add_host_options

STOP_TIMEOUT_S = 300


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``down`` verb."""
    parser = subparsers.add_parser(
        "down", help="stop a host's meter, only when every run on it is pulled and verified",
        description="Refused unless every run on the host — every run it lists and every run "
                    "the launch ledger (.rgt/launches.jsonl) says was started there — has "
                    "<export>/<run-id>/PULL_VERIFIED.json matching the manifest the host builds "
                    "now, no job runs there (unless you approve losing its work since its newest "
                    "mirrored checkpoint with --approve-loss RUN_ID), and you approve the exact "
                    "action (type ALIAS:VERB, or pass --approve ALIAS:VERB). A host that cannot "
                    "be reached, a remote root that does not exist, a listing that cannot be "
                    "read: each refuses. Runs only the host's stop_command from "
                    "config/hosts.yaml.")
    parser.add_argument("alias", metavar="ALIAS", help="the host's alias in config/hosts.yaml")
    parser.add_argument("--approve", metavar="ALIAS:VERB", help="approve non-interactively")
    parser.add_argument("--approve-loss", metavar="RUN_ID", action="append", default=[],
                        help="accept losing a run: a running one's work since its newest "
                             "mirrored checkpoint (the refusal says how much), or one that is "
                             "not pulled or gone from the host (repeatable)")
    parser.add_argument("--dry-run", action="store_true",
                        help="show everything, run nothing (exit 0 only if it would be allowed)")
    add_host_options(parser)
    parser.add_argument("--export", default="export", help="where verified runs are")
    parser.add_argument("--checkpoints", default="checkpoints",
                        help="where the runs' mirrored checkpoints are (default: %(default)s)")
    parser.set_defaults(func=run_down)


def run_down(args: argparse.Namespace) -> int:
    """Handler of ``rgt down``."""
    # lazy (--help imports every verb): loads jsonschema, numpy, paramiko, pydantic, rich, yaml
    from rgt.down.evidence import Local, gather, ledger_reasons
    from rgt.down.gate import decide
    from rgt.hosts.registry import host_entry
    from rgt.platforms.facts import load_platform, project_platforms

    entry = host_entry(args.alias, Path(args.hosts))
    platform = load_platform(entry.platform, project_platforms(Path.cwd()))
    verb = platform["meter_stop"]["verb"]
    local = Local(Path.cwd(), Path(args.export), Path(args.checkpoints))
    roots = gather(args.alias, entry, local, entry.ssh_config_for(args.ssh_config),
                   set(args.approve_loss))
    runs = [run for root in roots for run in root.runs]
    others = [reason for root in roots for reason in ledger_reasons(args.alias, root)]
    show(args.alias, entry, platform, roots)
    known = {run.run_id for run in runs} | {launch.run_id for root in roots
                                            for launch in root.unaccounted}
    for run_id in sorted(set(args.approve_loss) - known):
        print(f"  warning: --approve-loss {run_id}: no such run on {args.alias} nor in the "
              "launch ledger (nothing to approve)")
    approval = args.approve
    if approval is None and not args.dry_run and sys.stdin.isatty() and decide(
            args.alias, verb, runs, entry.stop_command, None, require_approval=False,
            other_reasons=others).allowed:
        approval = ask(args.alias, verb)
    decision = decide(args.alias, verb, runs, entry.stop_command, approval,
                      require_approval=not args.dry_run or approval is not None,
                      other_reasons=others)
    if not decision.allowed:
        raise RgtError(f"rgt down {args.alias} refused:\n  - " + "\n  - ".join(decision.reasons),
                       fix="act on each reason above, then run rgt down again")
    if args.dry_run:
        print(f"dry run: allowed; would run {list(entry.stop_command)}"
              + ("" if approval else f" once you approve {decision.expected_approval}"))
        return 0
    return stop(entry.stop_command)


def show(alias: str, entry, platform: dict, roots) -> None:
    """Print the platform's facts, its stale stamps, and every run's evidence."""
    # lazy (--help imports every verb): loads jsonschema, rich, yaml
    from rich.console import Console

    from rgt.platforms.facts import stale_facts

    console = Console(highlight=False)
    stop, release = platform["meter_stop"], platform["auto_release"]["after_days"]
    where = ", ".join(root.root for root in roots)
    console.print(f"[bold]rgt down {alias}[/] ({platform['display_name']}, project {where})")
    console.print(f"  meter-stop verb: {stop['verb']}"
                  + (" (irreversible)" if stop["irreversible"] else ""))
    console.print(f"  it destroys: {stop['destroys']}")
    console.print(f"  trap: {stop['trap']}")
    console.print(f"  a stop still bills: {stop['still_bills'] or 'nothing known'}")
    console.print("  auto-release: " + (f"a stopped instance is released after {release} days"
                                        if release is not None else "none known"))
    for path in stale_facts(platform, date.today()):
        console.print(f"  [yellow]warning:[/] {path} is older than 6 months: re-check the fact")
    for root in roots:
        if not root.exists:
            console.print(f"  [red]{root.root} does not exist on {alias}[/]")
    console.print(runs_table(alias, [run for root in roots for run in root.runs],
                             [launch for root in roots for launch in root.unaccounted]))
    command = list(entry.stop_command) if entry.stop_command else "none configured"
    console.print(f"  stop command (local, no shell): {command}")


def runs_table(alias: str, runs, unaccounted):
    """The table of every run on the host and every launch nothing accounts for."""
    # lazy (--help imports every verb): loads rich
    from rich.table import Table

    table = Table(title=f"runs on {alias}: {len(runs) + len(unaccounted)}")
    for column in ("run", "pulled", "why not"):
        table.add_column(column, overflow="fold")
    for run in runs:
        why = run.not_pulled()
        state = "no" if why else ("empty" if run.remote_files == 0 else "verified")
        if run.loss_approved:
            state = "loss approved"
        elif run.running:
            state = "running"
            why = f"still training: stopping now loses {run.at_risk or 'an unknown amount'}"
        table.add_row(run.run_id, state, why or "")
    for launch in unaccounted:
        table.add_row(launch.run_id, "missing", f"launched ({launch.describe()}), not on the "
                                                "host, not pulled")
    return table


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
