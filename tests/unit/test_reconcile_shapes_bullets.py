r"""Shapes of results the real corpus's forty-ninth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: ActionFormer's README, whose two
Ego4D tables have the same rows and columns and are told apart only by the bullet above each,
`* The results (mAP at tIoUs) should be`, then `* The results (Recall@1x at tIoUs) should be`;
a style transfer paper's ablation table whose last row's label, a list of loss macros, ends
its first line with a comma and goes on below, beside `\multirow{2}` cells; bounds in prose,
`significantly better average mAP on THUMOS14 (>66.0%)`, `more than 50\% transfer accuracy`.
The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

EGO4D = [alias_claim("ego4d", "actionformer_s", metric, value,
                     ["ActionFormer (S)", "Ego4D", name, "0.1"])
         for metric, name, value in (("map", "mAP", 20.09), ("recall", "Recall@1x", 52.25))]
TABLES = ("## Ego4D\n\n* The results (mAP at tIoUs) should be\n\n| Method | 0.1 |\n|---|---|\n"
          "| ActionFormer (S) | {map} |\n\n* The results (Recall@1x at tIoUs) should be\n\n"
          "| Method | 0.1 |\n|---|---|\n| ActionFormer (S) | 52.25 |\n")


@pytest.mark.parametrize("value, found", [("20.09", set()), ("20.07", {"20.07"})],
                         ids=["clean", "drifted"])
def test_a_bullet_left_open_above_a_table_names_its_metric(tmp_path, value, found):
    # before, only a paragraph ending in a colon (or reading `Table …`) captioned the table
    # below it: the two tables' cells named no metric, and none was checked
    report = run(tmp_path, EGO4D, TABLES.format(map=value))
    assert {item["found"] for item in report["drift"]} == found
    assert {item["claim"].split("/")[2] for item in report["drift"] + report["matched"]} == {
        "map", "recall"}


LOSSES = [alias_claim("yelp", variant, "sta", value, [label, "Yelp", "STA"])
          for variant, label, value in (
              ("three", "$\\loss{AE}$, $\\loss{mul(s)}$, $\\loss{adv(s)}$", 0.91),
              ("five", "$\\loss{AE}$, $\\loss{mul(s)}$, $\\loss{adv(s)}$, $\\loss{mul(c)}$, "
                       "$\\loss{adv(c)}$", 0.93))]
ABLATION = ("\\begin{{table}}\n\\begin{{tabular}}{{lc}}\n\\hline\n"
            "Objectives & \\textbf{{STA}} \\\\\n\\hline\n"
            "$\\loss{{AE}}$, $\\loss{{mul(s)}}$, $\\loss{{adv(s)}}$ & 0.91 \\\\ \\hline\n"
            "$\\loss{{AE}}$, $\\loss{{mul(s)}}$, $\\loss{{adv(s)}}$, & \\multirow{{2}}{{*}}"
            "{{\\textbf{{{five}}}}} \\\\\n$\\loss{{mul(c)}}$, $\\loss{{adv(c)}}$ & \\\\\\hline\n"
            "\\end{{tabular}}\n\\caption{{Ablation tests on Yelp.}}\n\\end{{table}}\n")


@pytest.mark.parametrize("five, found", [("0.93", set()), ("0.95", {"0.95"})],
                         ids=["clean", "drifted"])
def test_a_row_label_ending_in_a_comma_goes_on_below(tmp_path, five, found):
    # before, the label's first line, ending in a comma, was the whole label: the row with
    # five losses was read as the one with three above it, and 0.93 held against its 0.91
    report = run(tmp_path, LOSSES, ABLATION.format(five=five), "paper.tex")
    assert {item["found"] for item in report["drift"]} == found
    assert {item["claim"] for item in report["drift"] + report["matched"]} == {
        "yelp/three/sta/test", "yelp/five/sta/test"}


THUMOS = [alias_claim("thumos14", "actionformer", "average_map", 66.83,
                      ["ActionFormer", "THUMOS14", "average mAP"])]


@pytest.mark.parametrize("bound, found", [
    ("(>66.0%)", set()), ("(more than 60%)", set()), ("(>67.5%)", {"67.5%"}),
    ("(less than 66.0%)", {"66.0%"})], ids=["kept", "kept-words", "broken", "broken-upper"])
def test_a_bound_is_checked_as_a_bound(tmp_path, bound, found):
    # before, the bound was read as the value: `>66.0%` held against 66.83, a false drift
    text = f"* We updated the code, leading to a better average mAP on THUMOS14 {bound}.\n"
    report = run(tmp_path, THUMOS, text)
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["drift"] + report["matched"]) == 1
