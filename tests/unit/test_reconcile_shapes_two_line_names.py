"""Shapes of results the real corpus's sixty-eighth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a workshop paper's comparison table
whose row names run over two lines, the value on the first (``\\bf{NB-weighted-BON +} &
\\bf{93.16}`` over ``\\bf{DV-ngram} &``), a cited row's citation on the line below it, and a
footnote listing numbers it retracts (``previously incorrectly reported as 96.95, 97.17, and
97.42, for …, respectively``). The snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

ENSEMBLES = [alias_claim("imdb", variant, "accuracy", value, [name, "Accuracy"])
             for variant, name, value in (
                 ("cosine", "Document Vectors using Cosine Similarity", 93.1),
                 ("nb_dv", "NB-weighted-BON + DV-ngram", 93.2),
                 ("nb_l2r", "NB-weighted-BON + L2R Dot Product", 93.4))]
TABLE = ("\\begin{tabular}{lc}\n\\toprule\nModel & Accuracy (\\%)\\\\\n\\midrule\n"
         "Paragraph Vector & 92.6 \\\\\n\\cite{le2014} & \\\\\n"
         "\\bf{Document Vectors using} & \\bf{93.1} \\\\\n\\bf{Cosine Similarity} & \\\\\n"
         "\\bf{NB-weighted-BON +} & \\bf{NBDV} \\\\\n\\bf{DV-ngram} & \\\\\n"
         "\\bf{NB-weighted-BON +} & \\bf{93.4} \\\\\n\\bf{L2R Dot Product} & \\\\\n"
         "\\bottomrule\n\\end{tabular}\n")


@pytest.mark.parametrize("nb_dv, found", [("93.2", set()), ("93.6", {"93.6"})],
                         ids=["clean", "drifted"])
def test_a_row_name_over_two_lines_is_the_row_s_own(tmp_path, nb_dv, found):
    # before, `DV-ngram` (the rest of a name cut short at `+`) and `\cite{le2014}` (a cited
    # row's citation) named the row below them: each ensemble's number was held against the
    # ensemble named above it
    report = run(tmp_path, ENSEMBLES, TABLE.replace("NBDV", nb_dv), "paper.tex")
    assert_drifts(report, found, "imdb/nb_dv/accuracy/test", 3)


def test_numbers_a_footnote_retracts_are_no_claim_s(tmp_path):
    # before, only the list's first number read as superseded: the others were held against
    # the corrected accuracies
    text = ("These values were previously incorrectly reported as 96.95, 97.17, and 97.42, for "
            "NB-weighted-BON + DV-ngram, NB-weighted-BON + L2R Dot Product, and Document "
            "Vectors using Cosine Similarity, respectively, due to a bug.\n")
    report = run(tmp_path, ENSEMBLES, text, "paper.tex")
    assert report["drift"] == []
