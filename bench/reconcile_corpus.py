"""Benchmark: ``rgt reconcile`` on its corpora — recall on planted drifts, false reports.

Two corpora, scored apart:

- **the project's own** (tests/data/reconcile): one fictional project's documents — README,
  rebuttal, LaTeX paper and appendix, slides, results CSV, lab notes — quoting 15 claims of its
  own EVIDENCE.json and claims file, in a clean copy and a copy with drifts planted by hand;
- **real documents** (tests/data/reconcile_real): READMEs and LaTeX papers quoted from public
  ML repositories nobody on the team wrote, each with an EVIDENCE.json written from its own
  numbers (its aliases the only names, no claims file) and drifts planted by
  ``bench/reconcile_plant.py``; a ``dev`` part the rules were developed on and a ``heldout``
  part they never looked at (its README says which rule changes came when).

Goal on each: every drift found, no false report on either copy (the clean copy exits 0).
This is an accuracy benchmark: the figures are counts, the same on every machine.

    python bench/reconcile_corpus.py [--parts own dev heldout] [--json OUT] [--code DIR]

``--code DIR`` scores this checkout's corpora with the ``rgt`` of another checkout (a worktree
of the commit before a round of rules: how the code before it does on the same part).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# read before argparse: the package must come from the chosen checkout before it is imported
CODE = Path(sys.argv[sys.argv.index("--code") + 1]).resolve() if "--code" in sys.argv[:-1] \
    else ROOT
sys.path.insert(0, str(CODE / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from reconcile_helpers import score_corpus, score_real  # noqa: E402

PARTS = {"own": "the project's own corpus (tests/data/reconcile)",
         "dev": "real documents, development part (tests/data/reconcile_real/dev)",
         "heldout": "real documents, held-out part (tests/data/reconcile_real/heldout)"}


def summary(score: dict) -> list[str]:
    """The own corpus's figures as lines of text."""
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
    return lines + _problems(score)


def real_summary(score: dict) -> list[str]:
    """A real-document part's figures as lines of text."""
    lines = [
        f"projects: {', '.join(score['projects'])}; documents: {score['documents']}; "
        f"claim numbers annotated: {score['sites']} ({score['sites_checked']} checked in the "
        f"clean copy)",
        f"recall: {score['found']} of {score['planted']} planted drifts "
        f"({100 * score['recall']:.0f} %) on their line and claim, {score['found_exact']} "
        f"with the planted number itself",
        f"drifts already in the sources: {score['known_found']} of {score['known']} found "
        f"(both copies)",
        f"false reports on the drifted copy: {_kinds(score['false_reports_drifted'])}",
        f"false reports on the clean copy: {_kinds(score['false_reports_clean'])} "
        f"(exit {score['clean_exit']} but for the sources' own drifts)",
    ] + [f"refused ({project}, {copy} copy): {why}" for project, copy, why in score["refused"]]
    return lines + _problems(score)


def _kinds(reports: list[tuple]) -> str:
    """``3 (1 drift, 2 unmapped)``: a false drift fails a clean document, an unmapped note
    does not."""
    drift = sum(item[0] == "drift" for item in reports)
    return f"{len(reports)} ({drift} drift, {len(reports) - drift} unmapped)"


def _problems(score: dict) -> list[str]:
    return ([f"  missed: {item}" for item in score["missed"]]
            + [f"  false: {item}" for item in score["false_reports_drifted"]
               + score["false_reports_clean"]])


def _clean(score: dict) -> bool:
    return not score["missed"] and not score["false_reports_drifted"] \
        and not score["false_reports_clean"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", choices=list(PARTS), default=list(PARTS),
                        help="which corpora to score (default: all three)")
    parser.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    parser.add_argument("--code", metavar="DIR", help="score with the rgt under DIR/src "
                        "(another checkout, e.g. the commit before a round of rules)")
    args = parser.parse_args()
    if args.code:
        print(f"code: {sys.modules['rgt'].__file__}")
    scores = {part: score_corpus() if part == "own" else score_real(part)
              for part in args.parts}
    for part, score in scores.items():
        print(f"== {PARTS[part]}")
        print("\n".join(summary(score) if part == "own" else real_summary(score)))
    if args.json:
        Path(args.json).write_text(json.dumps(scores, indent=2, default=list))
    return 0 if all(_clean(score) for score in scores.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
