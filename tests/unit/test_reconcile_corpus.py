"""The reconcile corpus (tests/data/reconcile): a README, a rebuttal, a LaTeX paper and its
appendix, slides, a results CSV and lab notes, in a clean copy and a copy with planted drifts
(``expected.yaml``). Every planted drift is found; nothing else is reported, in either copy.
``python bench/reconcile_corpus.py`` prints the same figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from reconcile_helpers import CORPUS, changed_lines, planted, score_corpus

BENCH = Path(__file__).resolve().parents[2] / "bench" / "reconcile_corpus.py"
CLASSES = {"table cell (Markdown)", "table cell (LaTeX tabular)", "CSV cell", "± spread",
           "nearby metric", "CI bound", "confidence level", "seed count", "baseline"}


def test_every_planted_drift_is_found_and_nothing_else_is_reported():
    score = score_corpus()
    assert score["missed"] == []
    assert score["recall"] == 1.0
    assert score["false_reports_drifted"] == []
    assert score["false_reports_clean"] == [] and score["clean_exit"] == 0


def test_the_corpus_is_big_enough_to_mean_something():
    score = score_corpus()
    assert score["planted"] >= 30 and score["documents"] >= 7
    assert set(score["classes"]) >= CLASSES
    assert score["numbers_not_drifted"] >= 100  # places that must not be reported
    assert score["matched_clean"] >= 100  # and many of them are checked, not skipped


def test_the_answer_key_lists_exactly_the_lines_where_the_copies_differ():
    changed = changed_lines(CORPUS / "clean", CORPUS / "drifted")
    assert changed == {(item["file"], item["line"]) for item in planted()}


def test_the_benchmark_scores_another_checkout_s_code_when_asked(tmp_path):
    # "the code before a round" is measured with --code; the script once put its own src
    # first whatever PYTHONPATH said, so that figure could not differ from the current one
    (tmp_path / "src").symlink_to(BENCH.parents[1] / "src")
    done = subprocess.run([sys.executable, str(BENCH), "--parts", "own", "--code", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"code: {tmp_path.resolve() / 'src/rgt/__init__.py'}"
