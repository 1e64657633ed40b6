"""``rgt up ALIAS``: reach a rented host, audit it, and refuse a plan that cannot fit."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rgt.base.errors import RgtError
from rgt.base.files import write_json


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``up`` verb."""
    parser = subparsers.add_parser(
        "up", help="check and audit a host: disk, inodes, memory, GPUs, interpreter, budget",
        description="Connect to an ~/.ssh/config alias (host key must already be known), "
                    "audit it, store the audit in .rgt/hosts/<alias>/audit.json, register the "
                    "host in config/hosts.yaml the first time, and exit 1 if the planned "
                    "checkpoints cannot fit on its durable disk.")
    parser.add_argument("alias", help="an ~/.ssh/config alias")
    parser.add_argument("--ssh-config", help="ssh_config file instead of ~/.ssh/config")
    parser.add_argument("--platform", default="ssh", help="config/platforms/<name>.yaml")
    parser.add_argument("--root", help="project directory on the durable disk "
                                       "(default: the platform's durable dir + /rgt)")
    parser.add_argument("--python", default="python3", help="the interpreter jobs will use")
    parser.add_argument("--config", default="config/config.yaml", help="config file")
    parser.add_argument("--hosts", default="config/hosts.yaml",
                        help="where the host is registered (default: %(default)s)")
    parser.add_argument("--json", action="store_true",
                        help="print the audit as JSON (a refusal included, under 'refused')")
    parser.set_defaults(func=run_up)


def run_up(args: argparse.Namespace) -> int:
    """Handler of ``rgt up``."""
    # lazy (--help imports every verb): loads torch, paramiko, pydantic, jsonschema
    from rgt.config import load_config
    from rgt.hosts.register import register_host
    from rgt.platforms.facts import load_platform
    from rgt.remote.ssh import RemoteHost, resolve_host
    from rgt.remote.up import audit_host, audit_path, planned_checkpoints, refuse_unless_fits
    from rgt.train.smoke import measure_state

    platform = load_platform(args.platform)
    root = args.root or f"{platform.get('durable_dir') or '~'}/rgt"
    plan = planned_checkpoints(load_config(args.config), Path.cwd(), measure=measure_state)
    with RemoteHost(resolve_host(args.alias, args.ssh_config)) as host:
        record = audit_host(host, root, args.python, plan, platform)
    record.update(alias=args.alias, platform=args.platform)
    write_json(audit_path(Path.cwd(), args.alias), record)
    fields = {"platform": args.platform, "python": args.python,
              **({"remote_root": args.root} if args.root else {})}
    if register_host(args.hosts, args.alias, fields):
        print(f"registered {args.alias} in {args.hosts} (platform {args.platform}): "
              f"snakemake --profile {args.platform} --rgt-host {args.alias}", file=sys.stderr)
    try:
        refuse_unless_fits(record)
        refusal = None
    except RgtError as error:
        refusal = error
    if args.json:  # one JSON document on stdout, a refusal in it (and on stderr)
        refused = {"refused": {"error": refusal.message, "fix": refusal.fix}} if refusal else {}
        print(json.dumps({**record, **refused}, indent=2))
    else:
        print(_summary(record))
    if refusal is not None:
        refusal.printed_json = args.json
        raise refusal
    return 0


def _summary(record: dict) -> str:
    python, disk = record["python"], record["disk"]
    gpus = ", ".join(f"{g['name']} ({g['memory_total_mib']} MiB)" for g in record["gpus"])
    memory = record["memory_limit_bytes"]
    return "\n".join([
        f"{record['alias']} ({record['platform']}): reached in {record['latency_s']:.2f} s",
        f"  disk {disk['mount']}: {disk['free']:,} bytes free of {disk['total']:,}",
        f"  memory limit (cgroup): {'unlimited' if memory is None else f'{memory:,} bytes'}",
        f"  GPUs: {gpus or 'none'}",
        f"  interpreter {python['executable']}: python {python['python']}, torch "
        f"{python['torch'] or 'MISSING'}, CUDA {'yes' if python['cuda_available'] else 'no'}",
        "  " + record["budget"]["summary"].replace("\n", "\n  "),
        *_gotcha_lines(record.get("gotchas", [])),
    ])


def _gotcha_lines(gotchas: list[dict]) -> list[str]:
    """The platform gotcha verdicts (rgt.platforms.gotchas): one line each, a warning's fix
    under it."""
    lines = []
    for item in gotchas:
        lines.append(f"  {item['severity']:<7} {item['entry']:<4} {item['check']}: "
                     f"{item['message']}")
        if item["fix"]:
            lines.append(f"          fix: {item['fix']}")
    return lines
