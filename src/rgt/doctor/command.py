"""``rgt doctor``: static checks of training code, a failed log's diagnosis, a host's gotchas."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rgt.base.errors import RgtError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``doctor`` verb."""
    parser = subparsers.add_parser(
        "doctor", help="diagnose training code, a failed run's log, or a host's gotchas",
        description="rgt doctor PATH: static checks of training code (exit 1 on an error "
                    "finding). rgt doctor --log FILE: the cause of a failed run and its fixes. "
                    "rgt doctor --host ALIAS: the platform gotchas read off a host. Every "
                    "finding names its catalogue entry (docs/doctor.md).")
    parser.add_argument("path", nargs="?", help="a Python file or a directory of training code")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--torch", metavar="VERSION",
                        help="with PATH: the torch the code runs with, for its version-dependent "
                             "defaults (default: the one installed here)")
    parser.add_argument("--log", action="append", metavar="FILE",
                        help="a run's log (train.log, job.log, or your own); repeatable")
    parser.add_argument("--exit-code", type=int, help="with --log: the exit code the run had")
    parser.add_argument("--oom-kills", type=int,
                        help="with --log: the cgroup's oom_kill count (memory.events)")
    parser.add_argument("--host", metavar="ALIAS", help="an ~/.ssh/config alias to examine")
    parser.add_argument("--ssh-config", help="with --host: ssh_config instead of ~/.ssh/config")
    parser.add_argument("--platform", help="with --host: config/platforms/<name> (default: the "
                                           "host's record in config/hosts.yaml, else ssh)")
    parser.add_argument("--root", help="with --host: the durable project directory on the host")
    parser.set_defaults(func=run_doctor)


def run_doctor(args: argparse.Namespace) -> int:
    """Handler of ``rgt doctor``: exactly one of PATH, --log and --host."""
    modes = [name for name, given in (("PATH", args.path), ("--log", args.log),
                                      ("--host", args.host)) if given]
    if len(modes) != 1:
        raise RgtError(f"rgt doctor needs exactly one of PATH, --log FILE and --host ALIAS "
                       f"(got {', '.join(modes) or 'none'})",
                       "e.g. `rgt doctor train.py`, `rgt doctor --log checkpoints/<run>/train.log`"
                       " or `rgt doctor --host my-gpu`")
    if args.path:
        return _static(args)
    return _log(args) if args.log else _host(args)


def _static(args: argparse.Namespace) -> int:
    # lazy (--help imports every verb): loads yaml
    from rgt.doctor.static import check_path, has_errors, torch_version

    findings = check_path(Path(args.path), torch_version(args.torch))
    if args.json:
        print(json.dumps([finding.to_json() for finding in findings], indent=2))
    else:
        _table(["severity", "entry", "where", "finding", "fix"],
               [(f.severity, f.entry, f"{f.file}:{f.line}", f"[{f.check}] {f.message}", f.fix)
                for f in findings], f"rgt doctor {args.path}: no findings")
    return 1 if has_errors(findings) else 0


def _log(args: argparse.Namespace) -> int:
    # lazy (--help imports every verb): loads yaml
    from rgt.doctor.logs import as_json, diagnose

    cause, entries, advice = diagnose([Path(p) for p in args.log], args.exit_code,
                                      args.oom_kills)
    if args.json:
        print(json.dumps(as_json(cause, entries, advice), indent=2))
        return 0
    print(f"cause: {cause.name} — {cause.detail}\n{advice}")
    _table(["entry", "symptom", "cause", "fix"],
           [(e.id, e.symptom, e.cause, e.fix) for e in entries], "")
    return 0


def _host(args: argparse.Namespace) -> int:
    # lazy (--help imports every verb): loads jsonschema, numpy, paramiko, pydantic, yaml
    from rgt.hosts.registry import load_hosts
    from rgt.platforms.facts import load_platform, project_platforms
    from rgt.platforms.gotchas import WARNING, host_gotchas
    from rgt.remote.hostfacts import absolute_on_host, default_root
    from rgt.remote.ssh import RemoteHost, resolve_host
    from rgt.remote.up import query_host

    entry = load_hosts().get(args.host)  # a recorded host: its own facts
    platform = load_platform(args.platform or (entry.platform if entry else "ssh"),
                             project_platforms(Path.cwd()))
    ssh_config = entry.ssh_config_for(args.ssh_config) if entry else args.ssh_config
    with RemoteHost(resolve_host(args.host, ssh_config)) as host:
        root = absolute_on_host(host, args.root or (entry and entry.remote_root)
                                or default_root(platform, Path.cwd()))
        gotchas = host_gotchas(query_host(host, root, python=None), root)
    if args.json:
        print(json.dumps(gotchas, indent=2))
    else:
        _table(["severity", "entry", "check", "finding", "fix"],
               [(g["severity"], g["entry"], g["check"], g["message"], g["fix"])
                for g in gotchas], "")
    return 1 if any(g["severity"] == WARNING for g in gotchas) else 0


def _table(columns: list[str], rows: list[tuple], empty: str) -> None:
    # lazy (--help imports every verb): loads rich
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    if not rows:
        if empty:
            console.print(empty)
        return
    table = Table(show_lines=True)
    for column in columns:
        table.add_column(column, overflow="fold")  # paths and fixes are never cut short
    for row in rows:
        table.add_row(*(Text(str(cell)) for cell in row))  # user text: no markup
    (console if console.is_terminal else Console(width=160)).print(table)
