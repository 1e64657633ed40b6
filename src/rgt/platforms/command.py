"""``rgt platforms``: what each rented platform's meter stop does, and which clocks run.

``rgt platforms`` lists every platform with its meter-stop verb, what a stop still bills and its
danger clocks, flagging (⚠) a money fact verified more than six months ago;
``rgt platforms --markdown`` prints the table kept in profiles/README.md;
``rgt platforms check`` validates every platform file and exits non-zero naming file, key and fix.
The facts are the ones rgt ships, each overridden by a project file of the same name
(``config/platforms/<name>.yaml``); ``--root DIR`` reads that directory alone.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from rgt.base.errors import ConfigError

STALE_AFTER_MONTHS = 6


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``platforms`` verb and its ``check`` action."""
    parser = subparsers.add_parser(
        "platforms", help="rented-GPU platforms: meter-stop verb, what a stop bills, danger clocks")
    parser.add_argument("--root", default=None,
                        help="read only this directory of platform files (default: the "
                             "project's config/platforms/ over the files rgt ships)")
    parser.add_argument("--today", type=_day, default=None,
                        help="judge fact staleness as of YYYY-MM-DD (default: today)")
    parser.add_argument("--markdown", action="store_true",
                        help="print the danger-clock table of profiles/README.md")
    parser.set_defaults(func=run_list)
    actions = parser.add_subparsers(title="actions", metavar="ACTION")
    check = actions.add_parser("check", help="validate every platform file")
    # SUPPRESS: an absent sub-option must not overwrite `rgt platforms --root X check`.
    check.add_argument("--root", default=argparse.SUPPRESS, help="directory of platform files")
    check.set_defaults(func=run_check)


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date: use YYYY-MM-DD") from None


def run_list(args: argparse.Namespace) -> int:
    """Handler of ``rgt platforms``."""
    platforms = _load(args.root)
    if args.markdown:
        print(danger_table(platforms))
        return 0
    today = args.today or date.today()
    for platform in platforms.values():
        print(describe_platform(platform, today))
    return 0


def run_check(args: argparse.Namespace) -> int:
    """Handler of ``rgt platforms check``: every problem of every file, then a non-zero exit."""
    # lazy (--help imports every verb): loads jsonschema, yaml
    from rgt.platforms.facts import check_all, known_platforms

    root = _root(args.root)
    names = known_platforms(root)
    problems = check_all(root)
    for problem in problems:
        print(f"error: {problem.message}\n  fix: {problem.fix}", file=sys.stderr)
    if not names:
        print(f"error: {root} holds no platform files\n  fix: {NO_FILES_FIX}", file=sys.stderr)
        return 2
    print(f"{len(names) - len(problems)} of {len(names)} platform files valid", file=sys.stderr)
    return 2 if problems else 0


NO_FILES_FIX = "pass --root with a directory of <name>.yaml platform files, or leave --root out"


def _root(root: str | None) -> Path | None:
    return None if root is None else Path(root)


def _load(root: str | None) -> dict[str, dict]:
    # lazy (--help imports every verb): loads jsonschema, yaml
    from rgt.platforms.facts import load_all

    platforms = load_all(_root(root))
    if not platforms:
        raise ConfigError(f"{root} holds no platform files", NO_FILES_FIX)
    return platforms


def describe_platform(platform: dict, today: date) -> str:
    """A platform's money facts as indented lines, with a ⚠ per stale ``verified`` stamp."""
    # lazy (--help imports every verb): loads jsonschema, yaml
    from rgt.platforms.facts import danger_clocks, stale_facts

    stop = platform["meter_stop"]
    kind = "irreversible" if stop["irreversible"] else "reversible"
    lines = [f"{platform['name']}: {platform['display_name']}",
             f"  meter stop: {stop['verb']} ({kind})"]
    if not stop["still_bills"]:
        lines.append("  a stop still bills: nothing")
    lines += [f"  danger: {clock}" for clock in danger_clocks(platform)]
    stale = stale_facts(platform, today, STALE_AFTER_MONTHS)
    for stamp in sorted({_lookup(platform, path) for path in stale}):
        paths = ", ".join(path for path in stale if _lookup(platform, path) == stamp)
        lines.append(f"  ⚠ verified {stamp}, over {STALE_AFTER_MONTHS} months ago: {paths}; "
                     f"re-check with the provider, then update "
                     f"config/platforms/{platform['name']}.yaml (a project's file overrides "
                     f"the one rgt ships)")
    return "\n".join(lines)


def _lookup(platform: dict, dotted: str):
    node = platform
    for key in dotted.split("."):
        node = node[key]
    return node


def danger_table(platforms: dict[str, dict]) -> str:
    """The Markdown danger-clock table, one row per platform (what profiles/README.md shows)."""
    rows = ["| Platform | Meter stop | Irreversible | A stop still bills | Auto-release | "
            "Preemption grace | Trap |",
            "|---|---|---|---|---|---|---|"]
    for name, platform in sorted(platforms.items()):
        rows.append("| " + " | ".join(_cell(value) for value in table_row(name, platform)) + " |")
    return "\n".join(rows)


def table_row(name: str, platform: dict) -> list[str]:
    """One row of ``danger_table``: the facts as the README shows them."""
    stop, preemption = platform["meter_stop"], platform["preemption"]
    days = platform["auto_release"]["after_days"]
    grace, signal = preemption["grace_seconds"], preemption["signal"] or "no signal"
    warning = "no preemption" if grace is None else f"{grace:g} s, {signal}"
    release = "none known" if days is None else f"after {days} days stopped"
    return [f"`{name}`", stop["verb"], "yes" if stop["irreversible"] else "no",
            stop["still_bills"] or "nothing", release, warning, stop["trap"]]


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")
