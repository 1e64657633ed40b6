"""Delivery checks: ``rgt reconcile`` (documents vs evidence), ``rgt check-evidence`` (rebuild
vs reference) and ``rgt data-pin`` (data vs its committed hashes)."""

from __future__ import annotations

import argparse
import json
import sys

from rgt.deliver.inputs import read_document
from rgt.evidence.claims import EVIDENCE_SCHEMA

EVIDENCE_PATH = "evidence/EVIDENCE.json"


def register(subparsers) -> None:
    """Add the ``reconcile`` and ``check-evidence`` verbs."""
    parser = subparsers.add_parser(
        "reconcile",
        help="find numbers in documents that no longer match EVIDENCE.json (exit 1 on drift)",
    )
    parser.add_argument("--evidence", default=EVIDENCE_PATH, help=f"default: {EVIDENCE_PATH}")
    parser.add_argument("--docs", nargs="+", metavar="PATH",
                        help="files or folders (default: README.md, paper/, docs/)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(func=run_reconcile)
    parser = subparsers.add_parser(
        "check-evidence",
        help="compare regenerated evidence with a reference copy within tolerances (make repro)",
    )
    parser.add_argument("--reference", required=True, help="the committed EVIDENCE.json")
    parser.add_argument("--evidence", default=EVIDENCE_PATH, help=f"default: {EVIDENCE_PATH}")
    parser.add_argument("--json", action="store_true", help="print the mismatches as JSON")
    parser.set_defaults(func=run_check_evidence)
    parser = subparsers.add_parser(
        "data-pin", help="pin (or --check) the sha256 of every planned run's data and split"
    )
    parser.add_argument("--config", default="config/config.yaml", help="default: %(default)s")
    parser.add_argument("--out", default="evidence/data.json", help="default: %(default)s")
    parser.add_argument("--check", action="store_true",
                        help="compare with the pins in --out instead of writing them")
    parser.set_defaults(func=run_data_pin)


def run_reconcile(args: argparse.Namespace) -> int:
    """Handler of ``rgt reconcile``: 0 when no document drifted, 1 otherwise."""
    # lazy (--help imports every verb; all verbs' own modules together: 50 ms)
    from rgt.evidence.documents import find_documents
    from rgt.evidence.reconcile import reconcile, require_claims

    evidence = read_document(args.evidence, EVIDENCE_SCHEMA, "rgt evidence")
    report = reconcile(require_claims(evidence, args.evidence), find_documents(args.docs))
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
    else:
        print_reconcile(report)
    return 0 if report["ok"] else 1


def print_reconcile(report: dict) -> None:
    """One line per drifted and unmapped number, then a summary."""
    for item in report["drift"]:
        print(f"{item['file']}:{item['line']}: DRIFT {item['claim']}: found {item['found']}, "
              f"the evidence says {item['expected']!r}")
    for item in report["unmapped"]:
        print(f"{item['file']}:{item['line']}: unmapped number near a claim's alias: "
              f"{item['text']}")
    print(f"{len(report['files'])} document(s): {len(report['matched'])} number(s) match, "
          f"{len(report['drift'])} drifted, {len(report['unmapped'])} unmapped", file=sys.stderr)
    if report["drift"]:
        print("  fix: update the documents to the evidence (or rerun the pipeline if the "
              "evidence is what is stale)", file=sys.stderr)


def run_check_evidence(args: argparse.Namespace) -> int:
    """Handler of ``rgt check-evidence``: 0 when every reference number is reproduced."""
    # lazy (--help imports every verb): loads jsonschema, yaml
    from rgt.evidence.check_reference import compare_evidence

    reference = read_document(args.reference, EVIDENCE_SCHEMA, "rgt evidence")
    current = read_document(args.evidence, EVIDENCE_SCHEMA, "rgt evidence")
    mismatches = compare_evidence(reference, current)
    if args.json:
        print(json.dumps(mismatches, indent=2, sort_keys=True))
    for item in mismatches if not args.json else []:
        print(f"MISMATCH {item['claim']}: {item['problem']}")
    total = len(reference.get("claims") or [])
    failed = {item["claim"] for item in mismatches}
    reproduced = sum(claim["id"] not in failed for claim in reference.get("claims") or [])
    print(f"{args.evidence} vs {args.reference}: {reproduced} of {total} reference "
          f"claim(s) reproduced, {len(mismatches)} mismatch(es)", file=sys.stderr)
    if mismatches:
        print("  fix: find what changed (code, data, environment); if the new numbers are "
              "right, commit the regenerated evidence as the reference", file=sys.stderr)
    return 1 if mismatches else 0


def run_data_pin(args: argparse.Namespace) -> int:
    """Handler of ``rgt data-pin``: write the pins, or check the data against them."""
    # lazy (--help imports every verb): loads numpy, pydantic, yaml
    from rgt.config import load_config
    from rgt.evidence.datapin import require_pins, write_pins

    config = load_config(args.config)
    if args.check:
        require_pins(config, args.out)
        print(f"{args.out}: the data matches its pins", file=sys.stderr)
    else:
        pins = write_pins(config, args.out)
        print(f"{args.out}: {len(pins['data'])} pinned", file=sys.stderr)
    return 0
