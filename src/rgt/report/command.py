"""``rgt report``: the delivery report (Markdown and HTML)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rgt.base.files import write_text
from rgt.deliver.inputs import read_document
from rgt.evidence.claims import EVIDENCE_SCHEMA


def register(subparsers) -> None:
    """Add the ``report`` verb."""
    parser = subparsers.add_parser(
        "report", help="every delivered number with its run, disclosures and status (md + html)"
    )
    parser.add_argument("--evidence", default="evidence/EVIDENCE.json",
                        help="default: evidence/EVIDENCE.json")
    parser.add_argument("--runs", default="runs", help="default: runs")
    parser.add_argument("--export", default="export", help="pulled runs (default: export)")
    parser.add_argument("--out", default="evidence/report",
                        help="writes OUT.md and OUT.html (default: evidence/report)")
    parser.set_defaults(func=run_report)


def run_report(args: argparse.Namespace) -> int:
    """Handler of ``rgt report``."""
    # lazy (--help imports every verb; all verbs' own modules together: 50 ms)
    from rgt.report.build import render_html, render_markdown, report_rows

    evidence = read_document(args.evidence, EVIDENCE_SCHEMA, "rgt evidence")
    rows = report_rows(evidence, args.runs, args.export)
    write_text(Path(f"{args.out}.md"), render_markdown(rows, args.evidence))
    write_text(Path(f"{args.out}.html"), render_html(rows, args.evidence))
    delivered = sum(row["status"] == "delivered" for row in rows)
    print(f"{args.out}.md, {args.out}.html: {len(rows)} numbers, {delivered} delivered",
          file=sys.stderr)
    return 0
