"""Delivery checks: ``rgt reconcile`` (documents vs evidence), ``rgt check-evidence`` (rebuild
vs reference) and ``rgt data-pin`` (data vs its committed hashes)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

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
    parser.add_argument("--claims", metavar="FILE",
                        help="claims file with aliases and names: (default: claims.yaml next "
                             "to --evidence, when it exists)")
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
    parser.add_argument("--export", metavar="DIR",
                        help="also write the data and splits as files under DIR (what DVC "
                             "versions and pushes: `dvc.yaml`'s data stage)")
    parser.set_defaults(func=run_data_pin)


def run_reconcile(args: argparse.Namespace) -> int:
    """Handler of ``rgt reconcile``: 0 when no document drifted, 1 otherwise."""
    # lazy (--help imports every verb; all verbs' own modules together: 50 ms)
    from rgt.evidence.reconcile import public, reconcile, require_claims
    from rgt.evidence.reconcile.documents import find_documents
    from rgt.evidence.userclaims import apply_user_claims, load_user_claims

    evidence = read_document(args.evidence, EVIDENCE_SCHEMA, "rgt evidence")
    claims = require_claims(evidence, args.evidence)
    claims_path = args.claims or default_claims(args.evidence)
    user, source = load_user_claims(claims_path), str(claims_path or "claims file")
    claims = apply_user_claims(claims, user, source)
    report = reconcile(claims, find_documents(args.docs), user.get("names"), source)
    if args.json:
        print(json.dumps(public(report), indent=2, sort_keys=True))
    else:
        print_reconcile(report)
    return 0 if report["ok"] else 1


def default_claims(evidence: str) -> Path | None:
    """``claims.yaml`` next to the evidence file, if there is one."""
    path = Path(evidence).parent / "claims.yaml"
    return path if path.is_file() else None


def print_reconcile(report: dict) -> None:
    """One line per drifted and unmapped number, then a summary."""
    for item in report["drift"]:
        what = "" if item["part"] == "value" else f" ({item['part']})"
        fix = f"; write {item['fix']}" if item["fix"] else ""
        print(f"{item['file']}:{item['line']}: DRIFT {item['claim']}{what}: found "
              f"{item['found']}, the evidence says {item['expected']!r}{fix}")
    for item in report["unmapped"]:
        print(f"{item['file']}:{item['line']}: unmapped: a number about a claim's metric that "
              f"no name ties to one claim: {item['text']}")
    print(f"{len(report['files'])} document(s): {len(report['matched'])} number(s) match, "
          f"{len(report['drift'])} drifted, {len(report['unmapped'])} unmapped", file=sys.stderr)
    if report["drift"]:
        print("  fix: update the documents to the evidence (or rerun the pipeline if the "
              "evidence is what is stale)", file=sys.stderr)
    if report["unmapped"]:
        print("  fix: name the variant (or experiment) next to the number, or add the name "
              "documents use to `names:` in the claims file", file=sys.stderr)


def run_check_evidence(args: argparse.Namespace) -> int:
    """Handler of ``rgt check-evidence``: 0 when every reference number is reproduced."""
    # lazy (--help imports every verb): loads jsonschema, scipy, yaml
    from rgt.evidence.check_reference import reproduce
    from rgt.evidence.repro_report import print_reproduction

    reference = read_document(args.reference, EVIDENCE_SCHEMA, "rgt evidence")
    current = read_document(args.evidence, EVIDENCE_SCHEMA, "rgt evidence")
    result = reproduce(reference, current)
    if args.json:
        print(json.dumps(result.mismatches, indent=2, sort_keys=True))
    return print_reproduction(result, args.evidence, args.reference, quiet=args.json)


def run_data_pin(args: argparse.Namespace) -> int:
    """Handler of ``rgt data-pin``: write the pins, or check the data against them."""
    # lazy (--help imports every verb): loads numpy, pydantic, yaml
    from rgt.config import load_config
    from rgt.evidence.datapin import export_data, require_pins, write_pins

    config = load_config(args.config)
    if args.check:
        require_pins(config, args.out)
        print(f"{args.out}: the data matches its pins", file=sys.stderr)
    else:
        pins = write_pins(config, args.out)
        print(f"{args.out}: {len(pins['data'])} pinned", file=sys.stderr)
    if args.export:
        folders = export_data(config, args.export)
        print(f"{args.export}: {len(folders)} dataset(s) written", file=sys.stderr)
    return 0
