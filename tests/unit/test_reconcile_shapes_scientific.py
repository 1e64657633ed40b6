"""Shapes of results the real corpus's fifty-seventh held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a Gaussian-process paper's
table of small errors in scientific notation (`\\textbf{6.5e-4 $\\pm$ 3.5e-5}`), its own
column first and the baselines' plain decimals beside it. The snippets follow that shape,
with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

ERRORS = [{**alias_claim("pump", f"o{k}", "smse", value, ["NN-GP", f"P{k}", "SMSE"],
                         unit=None, direction="lower"),
           "variance": {"type": "std", "value": spread}}
          for k, value, spread in ((1, 4.2e-4, 2.6e-5), (2, 1.7e-3, 9.1e-5))]
TABLE = ("We train with a learning rate of 3e-4 and weight decay 5.0e-4.\n\n"
         "\\begin{table}\n\\caption{The SMSE of the pump dataset}\n\\begin{tabular}{llll}\n"
         "\\toprule\nOutput & NN-GP & IGP & COGP \\\\ "
         "\\midrule\nP1 & \\textbf{FIRST $\\pm$ 2.6e-5} & 0.31 $\\pm$ 0.0021 & 0.27 $\\pm$ "
         "0.0048 \\\\\nP2 & \\textbf{1.7e-3 $\\pm$ 9.1e-5} & 0.12 $\\pm$ 0.0077 & 0.06 $\\pm$ "
         "0.0031 \\\\\n\\bottomrule\n\\end{tabular}\n\\end{table}\n")


@pytest.mark.parametrize("first, found", [("4.2e-4", set()), ("4.7e-4", {"4.7e-4"})],
                         ids=["clean", "drifted"])
def test_results_in_scientific_notation_beside_decimals(tmp_path, first, found):
    # before, `4.2e-4` was no number: its column read as the rows' names, and the baselines'
    # cells beside it as our runs' results
    report = run(tmp_path, ERRORS, TABLE.replace("FIRST", first), "paper.tex")
    assert {(item["found"], item["claim"], item["fix"]) for item in report["drift"]} == \
        {(number, "pump/o1/smse/test", "4.2e-4") for number in found}
    assert len(report["matched"]) == 4 - len(found)  # each run's value and spread
    assert report["unmapped"] == []  # the weight decay is a setting, no result
