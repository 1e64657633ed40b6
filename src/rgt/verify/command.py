"""``rgt verify``: audit finished runs, write the JSON and Markdown reports; never blocks.

Registering the verb imports nothing heavy: numpy, scipy, pyarrow and matplotlib load only
when the verb runs.
"""

from __future__ import annotations

import argparse
from pathlib import PurePosixPath

from rgt.plan.paths import smoke_record
from rgt.plan.rundirs import add_only_option

SMOKE_DIR = str(PurePosixPath(smoke_record("any")).parent)


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
    parser.add_argument("--bootstrap", type=_positive_int, default=2000, metavar="N",
                        help="bootstrap resamples for the CI of each difference (default: 2000)")
    parser.add_argument("--min-effect", type=_non_negative_float, default=0.01, metavar="X",
                        help="smallest difference worth detecting; an MDE above it makes a "
                             "null result 'underpowered' (default: 0.01)")
    parser.add_argument("--smoke-dir", default=SMOKE_DIR,
                        help="smoke records whose probe results become findings "
                             f"(default: {SMOKE_DIR})")
    add_only_option(parser)
    parser.set_defaults(func=run_verify)


def run_verify(args: argparse.Namespace) -> int:
    """Run the audit and write both reports; returns 0 whatever the findings."""
    from rgt.verify.audit import audit_runs
    from rgt.verify.compare import Settings
    from rgt.verify.report import write_report

    audit = audit_runs(args.runs, Settings(n_resamples=args.bootstrap,
                                           min_effect=args.min_effect), args.only,
                       args.smoke_dir)
    write_report(audit, args.json, args.md)
    errors = sum(1 for finding in audit.findings if finding.severity == "error")
    print(f"verify: {len(audit.comparisons)} comparisons, {len(audit.findings)} findings "
          f"({errors} errors) -> {args.json}, {args.md}")
    return 0


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return value
