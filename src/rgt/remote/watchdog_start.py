"""Controller side of the watchdog: the shell text that starts it on the host, and its options.

The job launcher runs ``watchdog_start_script(...)`` over SSH right after launching a job. The
script returns at once; it starts ``python -m rgt watchdog`` detached (setsid + nohup) only when
no live watchdog of this root already runs. A live one is told apart from a reused pid by the
marker ``: rgt-watchdog <root>`` in the detached wrapper's argv (as ``probe_script`` does with
the run id); the watchdog itself also holds an exclusive lock on ``<root>/watchdog/lock``, so
two launches racing each other still leave one watchdog.
"""

from __future__ import annotations

import shlex

from rgt.base.errors import ConfigError
from rgt.hosts import HostEntry


def watchdog_dir(root: str) -> str:
    """Where the watchdog keeps its pid, log, heartbeat, status, ALARM and STOPPED files."""
    return helper_dir(root, "watchdog")


def helper_dir(root: str, name: str) -> str:
    """Where a detached helper of ``root`` (``watchdog``, ``mirror``) keeps its pid and log."""
    return f"{root}/{name}"


def watchdog_marker(root: str) -> str:
    """The text in the detached wrapper's argv that identifies this root's watchdog."""
    return helper_marker(root, "watchdog")


def helper_marker(root: str, name: str) -> str:
    """The text in a detached helper's argv that identifies it (``: rgt-NAME ROOT;``)."""
    return f": {shlex.quote(f'rgt-{name} {root}')};"


def watchdog_start_script(root: str, python: str, pythonpath: str, options: list[str]) -> str:
    """Shell text that starts the watchdog of ``root`` detached unless a live one runs.

    ``python`` is the host's interpreter, ``pythonpath`` the directory holding the ``rgt``
    package (the pushed code tree's ``src``), ``options`` the extra ``rgt watchdog`` arguments
    (see ``watchdog_options``). Prints ``watchdog: running <pid>`` or ``watchdog: started <pid>``;
    exits 0 either way.
    """
    return helper_start_script(root, "watchdog", python, pythonpath,
                               ["watchdog", "--root", root, *options])


def helper_start_script(root: str, name: str, python: str, pythonpath: str, argv: list[str],
                        secrets_file: str | None = None) -> str:
    """Shell text that starts ``python -m rgt ARGV`` detached as ``root``'s helper ``name``
    unless a live one runs (its marker in the recorded pid's argv). ``secrets_file`` (mode
    600, written over stdin) is read into its environment: values never reach an argv."""
    directory = shlex.quote(helper_dir(root, name))
    marker = helper_marker(root, name)
    command = " ".join(shlex.quote(part) for part in [python, "-m", "rgt", *argv])
    secrets = f"set -a; . {shlex.quote(secrets_file)}; set +a; " if secrets_file else ""
    # The command after the helper keeps this bash (whose argv holds the marker) alive: bash
    # would otherwise exec the last command of its -c string, and the marker would be gone.
    body = shlex.quote(f"{marker} {secrets}export PYTHONPATH={shlex.quote(pythonpath)}; "
                       f"export PYTHONUNBUFFERED=1; {command}; "
                       f'echo "$(date -u +%FT%TZ) {name} exited with status $?"')
    return "\n".join([
        "set -eu",
        f"mkdir -p {directory}",
        f"pid=$(cat {directory}/pid 2>/dev/null || echo -)",
        f'if [ "$pid" != - ] && grep -qaF -- {shlex.quote(marker)} "/proc/$pid/cmdline" '
        f'2>/dev/null; then echo "{name}: running $pid"; exit 0; fi',
        f"setsid nohup bash -c {body} >> {directory}/{name}.log 2>&1 < /dev/null &",
        f'echo $! > {directory}/pid; echo "{name}: started $!"',
    ]) + "\n"


def watchdog_options(entry: HostEntry, platform: dict) -> list[str]:
    """``rgt watchdog`` options for a host from ``config/hosts.yaml`` and its platform facts.

    Auto-stop is passed only when the user opted in (``auto_stop: true`` with a
    ``host_stop_command``) and the platform's meter-stop verb is not irreversible; an opt-in on
    a platform whose stop destroys something is refused here, before anything is launched.
    """
    options = ["--idle-alarm-after", str(entry.idle_alarm_after_s),
               "--stall-after", str(entry.stall_after_s), "--host-name", entry.alias]
    options += money_options(entry)
    if not entry.auto_stop:
        return options
    stop = platform["meter_stop"]
    if stop["irreversible"]:
        raise ConfigError(
            f"host {entry.alias}: auto_stop is true, but {entry.platform}'s meter stop "
            f"'{stop['verb']}' is irreversible ({stop.get('destroys', 'it destroys data')})",
            f"set auto_stop: false for {entry.alias} in config/hosts.yaml; the watchdog will "
            "still raise its idle alarm")
    if not entry.host_stop_command:
        raise ConfigError(f"host {entry.alias}: auto_stop is true but host_stop_command is "
                          "not set", f"set host_stop_command for {entry.alias} in "
                          "config/hosts.yaml (e.g. [shutdown, -h, now]) or auto_stop: false")
    return [*options, "--auto-stop", "--stop-irreversible", "false", "--stop-command",
            *entry.host_stop_command]


def money_options(entry: HostEntry) -> list[str]:
    """The price and the spending caps of ``entry`` as ``rgt watchdog`` options."""
    if entry.price_per_hour is None:
        return []
    options = ["--price-per-hour", str(entry.price_per_hour), "--currency", entry.currency]
    for flag, value in (("--max-spend", entry.max_spend),
                        ("--max-spend-per-run", entry.max_spend_per_run)):
        if value is not None:
            options += [flag, str(value)]
    return options


def webhook_file(root: str) -> str:
    """Where the alarm webhook's URL is kept on the host, relative to the login directory
    (where the watchdog starts): the instance's own disk, mode 600, never the durable
    (mirrored, pulled) project root."""
    return f".rgt-secrets/{root.rstrip('/').rsplit('/', 1)[-1]}.webhook"
