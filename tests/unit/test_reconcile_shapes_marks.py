"""Shapes of results the real corpus's thirty-fourth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a speaker-verification table that
names each model on its first row only, the rows below told apart by marks in its `LM` and
`AS-Norm` columns, written `√` (a square-root sign), `×`, and now and then a plain `x`. The
snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

RECIPE = [alias_claim("vox1_o", f"resnet34_{variant}", "eer", value,
                      ["ResNet34-TSTP-emb256", *names, "vox1-O-clean", "EER"],
                      direction="lower", unit=None)
          for variant, names, value in (("plain", [], 0.867), ("asnorm", ["AS-Norm"], 0.787),
                                        ("lm", ["LM"], 0.797), ("lm_asnorm", ["LM", "AS-Norm"],
                                                                0.723))]
MARKS = ("| Model | Params | LM | AS-Norm | vox1-O-clean |\n|:--|:--:|:--:|:--:|:--:|\n"
         "| ResNet34-TSTP-emb256 | 6.63M | × | × | 0.867 |\n"
         "| | | x | √ | 0.787 |\n| | | √ | × | {lm} |\n| | | √ | √ | 0.723 |\n")


@pytest.mark.parametrize("lm, found", [("0.797", set()), ("0.799", {("resnet34_lm", "0.799")})],
                         ids=["clean", "drifted"])
def test_square_root_marks_and_plain_x_tell_a_model_s_rows_apart(tmp_path, lm, found):
    # before, `√` was no mark: every row was the model's first, unmarked run (three false
    # drifts), and the drift on the `LM` row was held against that run
    report = run(tmp_path, RECIPE, MARKS.format(lm=lm))
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 4
