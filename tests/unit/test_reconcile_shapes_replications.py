"""Shapes of results the real corpus's fifty-eighth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: Pyserini's replication page, a
table of percentages beside code blocks whose expected output gives the code base's own
results as fractions (`Top20   accuracy: 0.7947`), each block under a bold label naming the
method (`**BM25 retrieval**:`). The snippets follow that shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

TABLE_AND_OUTPUT = [
    alias_claim("nq", "dense", "top20_accuracy", 78.1, ["Dense", "Top-20"]),
    alias_claim("nq", "dense_code", "top20_accuracy", 0.7826, ["Top20", "accuracy"], unit=None)]
SUMMARY = ("## NQ with Dense\n\n| Method | Top-20 |\n|---|---|\n| Dense | 78.1 |\n\n"
           "And the expected results:\n\n```text\nTop20   accuracy: {output}\n```\n")


@pytest.mark.parametrize("output, found", [("0.7826", set()), ("0.7829", {"0.7829"})],
                         ids=["clean", "drifted"])
def test_an_output_line_named_by_aliases_the_metric_name_is_made_of(tmp_path, output, found):
    # before, `Top20   accuracy` read as the metric's id spelled, not as the aliases `Top20`
    # and `accuracy` that only the code base's run carries: the heading's run was held to it
    report = run(tmp_path, TABLE_AND_OUTPUT, SUMMARY.format(output=output))
    assert_drifts(report, found, "nq/dense_code/top20_accuracy/test", 2)


LABELLED = [alias_claim("nq", variant, "top20_accuracy", value, [label, "Top20"], unit=None)
            for variant, label, value in (("sparse", "BM25 retrieval", 0.6187),
                                          ("fused", "Hybrid retrieval", 0.8142))]
COMMANDS = ("## Natural Questions\n\n**BM25 retrieval**:\n\n```bash\npython -m search.lucene "
            "--topics nq-test\n```\n\nAnd the expected results:\n\n```text\nTop20: 0.6187\n```"
            "\n\n**Hybrid retrieval** (combining both):\n\n```bash\npython -m search.hybrid "
            "--topics nq-test\n```\n\nAnd the expected results:\n\n```text\nTop20: {fused}\n"
            "```\n")


@pytest.mark.parametrize("fused, found", [("0.8142", set()), ("0.8147", {"0.8147"})],
                         ids=["clean", "drifted"])
def test_a_bold_label_titles_the_output_below_it(tmp_path, fused, found):
    # before, the bold labels were paragraphs of their own, far from the output: each
    # output line was either run's
    report = run(tmp_path, LABELLED, COMMANDS.format(fused=fused))
    assert_drifts(report, found, "nq/fused/top20_accuracy/test", 2)


INDEXED = [alias_claim("nq", variant, "top20_accuracy", value, [name, "Top-20"])
           for variant, name, value in (("s_net", "Small", 70.1), ("l_net", "Big", 74.3))]
INDEXES = ("| Model | Index | Top-20 |\n|---|---|---|\n"
           "| Small | [index-big-v2](https://example.org/index-big-v2.tar.gz) | {small} |\n"
           "| Big | as above | 74.3 |\n")


@pytest.mark.parametrize("small, found", [("70.1", set()), ("70.7", {"70.7"})],
                         ids=["clean", "drifted"])
def test_a_name_joined_into_an_index_s_name_names_no_run(tmp_path, small, found):
    # before, `big` inside `index-big-v2` named the other run: the row's names named no
    # claim in common and its number was left alone
    report = run(tmp_path, INDEXED, INDEXES.format(small=small))
    assert_drifts(report, found, "nq/s_net/top20_accuracy/test", 2)
