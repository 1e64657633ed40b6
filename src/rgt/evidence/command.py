"""``rgt evidence``: write ``evidence/EVIDENCE.json`` from the aggregate and the verify report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rgt.base.files import write_json
from rgt.deliver.aggregate import AGGREGATE_SCHEMA
from rgt.deliver.inputs import file_record, read_document
from rgt.evidence.claims import VERIFY_SCHEMA, build_evidence


def register(subparsers) -> None:
    """Add the ``evidence`` verb."""
    parser = subparsers.add_parser(
        "evidence",
        help="bind every delivered number to its source (evidence/EVIDENCE.json)",
    )
    parser.add_argument(
        "--aggregate",
        default="evidence/results.json",
        help="written by `rgt aggregate` (default: evidence/results.json)",
    )
    parser.add_argument(
        "--verify",
        default="verify/report.json",
        help="written by `rgt verify` (default: verify/report.json)",
    )
    parser.add_argument(
        "--figures-dir", default="figures", help="where figures/<fig>/ live (default: figures)"
    )
    parser.add_argument(
        "--out", default="evidence/EVIDENCE.json", help="default: evidence/EVIDENCE.json"
    )
    parser.add_argument(
        "--claims",
        help="your claims file: statements, aliases, tolerances (e.g. evidence/claims.yaml)",
    )
    parser.set_defaults(func=run_evidence)


def write_evidence(
    aggregate_path: str | Path,
    verify_path: str | Path,
    figures_dir: str | Path,
    out: str | Path,
    claims_path: str | Path | None = None,
) -> dict:
    """Build the evidence document from the input files and write it atomically."""
    # lazy (--help imports every verb): loads jsonschema, yaml
    from rgt.evidence.userclaims import apply_user_claims, load_user_claims

    aggregate = read_document(aggregate_path, AGGREGATE_SCHEMA, "rgt aggregate")
    verify = read_document(verify_path, VERIFY_SCHEMA, "rgt verify")
    context = {
        "source": Path(aggregate_path).as_posix(),
        "verify_source": Path(verify_path).as_posix(),
        "figures_dir": figures_dir,
        "inputs": [file_record(aggregate_path), file_record(verify_path)],
    }
    user = load_user_claims(claims_path)
    evidence = build_evidence(aggregate, verify, context)
    evidence["claims"] = apply_user_claims(evidence["claims"], user, str(claims_path))
    if claims_path is not None:
        evidence["inputs"].append(file_record(claims_path))
    write_json(out, evidence)
    return evidence


def run_evidence(args: argparse.Namespace) -> int:
    """Handler of ``rgt evidence``."""
    evidence = write_evidence(
        args.aggregate, args.verify, args.figures_dir, args.out, args.claims
    )
    disclosed = sum(1 for claim in evidence["claims"] if claim["disclosures"])
    print(
        f"{args.out}: {len(evidence['claims'])} claims, {disclosed} with disclosures",
        file=sys.stderr,
    )
    return 0
