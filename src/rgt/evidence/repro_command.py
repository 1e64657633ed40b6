"""``rgt repro``: what ``make repro`` runs — reproduce the committed delivery in a scratch
checkout (``rgt.evidence.repro``) and compare every number with the committed evidence."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``repro`` verb."""
    parser = subparsers.add_parser(
        "repro", help="rebuild the committed delivery in a scratch checkout and compare every "
                      "number with the committed evidence (make repro; exit 1 on a mismatch)")
    parser.add_argument("--retrain", action="store_true",
                        help="train every run again first, with `snakemake --profile local` in "
                             ".rgt/retrain/ (runs/ is untouched)")
    parser.set_defaults(func=run_repro)


def run_repro(args: argparse.Namespace) -> int:
    """Handler of ``rgt repro``: 0 when every committed number is reproduced."""
    # lazy (--help imports every verb): loads DVC, jsonschema, scipy, yaml
    from rgt.deliver.inputs import read_document
    from rgt.evidence.check_reference import reproduce
    from rgt.evidence.claims import EVIDENCE_SCHEMA
    from rgt.evidence.repro import (
        RETRAIN_SCRATCH,
        SCRATCH,
        committed_evidence,
        committed_tree,
        run_step,
    )
    from rgt.evidence.repro_report import print_reproduction
    from rgt.plan.paths import EVIDENCE as EVIDENCE_PATH

    project = Path.cwd()
    if not args.retrain:
        _bring_shared_runs(project)
    scratch = committed_tree(project, RETRAIN_SCRATCH if args.retrain else SCRATCH)
    reference = committed_evidence(project, scratch)
    if args.retrain:
        _check_data(scratch)
        run_step(["snakemake", "--profile", "local"], scratch, "train every run again")
    # Every stage, in the scratch checkout: its own copy (-f), never the project's files.
    run_step(["dvc", "repro", "-f"], scratch, "rebuild the delivery")
    result = reproduce(read_document(str(reference), EVIDENCE_SCHEMA, "rgt evidence"),
                       read_document(str(scratch / EVIDENCE_PATH), EVIDENCE_SCHEMA,
                                     "rgt evidence"))
    return print_reproduction(result, f"{scratch}/{EVIDENCE_PATH}",
                              f"the committed {EVIDENCE_PATH}")


def _bring_shared_runs(project: Path) -> None:
    """The shared runs the project lacks, added to runs/; the unshared ones named."""
    # lazy (--help imports every verb): the DVC import costs ~0.3 s
    from rgt.deliver.share import print_restored, restore_runs, unshared_runs

    report = restore_runs(project)
    if report is None:
        return
    print_restored(report)
    unshared = unshared_runs(project, report)
    if unshared:
        print(f"rgt repro: {len(unshared)} sealed run(s) in {report.tracked}/ are not shared "
              f"yet (not in runs.dvc; kept as they are): `make share` puts them in the DVC "
              "remote", file=sys.stderr)


def _check_data(scratch: Path) -> None:
    """The committed data pins hold for the data this machine builds."""
    # lazy (--help imports every verb): loads numpy, pydantic, yaml
    from rgt.config import load_config
    from rgt.evidence.datapin import DATA_PIN_PATH, require_pins

    require_pins(load_config(scratch / "config/config.yaml"), scratch / DATA_PIN_PATH)
    print(f"rgt repro: the data matches its pins ({DATA_PIN_PATH})", file=sys.stderr)
