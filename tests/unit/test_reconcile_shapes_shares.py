"""Shapes of results the real corpus's fifty-ninth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a thesis's tables giving each
compressed index's score with its share of the original's in small type
(`$0.468\\,{\\scriptstyle (76\\%)}$`) under a header `\\{IP, $L^2$\\} (\\% original)`. The
snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

SCORES = [alias_claim("qa", variant, "r_precision", score, [name, "R-Prec."], unit=None)
          for variant, name, score in (("full", "Uncompressed", 0.633),
                                       ("pca", "PCA (128)", 0.581))] + [
    alias_claim("qa", "pca", "retained", 92.0, ["PCA (128)", "\\% original"])]
TABLE = ("\\begin{tabular}{lc}\n\\toprule\nMethod & R-Prec. (\\% original) \\\\\n\\midrule\n"
         "Uncompressed & ${0.633}\\,{\\scriptstyle (100\\%)}$ \\\\\n"
         "PCA (128) & $0.581\\,{\\scriptstyle (SHARE\\%)}$ \\\\\n\\bottomrule\n\\end{tabular}\n")


@pytest.mark.parametrize("share, found", [("92", set()), ("91", {"91%"})],
                         ids=["clean", "drifted"])
def test_a_score_and_its_share_of_the_original_under_a_header_naming_the_share(
        tmp_path, share, found):
    # before, `(\% original)` read as the original paper's number beside ours (the share
    # blanked out) and made the column's scores percentages: `0.633` held against itself
    report = run(tmp_path, SCORES, TABLE.replace("SHARE", share), "paper.tex")
    assert_drifts(report, found, "qa/pca/retained/test", 3)




MODES = SCORES[:2] + [alias_claim("qa", "pca", "hits_correlation_uncompressed", 0.84,
                                  ["PCA", "Uncompressed", "Correlation"], unit=None)]
MATRIX = ("\\begin{table}\n\\begin{tabular}{lcc}\n\\toprule\n & Uncompressed & PCA \\\\\n"
          "\\midrule\nUncompressed & $1.00$ & \\\\\nPCA & $CORRELATION$ & $1.00$ \\\\\n"
          "\\bottomrule\n\\end{tabular}\n\\caption{Correlation of the number of retrieved "
          "documents in two retrieval modes.}\n\\end{table}\n")


@pytest.mark.parametrize("correlation, found", [("0.84", set()), ("0.86", {"0.86"})],
                         ids=["clean", "drifted"])
def test_a_matrix_s_diagonal_relates_each_mode_to_itself(tmp_path, correlation, found):
    # before, each `1.00` on the diagonal, its row and column naming one mode, was held
    # against that mode's claim (its R-Precision, the correlation its aliases name)
    report = run(tmp_path, MODES, MATRIX.replace("CORRELATION", correlation), "paper.tex")
    assert_drifts(report, found, "qa/pca/hits_correlation_uncompressed/test", 1)
    assert report["unmapped"] == []


RETAINED = [alias_claim(exp, "pca_1bit", "retained", value, [*names, "retaining"])
            for exp, value, names in (("hotpotqa", 75.0, []), ("nq", 93.0, ["NaturalQuestions"]))
            ] + [alias_claim("nq", "pca", "retained", 96.0, ["NaturalQuestions", "PCA alone"])]
PROSE = ("This makes the index 100x smaller while retaining $75\\%$ retrieval performance on "
         "HotpotQA and $NQ\\%$ for NaturalQuestions.\n")


@pytest.mark.parametrize("nq, found", [("93", set()), ("89", {"89%"})],
                         ids=["clean", "drifted"])
def test_a_clause_s_implied_experiment_over_one_the_sentence_names_before_it(tmp_path, nq,
                                                                            found):
    # before, `HotpotQA` (the experiment's id, in the clause before `and`) named the
    # experiment of `89% for NaturalQuestions` too, an alias that only implies its own
    report = run(tmp_path, RETAINED, PROSE.replace("NQ", nq), "paper.tex")
    assert_drifts(report, found, "nq/pca_1bit/retained/test", 2)
