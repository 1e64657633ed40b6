"""Shapes of results the real corpus's sixty-fifth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a draft paper on named entity
recognition whose quoted section names its rows only by macros it does not define
(``\\bertseq & 87.09``, ``~~(\\spandetect) & 106.32``), rules its head off with a second
``\\toprule``, and writes training times with thousands separators (``1,854.58``). The
snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.numbers import parse_number

F1 = [alias_claim(data, variant, "f1", value, [macro, data])
      for variant, macro, data, value in (
          ("seqtag", "\\seqtag", "Genia", 81.3), ("seqtag", "\\seqtag", "WNUT", 45.2),
          ("qa", "\\qabase", "Genia", 80.9), ("qa", "\\qabase", "WNUT", 44.7),
          ("ours", "\\ours", "Genia", 82.4), ("ours", "\\ours", "WNUT", 52.6))]
F1_TABLE = ("\\begin{tabular}{ccc}\\toprule\n Model & \\data{Genia} & \\data{WNUT} \\\\ \\toprule\n"
            "\\seqtag & 81.3 & 45.2 \\\\\n\\qabase & 80.9 & QA \\\\\n"
            "\\texttt{Ours(-Features)} & 79.5 & 50.1 \\\\\n\\ours & \\textbf{82.4} & 52.6 \\\\\n"
            "\\bottomrule\n\\end{tabular}\n")


@pytest.mark.parametrize("qa, found", [("44.7", set()), ("44.3", {"44.3"})],
                         ids=["clean", "drifted"])
def test_a_row_named_by_an_undefined_macro_is_the_run_the_macro_names(tmp_path, qa, found):
    # before, `\qabase` typeset to nothing: the row was nameless and took the name of the
    # ablation row below it, whose claims its numbers were held against
    report = run(tmp_path, F1, F1_TABLE.replace("QA", qa), "paper.tex")
    assert_drifts(report, found, "WNUT/qa/f1/test", 6)


TIMES = [alias_claim(data, variant, "train_time", value, [name, data], unit="s",
                     direction="lower")
         for variant, name, data, value in (
             ("ours", "\\ours", "Genia", 241.22), ("ours", "\\ours", "WNUT", 3007.77),
             ("detect", "(\\detect)", "Genia", 106.32), ("detect", "(\\detect)", "WNUT", 1854.58),
             ("classify", "(\\classify)", "Genia", 134.9),
             ("classify", "(\\classify)", "WNUT", 1153.19),
             ("qa", "\\qabase", "Genia", 1372.83), ("qa", "\\qabase", "WNUT", 73818.38))]
TIMES_TABLE = ("\\begin{tabular}{lcc}\\toprule\n"
               " Model & \\data{Genia} & \\data{WNUT} \\\\ \\toprule\n"
               "\\ours & \\textbf{241.22} & \\textbf{3,007.77} \\\\\n"
               "~~~~~~(\\detect) & 106.32 & DETECT \\\\\n"
               "~~~~~~(\\classify) & 134.90 & 1,153.19 \\\\ \\midrule\n"
               "\\qabase & 1,372.83 & 73,818.38 \\\\\n\\bottomrule\n\\end{tabular}\n")


@pytest.mark.parametrize("detect, found", [("1,854.58", set()), ("1,854.55", {"1,854.55"})],
                         ids=["clean", "drifted"])
def test_rows_under_a_second_top_rule_are_the_body_not_the_head(tmp_path, detect, found):
    # before, only a mid rule ended the head: the three rows above `\midrule` headed the
    # columns, and their training times were checked as nothing
    report = run(tmp_path, TIMES, TIMES_TABLE.replace("DETECT", detect), "paper.tex")
    assert_drifts(report, found, "WNUT/detect/train_time/test", 8)


def test_a_number_with_thousands_separators_keeps_its_decimals():
    # before, `1,854.55` was read as shown to no decimals: any value within 0.5 of it agreed,
    # and it counted as an integer (a count, a year)
    number = parse_number("1,854.55")
    assert (number.value, number.decimals, number.integer) == (1854.55, 2, False)
    assert parse_number("12,000").decimals == 0
