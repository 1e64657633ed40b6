"""Shapes of results the real corpus's thirty-third held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a sweep's table whose rows are
named by the bare setting value (``1``, ``5``, … ``\\textbf{15}`` under ``beam size``), the
evidence naming each run by that number, beneath a caption naming the best one; and, from the
thirtieth part, a table whose source labels two rows alike (AlpacaEval's evaluators). The
snippets follow those shapes, with numbers of their own."""

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


EVALUATORS = [alias_claim("evaluators", "cot_fn", metric, value, ["cot_fn", title], unit=None)
              for metric, title, value in (("agreement", "Human agreement", 68.6),
                                           ("price", "Price", 6.3), ("bias", "Bias", 29.3))]
TWINS = ("| | Human agreement | Price | Bias |\n|:--|--:|--:|--:|\n"
         "| cot_fn | {agreement} | 6.3 | 29.3 |\n| gpt4 | 66.9 | 12.5 | 31.5 |\n"
         "| cot_fn | 65.7 | 4.3 | 33.9 |\n")


@pytest.mark.parametrize("agreement, found", [("68.6", set()), ("68.2", {("agreement", "68.2")})],
                         ids=["clean", "drifted"])
def test_of_two_rows_under_one_label_the_one_that_disagrees_throughout_is_another_thing_s(
        tmp_path, agreement, found):
    # before, the second `cot_fn` row (another configuration its source labelled alike) was
    # held against the claims: three false drifts; a drift in the first row is still found
    report = run(tmp_path, EVALUATORS, TWINS.format(agreement=agreement))
    assert {(item["claim"].split("/")[2], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 3
