"""``rgt init``: make the current directory (a git repository or not) a project of rgt's shape
around the user's training script, then check the script and print the next command."""

from __future__ import annotations

import argparse
from pathlib import Path

NEXT = "snakemake --profile local"


def register(subparsers) -> None:
    """Add the ``init`` verb."""
    parser = subparsers.add_parser(
        "init", help="set up a project of your own: Snakefile, config with your script's job, "
                     ".gitignore, DVC, claims, profiles; never replaces a file of yours",
        description="Writes what is missing of: a top-level Snakefile that brings in rgt's "
                    "workflow from the installed package, config/config.yaml with a job: for "
                    "--script (its options, seed, output folder and metrics read from it), "
                    "evidence/claims.yaml, the .gitignore entries, dvc init and dvc.yaml; "
                    "installs the Snakemake profiles; then runs rgt doctor on the script. A "
                    "file that is there is left alone, and said so; run twice, the second run "
                    "changes nothing.")
    parser.add_argument("--script", default="train.py",
                        help="the training script, from the project root (default: train.py)")
    parser.add_argument("--vary", action="append", default=[], metavar="OPTION=VALUE",
                        help="a variant that changes one option of the script (repeatable: one "
                             "variant each); without it the experiment has its baseline alone")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per variant (default: 3)")
    parser.add_argument("--experiment", help="the experiment's name (default: the folder's)")
    parser.set_defaults(func=run_init)


def run_init(args: argparse.Namespace) -> int:
    """Handler of ``rgt init``: the steps, what to know, the doctor's findings, the next
    command; 1 when the doctor finds an error in the script, else 0."""
    # lazy (--help imports every verb): loads pydantic, yaml, the doctor's checks
    from rgt.doctor.static import check_path, has_errors, torch_version
    from rgt.project.init import Request, init_project

    project = Path.cwd()
    steps, job = init_project(Request(project, Path(args.script), tuple(args.vary), args.seeds,
                                      args.experiment))
    print(f"rgt init in {project}:")
    for step in steps:
        print(f"  {step.outcome:<11} {step.what:<22} {step.detail}")
    if not any(step.changed for step in steps):
        print("rgt init: nothing to change: every file is already there")
    for note in job.notes:
        print(f"note: {note}")
    findings = check_path(project / args.script, torch_version())
    _print_findings(args.script, findings)
    print(f"next: {NEXT}" if not has_errors(findings)
          else f"next: fix the errors above, then {NEXT}")
    return 1 if has_errors(findings) else 0


def _print_findings(script: str, findings) -> None:
    if not findings:
        print(f"rgt doctor {script}: no findings")
    for finding in findings:
        print(f"rgt doctor: {finding.severity} {finding.entry} {script}:{finding.line} "
              f"[{finding.check}] {finding.message}\n  fix: {finding.fix}")
