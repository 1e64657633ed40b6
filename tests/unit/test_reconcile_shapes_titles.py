"""Shapes of results the real corpus's fifty-fifth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a LaTeX table titled by a head
row of one cell spanning it (`\\multicolumn{8}{c}{Table II}`), its last column a ratio whose
claim the evidence also calls `Table II`. The snippets follow that shape, with numbers of
their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run


def _gated(variant: str, metric: str, value: float, names: list[str]) -> dict:
    return alias_claim("c100", variant, metric, value, ["CIFAR100", "VGG16", *names])


ACCURACY, RECOVERED = r"$\%$ test accuracy", r"$\%$ of DNN performance recovered by DLGN"
CLAIMS = [_gated("plain", "accuracy", 73.1, ["DNN", ACCURACY]),
          _gated("gated", "accuracy", 61.2, [r"DLGN$(x,\mathbf{1})$", ACCURACY]),
          _gated("gated", "recovery", 83.72, [r"$\frac{\text{DLGN}(x,\mathbf{1})}{\text{DNN}}$",
                                              "DNN", "Table II", RECOVERED])]
TABULAR = ("\\begin{table}\n\\begin{tabular}{cccc}\n\\toprule\n\\multicolumn{4}{c}{Table II}\\\\\n"
           "\\toprule\nDataset & DNN & DLGN$(x,\\mathbf{1})$ & "
           "$\\frac{\\text{DLGN}(x,\\mathbf{1})}{\\text{DNN}}$\\\\\\midrule\n"
           "CIFAR100 VGG16 & {plain} & 61.2 & $83.72$\\\\\n\\bottomrule\n\\end{tabular}\n"
           f"\\caption{{All columns (except the last) show the {ACCURACY} on CIFAR-100, and "
           f"{RECOVERED} is in the last column.}}\n\\end{{table}}\n")


@pytest.mark.parametrize("plain, found", [("73.1", set()), ("73.4", {"73.4"})],
                         ids=["clean", "drifted"])
def test_a_head_row_spanning_the_table_titles_it(tmp_path, plain, found):
    # before, `Table II` headed every column: `Table II DNN` named the ratio's claim, and
    # the plain network's accuracy was drift of the ratio
    report = run(tmp_path, CLAIMS, TABULAR.replace("{plain}", plain), "paper.tex")
    assert {(item["found"], item["claim"]) for item in report["drift"]} == \
        {(number, "c100/plain/accuracy/test") for number in found}
    assert len(report["matched"]) == 3 - len(found)
