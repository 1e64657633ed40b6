"""Shapes of results the real corpus's sixtieth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a course report's accuracies
with their 95% confidence intervals as `$91.3 \\pm 0.6$`, an evidence giving each interval as
one number, its half-width (`"type": "ci95", "value": 0.6`). The snippets follow that shape,
with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

ACCURACIES = [{**alias_claim("tm", variant, "accuracy", value, [name, "TM", "Test Accuracy"]),
               "variance": {"type": "ci95", "value": half}}
              for variant, name, value, half in (("proto", "PN", 88.4, 0.8),
                                                 ("match", "MN", 90.2, 0.5))]
TABLE = ("\\begin{table}\n\\caption{Test accuracy on TM. We depict the average accuracy and "
         "the 95\\% confidence interval.}\n\\begin{tabular}{ll}\n\\toprule\n & Test Accuracy "
         "(\\%) \\\\\n\\midrule\nPN & $88.4 \\pm HALF$ \\\\\nMN & $\\mathbf{90.2 \\pm 0.5}$ \\\\\n"
         "\\bottomrule\n\\end{tabular}\n\\end{table}\n")


@pytest.mark.parametrize("half, found", [("0.8", set()), ("1.1", {"\u00b1 1.1"})],
                         ids=["clean", "drifted"])
def test_an_interval_the_evidence_gives_as_its_half_width(tmp_path, half, found):
    # before, a `ci95` of one number (no bounds) disclosed nothing to check a `±` against
    report = run(tmp_path, ACCURACIES, TABLE.replace("HALF", half), "paper.tex")
    assert {(item["found"], item["claim"], item["part"]) for item in report["drift"]} == \
        {(number, "tm/proto/accuracy/test", "spread") for number in found}
    assert len(report["matched"]) == 5 - len(found)  # values, intervals, the caption's level
