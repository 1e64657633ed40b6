"""Shapes of results the real corpus's eightieth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a thesis's tables marking each
row's best cell with ``\\textcolor{green!50!black}{…}``; a recommender library's table under a
caption saying how a baseline was chosen (``best by validation NDCG@10``) over test numbers.
The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

GAPS = [alias_claim(f"mushrooms_r{radius}", variant, "fw_gap", value,
                    [name, "Mushrooms", str(radius)], unit=None, direction="lower")
        for radius, variant, name, value in ((20, "fw", "FW", 9.93e-4), (20, "cfw", "CFW", 4.46e-5),
                                             (30, "fw", "FW", 2.83), (30, "cfw", "CFW", 1.12))]
GAP_TABLE = r"""\begin{table}
\caption{Frank--Wolfe gap after 100 iterations on Mushrooms.}
\begin{tabular}{ccc}
R & FW & CFW \\
20 & $9.93\cdot10^{-4}$ & \textcolor{green!50!black}{$GAP\cdot10^{-5}$} \\
30 & $2.83$ & \textcolor{green!50!black}{$1.12$} \\
\end{tabular}
\end{table}
"""


@pytest.mark.parametrize("cfw, found", [("4.46", set()),
                                        ("4.48", {"mushrooms_r20/cfw/fw_gap/test"})],
                         ids=["clean", "drifted"])
def test_a_colour_s_mixing_numbers_are_no_result(tmp_path, cfw, found):
    # before, `green!50!black` gave a `50`, held against the row's claim
    report = run(tmp_path, GAPS, GAP_TABLE.replace("GAP", cfw), "thesis.tex")
    assert {item["claim"] for item in report["drift"]} == found
    assert report["unmapped"] == []


RECS = [alias_claim("beauty", variant, "recall_at_5", value, [name, "beauty", "R@5"], unit=None)
        for variant, name, value in (("tiger", "TIGER", 0.0419),
                                     ("sasrec", "SASRec (tuned)", 0.0508))]
SELECTED = """\
#### Best TIGER configs vs tuned SASRec (beauty)

SASRec tuned over loss and learning rate, best by validation NDCG@10. TIGER rows are the
best recipe:

| Model | R@5 |
| --- | ---: |
| TIGER | 0.0419 |
| SASRec (tuned) | SASREC |
"""


@pytest.mark.parametrize("sasrec, found", [
    ("0.0508", set()), ("0.0503", {("0.0503", "beauty/sasrec/recall_at_5/test")})],
                         ids=["clean", "drifted"])
def test_how_a_run_was_chosen_names_no_split_of_the_numbers(tmp_path, sasrec, found):
    # before, `best by validation NDCG@10` made the table's test numbers the validation
    # split's: nothing was checked
    report = run(tmp_path, RECS, SELECTED.replace("SASREC", sasrec))
    assert {(item["found"], item["claim"]) for item in report["drift"]} == found
    assert len(report["matched"]) == 2 - len(found)
