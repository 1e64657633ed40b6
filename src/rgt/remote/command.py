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
        "up", help="check and audit a host, and record it in config/hosts.yaml",
        description="Connect to an ssh alias (its host key must already be known), audit it, "
                    "store the audit in .rgt/hosts/<alias>/audit.json, and record the host's "
                    "facts in config/hosts.yaml: platform, interpreter, remote root, ssh config "
                    "(the one record the executor and every verb read). A flag left out keeps "
                    "what is recorded. Exits 1 if the planned checkpoints cannot fit on its "
                    "durable disk.")
    parser.add_argument("alias", help="an ssh alias (~/.ssh/config, or --ssh-config FILE)")
    parser.add_argument("--ssh-config", help="the ssh_config file that defines the alias "
                                             "(recorded; default ~/.ssh/config)")
    parser.add_argument("--platform", help="the platform whose facts apply (autodl, runpod, "
                                           "vastai, ssh, ...; recorded; default ssh)")
    parser.add_argument("--root", help="the project directory on the host's durable disk "
                                       "(recorded; default: the platform's durable dir, else "
                                       "the login directory, + /rgt/<project dir>)")
    parser.add_argument("--python", help="the image's interpreter that runs the jobs "
                                         "(recorded; default: the platform's, e.g. python3)")
    parser.add_argument("--config", default="config/config.yaml",
                        help="the config whose planned checkpoints are sized against the disk")
    parser.add_argument("--hosts", default="config/hosts.yaml",
                        help="where the host is recorded (default: %(default)s)")
    parser.add_argument("--json", action="store_true",
                        help="print the audit as JSON (a refusal included, under 'refused')")
    parser.set_defaults(func=run_up)


def run_up(args: argparse.Namespace) -> int:
    """Handler of ``rgt up``."""
    # lazy (--help imports every verb): loads paramiko, pydantic, jsonschema
    from rgt.hosts.register import record_host
    from rgt.remote.hostfacts import owned_facts
    from rgt.remote.ssh import RemoteHost, resolve_host
    from rgt.remote.up import audit_host, audit_path, refuse_unless_fits

    entry, platform, root_origin = wanted_entry(args)
    plan = up_plan(args.config)
    with RemoteHost(resolve_host(args.alias, entry.ssh_config)) as host:
        entry = settled_root(entry, host)
        record = audit_host(host, entry.remote_root, entry.python, plan, platform)
    record.update(alias=args.alias, platform=entry.platform)
    write_json(audit_path(Path.cwd(), args.alias), record)
    changes = record_host(args.hosts, args.alias, owned_facts(entry), by="rgt up")
    print(recorded_text(args.alias, args.hosts, entry, changes, root_origin), file=sys.stderr)
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


def wanted_entry(args: argparse.Namespace):
    """(the host's facts as this call wants them: each flag, else the record, else the
    default; the platform's facts; where the root came from, in words)."""
    # lazy (--help imports every verb): loads jsonschema, yaml
    from rgt.hosts import HostEntry
    from rgt.hosts.registry import load_hosts
    from rgt.platforms.facts import load_platform, project_platforms
    from rgt.remote.hostfacts import absolute_ssh_config, default_root, root_origin

    known = load_hosts(Path(args.hosts)).get(args.alias)
    name = args.platform or (known.platform if known else "ssh")
    platform = load_platform(name, project_platforms(Path.cwd()))
    root, origin = args.root, "--root"
    if root is None and known and known.remote_root:
        root, origin = known.remote_root, f"config/hosts.yaml ({known.provenance()})"
    if root is None:
        root, origin = default_root(platform, Path.cwd()), root_origin(platform)
    python = args.python or (known.python if known else platform.get("python") or "python3")
    ssh_config = absolute_ssh_config(args.ssh_config) or (known.ssh_config if known else None)
    entry = HostEntry(args.alias, name, python=python, remote_root=root, ssh_config=ssh_config)
    return entry, platform, origin


def settled_root(entry, host):
    """``entry`` with its remote root made absolute on the host (``~`` expanded there)."""
    # lazy (--help imports every verb): loads paramiko
    from dataclasses import replace

    from rgt.remote.hostfacts import absolute_on_host

    return replace(entry, remote_root=absolute_on_host(host, entry.remote_root))


def up_plan(config_path: str):
    """The checkpoints the config plans, sized from the smoke records (a built-in variant
    without one is measured here); a string saying why when they cannot be sized."""
    # lazy (--help imports every verb): loads torch, pydantic
    from rgt.config import load_config
    from rgt.platforms.host_audit import AuditError
    from rgt.remote.up import planned_checkpoints
    from rgt.train.smoke import measure_state

    if not Path(config_path).is_file():
        return f"no {config_path} here to plan runs from"

    def measure(spec):  # a declared job's state is its script's: only its smoke gate knows
        return None if spec.settings.job is not None else measure_state(spec)

    try:
        return planned_checkpoints(load_config(config_path), Path.cwd(), measure=measure)
    except AuditError as error:
        return error.message


def recorded_text(alias: str, hosts: str, entry, changes, root_origin: str) -> str:
    """What ``rgt up`` recorded (or that the record already said it), and the next command."""
    where = f"remote root {entry.remote_root} (from {root_origin})"
    if not changes:
        head = f"{alias} is recorded in {hosts} as it is (platform {entry.platform}, {where})"
    else:
        head = (f"recorded {alias} in {hosts}: "
                + "; ".join(change.describe() for change in changes) + f"\n  {where}")
    return f"{head}\nnext: snakemake --profile {entry.platform} --rgt-host {alias}"


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
