"""``rgt evaluate RUN_DIR``: metrics and per-sample predictions of a sealed run."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``evaluate`` verb."""
    parser = subparsers.add_parser(
        "evaluate", help="score a sealed run on val and test: results.json + predictions")
    parser.add_argument("run_dir", type=Path, help="runs/<run-id>")
    parser.set_defaults(func=run_evaluate)


def run_evaluate(args: argparse.Namespace) -> int:
    """Handler of ``rgt evaluate``."""
    # lazy (--help imports every verb): loads numpy, pyarrow, pydantic, torch, yaml
    from rgt.evaluate.evaluation import evaluate_run

    results = evaluate_run(args.run_dir)
    summary = ", ".join(f"{m['split']} {m['name']} {m['value']:.4f}" for m in results["metrics"])
    print(f"[{results['run_id']}] {summary}")
    return 0
