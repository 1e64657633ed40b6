"""Shapes of results the real corpus's thirty-eighth and thirty-ninth held-out parts showed
(now in tests/data/reconcile_real/dev), read as a reader reads them: a detector's README whose
columns `Flip AP / FPS` and `Multi-scale AP / FPS` hold a pair under each test mode; an NLP
library's model list whose cells write their metric after the number, `**93.24** (F1)`,
under a header `Accuracy`; a driving-policy paper's table whose head a double rule
`\\hhline{|====|}` ends, captioned `Training policies by performing longer rollouts`. The
snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.blocks import Table
from rgt.evidence.reconcile.latex import latex_blocks

MODES = [alias_claim("coco", "hourglass", metric, value, ["Hourglass-104", name])
         for metric, name, value in (("ap", "AP", 40.3), ("ap_flip", "Flip AP", 42.2))]
PAIRS = ("| Backbone | AP / FPS | Flip AP / FPS |\n|---|---|---|\n"
         "| Hourglass-104 | 40.3 / 14 | {flip} / 7.8 |\n")


@pytest.mark.parametrize("flip, found", [("42.2", set()), ("42.6", {("ap_flip", "42.6")})],
                         ids=["clean", "drifted"])
def test_the_words_before_a_slashed_header_qualify_each_name_it_lists(tmp_path, flip, found):
    # before, `Flip AP / FPS` named its first number `AP`, the plain AP: the flip AP was a
    # false drift on the clean copy, and its own drift was held against the wrong claim
    report = run(tmp_path, MODES, PAIRS.format(flip=flip))
    assert {(item["claim"].split("/")[2], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 2


MODELS = [alias_claim("conll03", variant, "f1", value, [variant, "Conll-03", "F1"])
          for variant, value in (("ner-fast", 92.75), ("ner-pooled", 93.24))]
LISTED = ("| ID | Training Dataset | Accuracy | Notes |\n|---|---|---|---|\n"
          "| 'ner-fast' | Conll-03 | **92.75** (F1) | (fast model) |\n"
          "| 'ner-pooled' | Conll-03 | **{pooled}** (F1) | (memory inefficient) |\n")


@pytest.mark.parametrize("pooled, found", [("93.24", set()), ("93.27", {("ner-pooled", "93.27")})],
                         ids=["clean", "drifted"])
def test_a_metric_s_name_in_parentheses_after_a_cell_s_number_leaves_it_a_result(
        tmp_path, pooled, found):
    # before, `(F1)` made every cell of the column words, and a column of words names the
    # rows: no number of it was read
    report = run(tmp_path, MODELS, LISTED.format(pooled=pooled))
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 2


POLICIES = [alias_claim("ngsim", variant, "success_rate", value,
                        [method, model, "Success Rate"], n=3)
            for variant, method, model, value in (
                ("mpur_stochastic", "MPUR", "stochastic", 71.8),
                ("mpur_deterministic", "MPUR", "deterministic", 69.1))]
FIGURE_TABLE = (r"""\begin{figure*}[t!]
  \begin{tabular}{|ll|l|}
    \hline
    Method & Model & Success Rate (\%) \\
    \hhline{|===|}
    Human & & $100.0$ \\
    \hline
    MPUR & stochastic & $STOCHASTIC \pm 1.0$ \\
    MPUR & deterministic & $69.1 \pm 1.6$ \\
    \hline
  \end{tabular}
  \caption{a) Performance of different methods. b) Training policies by performing longer
  rollouts through the environment dynamics model.}
\end{figure*}
""")


@pytest.mark.parametrize("stochastic, found", [("71.8", set()),
                                               ("71.4", {("mpur_stochastic", "71.4")})],
                         ids=["clean", "drifted"])
def test_training_by_doing_something_in_a_caption_names_no_split(tmp_path, stochastic, found):
    # before, `Training policies by performing …` named the train split, which no claim is
    # of: no cell was read
    report = run(tmp_path, POLICIES, FIGURE_TABLE.replace("STOCHASTIC", stochastic), "paper.tex")
    assert {(item["claim"].split("/")[1], item["found"]) for item in report["drift"]} == found
    assert report["unmapped"] == [] and len(report["drift"] + report["matched"]) == 2


def test_a_double_rule_ends_the_head():
    # before, `\hhline{|===|}` was no rule: the human reference row (an integer, no decimal
    # to end the head above) was read as part of the head, its number in the column's name
    source = FIGURE_TABLE.replace("STOCHASTIC", "71.8").replace("$100.0$", "$100$")
    (table,) = [block for block in latex_blocks(source, "paper.tex") if isinstance(block, Table)]
    assert table.header == ["Method", "Model", "Success Rate (%)"]
    assert [cell.text for cell in table.rows[0]][:1] == ["Human"]
