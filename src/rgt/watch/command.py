"""``rgt watch`` (on the laptop) and ``rgt watchdog`` (on the host)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rgt.base.errors import ConfigError, RgtError
from rgt.hosts import EXAMPLE, add_host_options


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``watch`` and ``watchdog`` verbs."""
    watch = subparsers.add_parser(
        "watch", help="live view of every run on every registered host",
        description="Show every run on the hosts of config/hosts.yaml (or the --host ones): "
                    "state computed from pid, exit and heartbeat files, step, loss, "
                    "throughput, ETA, heartbeat age, GPU use, money spent and projected, and "
                    "the cause of a failure. One short SSH command per host per refresh.")
    watch.add_argument("--host", action="append", metavar="ALIAS",
                       help="only this registered host (repeatable)")
    add_host_options(watch)
    watch.add_argument("--once", action="store_true", help="one refresh, then exit")
    watch.add_argument("--json", action="store_true", help="print the rows as JSON (with --once)")
    watch.add_argument("--interval", type=float, default=5.0, help="seconds between refreshes")
    watch.set_defaults(func=run_watch)
    dog = subparsers.add_parser(
        "watchdog", help="(runs on the host) keep run state and raise the idle alarm",
        description="Started detached next to the jobs. Writes <root>/watchdog/heartbeat.json "
                    "and status.json every interval, raises <root>/watchdog/ALARM when no job "
                    "has run for --idle-alarm-after seconds, runs --stop-command once only "
                    "with --auto-stop --stop-irreversible false, then exits.")
    dog.add_argument("--root", required=True, help="the project directory on this host")
    dog.add_argument("--interval", type=float, default=30.0, help="seconds between checks")
    dog.add_argument("--idle-alarm-after", type=float, default=1800.0,
                     help="seconds with no running job before the alarm")
    dog.add_argument("--stall-after", type=float, default=600.0,
                     help="a job without progress for this long is stalled")
    dog.add_argument("--host-name", default="this host", help="the host's alias, for messages")
    dog.add_argument("--price-per-hour", type=float, help="what the host costs per hour")
    dog.add_argument("--currency", default="", help="the price's currency")
    dog.add_argument("--max-spend", type=float,
                     help="past this cost of the host: checkpoint its jobs, then stop or alarm")
    dog.add_argument("--max-spend-per-run", type=float,
                     help="past this cost of a run's attempt: checkpoint that job")
    dog.add_argument("--cap-grace", type=float, default=300.0,
                     help="seconds the checkpointed jobs get to end before the stop")
    dog.add_argument("--webhook-file", help="a file (mode 600) holding the URL alarms are "
                                            "POSTed to")
    dog.add_argument("--auto-stop", action="store_true",
                     help="run --stop-command after the alarm (the user opted in)")
    dog.add_argument("--stop-irreversible", choices=("true", "false"),
                     help="what the platform data says of the stop verb; auto-stop needs false")
    dog.add_argument("--stop-command", nargs=argparse.REMAINDER, default=[],
                     help="the stop command and its arguments (must come last)")
    dog.set_defaults(func=run_watchdog_verb)


def run_watch(args: argparse.Namespace) -> int:
    """Handler of ``rgt watch``."""
    # lazy (--help imports every verb): loads paramiko, rich, yaml
    from rgt.controller.show import controller_line
    from rgt.watch.poll import HostPoller

    if args.json and not args.once:
        raise ConfigError("rgt watch --json prints one refresh", "add --once")
    if args.interval <= 0:
        raise ConfigError(f"--interval {args.interval:g} is not positive",
                          "give the seconds between refreshes, e.g. --interval 5")
    # A project with only a local detached controller (no hosts yet) still has something to show.
    hosts = selected_hosts(args.hosts, args.host,
                           allow_none=controller_line(Path.cwd()) is not None)
    poller = HostPoller(hosts, args.ssh_config, Path.cwd(), checkpoints_root(Path.cwd()),
                        _configured_path(Path.cwd(), "runs"))
    try:
        if args.once:
            return _print_once(poller.refresh(), args.json)
        return _live(poller, args.interval)
    finally:
        poller.close()


def checkpoints_root(project: Path) -> Path:
    """The project's local checkpoint directory, where the mirrors are (``paths.checkpoints``;
    the default when the config cannot be read: watching must not need a valid config)."""
    return project / _configured_path(project, "checkpoints")


def tensorboard_line(project: Path) -> str:
    """The command that shows every sealed run's scalars (event files beside train.csv)."""
    from rgt.train.tensorboard import available  # lazy (--help imports every verb)

    command = f"tensorboard --logdir {_configured_path(project, 'runs')}"
    if available():
        return f"TensorBoard (sealed runs' scalars): {command}"
    return (f"TensorBoard: pip install 'remote-gpu-trainer[tensorboard]', then new runs "
            f"write event files for `{command}`")


def _configured_path(project: Path, name: str) -> str:
    """``paths.<name>`` of the project's config, or its default when the config cannot be
    read."""
    # lazy (--help imports every verb): loads pydantic, yaml
    from rgt.config import load_config

    try:
        return str(getattr(load_config(project / "config" / "config.yaml").paths, name))
    except (RgtError, OSError):
        return name


def selected_hosts(path: str, aliases: list[str] | None, allow_none: bool = False) -> list:
    """The registered hosts to watch: all of ``path``, or the named ones (each registered);
    none registered is an error unless ``allow_none``."""
    # lazy (--help imports every verb): loads jsonschema, yaml
    from rgt.hosts.registry import host_entry, load_hosts

    if aliases:
        return [host_entry(alias, path) for alias in dict.fromkeys(aliases)]
    hosts = load_hosts(path)
    if not hosts and not allow_none:
        raise ConfigError(f"no hosts are registered in {path}",
                          f"copy {EXAMPLE} to {path} and add your hosts, or pass --hosts FILE")
    return list(hosts.values())


def _print_once(rows: list[dict], as_json: bool) -> int:
    # lazy (--help imports every verb): loads rich
    from rich.console import Console

    from rgt.controller.show import controller_line
    from rgt.watch.rows import json_number
    from rgt.watch.view import render

    if as_json:
        safe = [{key: json_number(value) for key, value in row.items()} for row in rows]
        print(json.dumps(safe, indent=2, sort_keys=True))
    else:
        console = Console()
        (console if console.is_terminal else Console(width=200)).print(
            render(rows, controller_line(Path.cwd())))
        print(tensorboard_line(Path.cwd()))
    return 0


def _live(poller, interval: float) -> int:
    # lazy (--help imports every verb): loads rich
    from rich.live import Live

    from rgt.controller.show import controller_line
    from rgt.watch.view import render

    print(tensorboard_line(poller.project))
    try:
        with Live(render(poller.refresh(), controller_line(poller.project)),
                  auto_refresh=False) as live:
            while True:
                time.sleep(interval)
                live.update(render(poller.refresh(), controller_line(poller.project)),
                            refresh=True)
    except KeyboardInterrupt:
        return 0  # leaving the view is how it ends; nothing on the hosts changes


def run_watchdog_verb(args: argparse.Namespace) -> int:
    """Handler of ``rgt watchdog``."""
    # lazy (--help imports every verb; all verbs' own modules together: 50 ms)
    from rgt.watch.spend_cap import Caps
    from rgt.watch.watchdog import Settings, run_watchdog

    for name in ("interval", "idle_alarm_after", "stall_after", "cap_grace", "price_per_hour",
                 "max_spend", "max_spend_per_run"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise ConfigError(f"--{name.replace('_', '-')} {value:g} is not positive",
                              "give a number above 0")
    if (args.max_spend or args.max_spend_per_run) and args.price_per_hour is None:
        raise ConfigError("a spending cap without --price-per-hour cannot be counted",
                          "pass --price-per-hour (config/hosts.yaml's price_per_hour)")
    irreversible = None if args.stop_irreversible is None else args.stop_irreversible == "true"
    caps = Caps(args.price_per_hour, args.max_spend, args.max_spend_per_run, args.currency,
                args.host_name, args.cap_grace)
    return run_watchdog(Settings(
        root=args.root, interval_s=args.interval, idle_alarm_after_s=args.idle_alarm_after,
        stall_after_s=args.stall_after, auto_stop=args.auto_stop,
        stop_irreversible=irreversible, stop_command=list(args.stop_command), caps=caps,
        webhook_file=args.webhook_file))
