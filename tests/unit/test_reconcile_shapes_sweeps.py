"""Shapes of results the real corpus's thirty-third held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a sweep's table whose rows are
named by the bare setting value (``1``, ``5``, … ``\\textbf{15}`` under ``beam size``), the
evidence naming each run by that number, beneath a caption naming the best one. The snippets
follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

BEAMS = [alias_claim("wmt17", f"beam{size}", "bleu", value, [str(size), "beam size", "BLEU"],
                     unit=None)
         for size, value in ((1, 8.61), (5, 9.22), (15, 9.58))]
SWEEP = ("\\begin{{table}}[H]\n\\begin{{tabular}}{{ll}}\n\\toprule\n"
         "beam size & BLEU \\\\\n\\midrule\n1 & 8.61 \\\\\n5 & {five} \\\\\n"
         "\\textbf{{15}} & \\textbf{{9.58}} \\\\\n\\bottomrule\n\\end{{tabular}}\n"
         "\\caption{{Results for each beam size. The best is reached with a beam of 15.}}\n"
         "\\end{{table}}\n")


@pytest.mark.parametrize("five, found", [("9.22", set()), ("9.27", {("beam5", "9.27")})],
                         ids=["clean", "drifted"])
def test_rows_named_by_the_evidence_s_bare_numbers_are_those_runs(tmp_path, five, found):
    # before, the numbers naming the rows were read as results and every row went to the run
    # the caption names (beam 15): two false drifts, the 5-beam drift held against beam 15
    report = run(tmp_path, BEAMS, SWEEP.format(five=five), "paper.tex")
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 3
