"""Benchmark: ``rgt reconcile`` on its test corpus — recall on planted drifts, false reports.

The corpus (tests/data/reconcile) is one fictional project's documents — README, rebuttal,
LaTeX paper and appendix, slides, results CSV, lab notes — quoting 15 claims of its own
EVIDENCE.json, in a clean copy and a copy with planted drifts listed in ``expected.yaml``.
Goal: every drift found, no false report on either copy (the clean copy exits 0). This is an
accuracy benchmark: the figures are counts, the same on every machine.

    python bench/reconcile_corpus.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from reconcile_helpers import score_corpus  # noqa: E402


def summary(score: dict) -> list[str]:
    """The figures as lines of text."""
    lines = [
        f"documents: {score['documents']}, numbers written: {score['numbers_clean']} "
        f"({score['matched_clean']} checked against a claim in the clean copy)",
        f"recall: {score['found']} of {score['planted']} planted drifts "
        f"({100 * score['recall']:.0f} %)",
        f"false reports on the drifted copy: {len(score['false_reports_drifted'])} "
        f"(among {score['numbers_not_drifted']} numbers that are not drifts)",
        f"false reports on the clean copy: {len(score['false_reports_clean'])} "
        f"(exit {score['clean_exit']})",
    ]
    lines += [f"  {name}: {found} of {total}" for name, (found, total)
              in sorted(score["classes"].items())]
    lines += [f"  missed: {item}" for item in score["missed"]]
    lines += [f"  false: {item}" for item in score["false_reports_drifted"]
              + score["false_reports_clean"]]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    args = parser.parse_args()
    score = score_corpus()
    print("\n".join(summary(score)))
    if args.json:
        Path(args.json).write_text(json.dumps(score, indent=2, default=list))
    clean = not score["missed"] and not score["false_reports_drifted"] \
        and not score["false_reports_clean"]
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
