"""``rgt verify``: audit finished runs, write the JSON and Markdown reports; never blocks.

Registering the verb imports nothing heavy: numpy, scipy, pyarrow and matplotlib load only
when the verb runs.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path, PurePosixPath

from rgt.plan.paths import smoke_record
from rgt.plan.rundirs import add_only_option
from rgt.verify.settings import (
    MULTIPLICITY,
    PAIRINGS,
    MinEffect,
    Settings,
    parse_min_effect,
    settings_from_config,
)
from rgt.verify.summary import verdict_line

SMOKE_DIR = str(PurePosixPath(smoke_record("any")).parent)
DEFAULT_CONFIG = "config/config.yaml"


def register(subparsers) -> None:
    """Add the ``verify`` verb to the top-level ``rgt`` parser."""
    parser = subparsers.add_parser(
        "verify",
        help="audit runs: classify comparisons, re-derive metrics, report findings",
        description="Audit every finished run: effect / noise / underpowered / confounded / "
                    "suspect-bug per comparison, plus integrity findings. Exits 0 even when "
                    "findings exist; non-zero only for unusable input.",
    )
    parser.add_argument("--runs", default="runs", help="run directories (default: runs)")
    parser.add_argument("--json", default="verify/report.json",
                        help="JSON report path (default: verify/report.json)")
    parser.add_argument("--md", default="verify/report.md",
                        help="Markdown report path; plots go to <its dir>/plots "
                             "(default: verify/report.md)")
    parser.add_argument("--config", default=None, metavar="FILE",
                        help="config whose `verify:` section sets min effects, pairing and "
                             "multiplicity (default: config/config.yaml when it exists)")
    parser.add_argument("--min-effect", type=_min_effect_override, action="append",
                        default=[], metavar="METRIC=X",
                        help="smallest difference worth detecting for one metric, overriding "
                             "the config: 0.01 (metric units), 2%% (of the baseline mean) or "
                             "0.5sd (seed sd); repeatable")
    parser.add_argument("--pairing", choices=PAIRINGS, default=None,
                        help="unpaired (Welch t) or paired (paired t over shared seeds); "
                             "overrides the config")
    parser.add_argument("--multiplicity", choices=MULTIPLICITY, default=None,
                        help="holm (family-wise), bh (false discovery rate) or none, over one "
                             "experiment's comparisons; overrides the config")
    parser.add_argument("--smoke-dir", default=SMOKE_DIR,
                        help="smoke records whose probe results become findings "
                             f"(default: {SMOKE_DIR})")
    add_only_option(parser)
    parser.set_defaults(func=run_verify)


def run_verify(args: argparse.Namespace) -> int:
    """Run the audit, write both reports and print one verdict line per comparison; 0 whatever
    the findings."""
    # lazy (--help imports every verb): loads matplotlib, numpy, pyarrow, pydantic, scipy, yaml
    from rgt.verify.audit import audit_runs
    from rgt.verify.report import write_report
    audit = audit_runs(args.runs, verify_settings(args), args.only, args.smoke_dir)
    write_report(audit, args.json, args.md)
    for comparison in audit.comparisons:
        print(verdict_line(comparison.to_dict()))
    errors = sum(1 for finding in audit.findings if finding.severity == "error")
    print(f"verify: {len(audit.comparisons)} comparisons, {len(audit.findings)} findings "
          f"({errors} errors) -> {args.json}, {args.md}")
    return 0


def verify_settings(args: argparse.Namespace) -> Settings:
    """The config's ``verify:`` settings with the command line's overrides applied."""
    settings = _config_settings(args.config)
    settings = settings.with_overrides(dict(args.min_effect))
    if args.pairing:
        settings = replace(settings, pairing=args.pairing)
    if args.multiplicity:
        settings = replace(settings, multiplicity=args.multiplicity)
    return settings


def _config_settings(config_file: str | None) -> Settings:
    if config_file is None and not Path(DEFAULT_CONFIG).is_file():
        return Settings()
    # lazy (--help imports every verb): loads pydantic, yaml
    from rgt.config import load_config

    return settings_from_config(load_config(config_file or DEFAULT_CONFIG).verify)


def _min_effect_override(text: str) -> tuple[str, MinEffect]:
    metric, sep, value = text.partition("=")
    if not sep or not metric.strip():
        raise argparse.ArgumentTypeError(
            f"expected METRIC=VALUE (e.g. accuracy=0.01 or loss=2%), got {text!r}")
    try:
        return metric.strip(), parse_min_effect(value.strip(), f"--min-effect {metric.strip()}")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
