"""Shapes of results the real corpus's sixty-second held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: AdaFace's comparison table, whose
first header row names a protocol over the first of each group's columns (``| | |
Sur-to-Single | | | Sur-to-Book | |``), and whose second, which Markdown reads as a body row,
names every column, a rate at a threshold by the threshold alone (``Rank1 | Rank5 | 1%``).
The snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.blocks import Cell
from rgt.evidence.reconcile.pipetable import names_only, over_its_group

PROTOCOLS = [alias_claim(exp, "ours", metric, value, ["Ours", protocol, header])
             for exp, protocol in (("single", "Sur-to-Single"), ("book", "Sur-to-Book"))
             for metric, header, value in (("rank1", "Rank1", 71.35), ("tpir_1pct", "1%", 59.39))]
TABLE = ("| | Sur-to-Single | | Sur-to-Book | |\n|---|---|---|---|---|\n"
         "| Method | Rank1 | 1% | Rank1 | 1% |\n"
         "| Ours | 71.35 | SINGLE | 71.35 | 59.39 |\n| (Other) | 62.43 | 47.68 | 63.81 | 47.57 |\n")


@pytest.mark.parametrize("single, found", [("59.39", set()), ("59.36", {"59.36"})],
                         ids=["clean", "drifted"])
def test_a_protocol_over_its_first_column_and_a_threshold_below_name_every_cell(
        tmp_path, single, found):
    # before, `1%` made the second header row a body row, and the protocols named only the
    # first column of their groups: no cell was read as any claim's
    report = run(tmp_path, PROTOCOLS, TABLE.replace("SINGLE", single))
    assert_drifts(report, found, "single/ours/tpir_1pct/test", 4)


def test_a_row_of_names_may_hold_digits_and_a_repeated_threshold():
    def row(*texts: str) -> list[Cell]:
        return [Cell(text, 1) for text in texts]
    assert names_only(row("Method", "Rank1", "1%", "Rank1", "1%"))
    assert not names_only(row("Method", "Rank1", "1%", "Rank5"))  # a lone 1 %: a result
    assert not names_only(row("ResNet50", "76.1", "93.0"))
    assert not names_only(row("AirRaid (2727)", "Alien (2611)", "Amidar(1376)"))  # scores
    assert over_its_group(["", "A", "", "B", ""]) == ["", "A", "A", "B", "B"]
