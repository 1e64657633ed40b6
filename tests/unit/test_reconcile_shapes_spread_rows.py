"""Shapes of results the real corpus's sixty-fourth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: an ISMIR paper's table whose rows
put their spreads on a line of their own, through macros of the paper's (``&\\s{5.8}``), with
the row's name split over both lines (``bag-of-features`` / ``and random forest``) or a note on
the model in brackets below it (``(36k parameters)``). The snippets follow that shape, with
numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

ACCURACIES = [alias_claim(instrument, variant, "accuracy", value, [name, instrument])
              for variant, name, instrument, value in (
                  ("bof-rf", "bag-of-features and random forest", "piano", 99.7),
                  ("bof-rf", "bag-of-features and random forest", "violin", 76.2),
                  ("spiral", "spiral", "piano", 86.9), ("spiral", "spiral", "violin", 37.0))]
TABLE = ("\\newcommand{\\s}[1]{(\\pm #1)}\n\\newcommand{\\g}[1]{\\textbf{(\\pm #1)}}\n"
         "\\begin{tabular}{lcc}\n\\hline\n & piano & violin \\\\\n\\hline\n"
         "bag-of-features\n& \\textbf{PIANO} & 76.2 \\\\\nand random forest\n"
         "&\\g{0.1}&\\s{3.1} \\\\\n\\hline\nspiral\n& 86.9 & 37.0 \\\\\n(36k parameters)\n"
         "&\\s{4.2}&\\s{1.6} \\\\\n\\hline\n\\end{tabular}\n")


@pytest.mark.parametrize("piano, found", [("99.7", set()), ("99.4", {"99.4"})],
                         ids=["clean", "drifted"])
def test_spreads_on_a_line_of_their_own_are_the_row_above_s(tmp_path, piano, found):
    # before, `and random forest` read as a row of its own whose `(± 0.1)` and `(± 3.1)`
    # were values, held against the bag-of-features run's accuracies
    report = run(tmp_path, ACCURACIES, TABLE.replace("PIANO", piano), "paper.tex")
    assert_drifts(report, found, "piano/bof-rf/accuracy/test", 4)
