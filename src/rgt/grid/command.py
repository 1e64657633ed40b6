"""``rgt reconcile-grid``: the config's grid against what exists, locally and on every host.

Exit 0 when every cell is ``verified`` or ``local``; 1 when any cell is a gap (each listed with
the command that closes it). One read-only SSH command per host (``rgt.grid.host_views``).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from rgt.base.errors import RgtError
from rgt.hosts import add_host_options

if TYPE_CHECKING:  # the config's types; importing pydantic is for handlers, not --help
    from rgt.config import Config

DEFAULT_CONFIG = "config/config.yaml"
SEVERAL_HOSTS = "ALIAS"  # the placeholder when no host is implied: the user names one


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``reconcile-grid`` verb."""
    parser = subparsers.add_parser(
        "reconcile-grid", help="the config's grid (experiment x variant x seed) against what "
                               "exists and is pull-verified locally and on every host",
        description="Every cell of the plan with its state (verified, local, on-host, running, "
                    "partial, missing, unknown) and, for each gap, the command that relaunches "
                    "or pulls exactly that cell. Asks each host in config/hosts.yaml one "
                    "read-only question over SSH. Exit 0 when the grid is complete, 1 when any "
                    "cell is a gap (an unreachable host's cells are unknown: a gap).")
    parser.add_argument("--config", default=DEFAULT_CONFIG, help="config file")
    add_host_options(parser)
    parser.add_argument("--export", default="export", help="where verified runs are")
    parser.add_argument("--profile", help="the snakemake profile in relaunch commands "
                                          "(default: the host's platform; local without a host)")
    parser.add_argument("--host", metavar="ALIAS",
                        help="the host that relaunch commands of missing cells name (default: "
                             "the only host in the hosts file)")
    parser.add_argument("--deep", action="store_true",
                        help="re-hash and re-load every pulled bundle (rgt pull --verify-only) "
                             "instead of the cheap check")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run_reconcile_grid)


def run_reconcile_grid(args: argparse.Namespace) -> int:
    """Handler of ``rgt reconcile-grid``."""
    # lazy (--help imports every verb): loads jsonschema, pydantic, yaml
    from rgt.config import load_config
    from rgt.hosts.registry import load_hosts

    config = load_config(args.config)
    entries = load_hosts(Path(args.hosts))
    states, views = grid_states(config, entries, args)
    if args.json:
        print(json.dumps(as_json(states, views), indent=2, sort_keys=True))
    else:
        show(states, views)
    return 1 if any(item.gap for item in states) else 0


def default_host(chosen: str | None, entries: dict) -> str | None:
    """The host named in relaunch commands of cells no host holds."""
    if chosen is not None:
        if chosen not in entries:
            raise RgtError(f"--host {chosen}: not in the hosts file (registered: "
                           f"{', '.join(sorted(entries)) or 'none'})",
                           fix="pass an alias from config/hosts.yaml, or leave --host out")
        return chosen
    if len(entries) == 1:
        return next(iter(entries))
    return SEVERAL_HOSTS if entries else None


def grid_states(config: Config, entries: dict, args: argparse.Namespace):
    """(every cell's state, every host's view): the whole reconciliation."""
    # lazy (--help imports every verb): loads numpy, pydantic, yaml
    from rgt.grid.cells import Relaunch, reconcile
    from rgt.grid.expected import expected_cells, local_facts
    from rgt.grid.host_views import survey_hosts

    cells = expected_cells(config)
    runs, states = Path(config.paths.runs), Path(config.paths.checkpoints)
    local = {cell.run_id: local_facts(cell.run_id, runs, states, Path(args.export), args.deep)
             for cell in cells}
    views = survey_hosts(list(entries.values()), args.ssh_config, Path.cwd())
    relaunch = Relaunch({alias: entry.platform for alias, entry in entries.items()},
                        default_host(args.host, entries), args.profile,
                        None if args.config == DEFAULT_CONFIG else args.config,
                        config.paths.runs)
    return reconcile(cells, local, views, relaunch), views


def as_json(states: list, views: list) -> dict:
    """``{"complete", "counts", "cells": [...], "hosts": [...]}``."""
    return {"complete": not any(item.gap for item in states),
            "counts": dict(Counter(item.state for item in states)),
            "cells": [item.as_dict() for item in states],
            "hosts": [{"alias": view.alias, "reachable": view.reachable, "error": view.error,
                       "runs": sorted(view.runs)} for view in views]}


def show(states: list, views: list) -> None:
    """The grid as a table, every unreachable host, and the counts."""
    # lazy (--help imports every verb): loads numpy, pydantic, rich, yaml
    from rich.console import Console
    from rich.table import Table

    from rgt.grid.cells import STATES

    colours = {"verified": "green", "local": "green", "on-host": "yellow", "running": "cyan",
               "partial": "yellow", "missing": "red", "unknown": "magenta"}
    table = Table(title=f"grid: {len(states)} cells")
    for column in ("experiment", "variant", "seed", "run id", "state", "host", "detail",
                   "command"):
        table.add_column(column, overflow="fold")
    for item in states:
        cell = item.cell
        table.add_row(cell.exp_id, cell.variant, str(cell.seed), cell.run_id,
                      f"[{colours[item.state]}]{item.state}[/]", item.host or "", item.detail,
                      item.command or "")
    console = Console(highlight=False)
    if not console.is_terminal:
        console = Console(width=200, highlight=False)  # pipes: never cut a command in two
    console.print(table)
    for view in views:
        if not view.reachable:
            console.print(f"[magenta]unreachable:[/] {view.alias}: {view.error}")
    if any(item.command and SEVERAL_HOSTS in item.command.split() for item in states):
        console.print(f"several hosts: replace {SEVERAL_HOSTS} (or pass --host ALIAS)")
    counts = Counter(item.state for item in states)
    gaps = sum(1 for item in states if item.gap)
    console.print(", ".join(f"{counts[state]} {state}" for state in STATES if counts[state])
                  + (f"; {gaps} gap(s)" if gaps else "; the grid is complete"))
