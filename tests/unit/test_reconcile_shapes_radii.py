"""Shapes of results the real corpus's sixty-sixth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a thesis draft's table of certified
radii and accuracies, its caption giving the accuracies' unit (``accuracy (acc. in [%])``) and
saying what its models were trained on (``i=train on in-to-out adversarial examples``). The
snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

CLAIMS = [alias_claim("mnist", variant, metric, value, [name, "MNIST", header], unit=unit)
          for variant, name, metric, header, value, unit in (
              ("normal", "Normal", "radius", "r", 0.452, None),
              ("normal", "Normal", "certified_acc", "acc.", 98, "%"),
              ("adv_in", "Adv-in", "radius", "r", 0.468, None),
              ("adv_in", "Adv-in", "certified_acc", "acc.", 99, "%"))]
TABLE = ("\\begin{table}\n\\caption{Randomized smoothing on $10^3$ samples. Radius~$r$ and "
         "accuracy (acc. in $[\\%]$) of a normally trained model (Normal) and one trained on "
         "adversarial examples (Adv-in: i=train on in-to-out adversarial examples).}\n"
         "\\begin{tabular}{lrr}\n\\toprule\n& \\multicolumn{2}{c}{MNIST} \\\\\n"
         "model & r & acc. \\\\\n\\midrule\nNormal & RADIUS & 98 \\\\\n"
         "Adv-in & 0.468 & 99 \\\\\n\\bottomrule\n\\end{tabular}\n\\end{table}\n")


@pytest.mark.parametrize("radius, found", [("0.452", set()), ("0.449", {"0.449"})],
                         ids=["clean", "drifted"])
def test_a_caption_s_unit_of_one_named_column_is_not_the_others(tmp_path, radius, found):
    # before, the caption's `[%]` made every cell a percentage: each radius, `0.452` read as
    # 0.452 %, was reported as a drift of itself
    report = run(tmp_path, CLAIMS, TABLE.replace("RADIUS", radius), "paper.tex")
    assert_drifts(report, found, "mnist/normal/radius/test", 4)


def test_what_a_model_was_trained_on_names_no_split(tmp_path):
    # before, the caption's `train on` named the train split for every cell, and no claim (of
    # the test split) was checked
    report = run(tmp_path, CLAIMS, TABLE.replace("RADIUS", "0.452").replace(
        "& 98 \\\\", "& 96 \\\\"), "paper.tex")
    assert {(item["found"], item["claim"]) for item in report["drift"]} == \
        {("96", "mnist/normal/certified_acc/test")}
