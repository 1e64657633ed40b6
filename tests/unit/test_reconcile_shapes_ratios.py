"""Shapes of results the real corpus's forty-fifth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a quantization library's results
pages whose cells give an average accuracy and its percentage of the BF16 model's, `0.6808
(96.2%)` or `0.6239(99.11%)`, one run's two claims in one cell; rows named by a scheme whose
name ends in a letter, `q3_k_m`; and tables each under its own `### Table N …` heading, the
heading below one table opening the next one's section; a course report's `outperforms the
baseline BART model by 1.71(3.89\\%), 0.46(2.18\\%), and 0.67(1.64\\%) in ROUGE-1, ROUGE-2, and
ROUGE-L scores respectively`, each difference with its relative change in parentheses, the
first pair its source's own slip. The snippets follow those shapes, with numbers of their
own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run
from rgt.evidence.reconcile.blocks import Table
from rgt.evidence.reconcile.documents import document_blocks


def _level(variant: str, model: str, accuracy: float, share: float, *names: str) -> list[dict]:
    """A run's average accuracy (a fraction) and its percentage of BF16's."""
    accuracy_claim = alias_claim("mxfp", variant, "accuracy", accuracy, [model, *names])
    del accuracy_claim["unit"]
    return [accuracy_claim,
            alias_claim("mxfp", variant, "relative_accuracy", share, [model, "BF16", *names])]


BF16 = {**alias_claim("mxfp", "bf16", "accuracy", 0.6764, ["Qwen3-8B", "BF16"]), "unit": None}
RECIPES = [BF16, *_level("pure_4bit", "Qwen3-8B", 0.6316, 93.4, "Pure 4-bit"),
           *_level("q3_k_m", "Qwen3-8B", 0.6194, 97.97, "Optimized RTN", "q3_k_m")]
TABLE = ("| Average bits | Qwen3-8B |\n|:--|:--:|\n| **BF16** | 0.6764 (100%) |\n"
         "| **Pure 4-bit** | {accuracy} ({share}) |\n\n"
         "|method|scheme|Qwen3-8B|\n|:--|:--|:--|\n| **Optimized RTN** | q3_k_m |0.6194(97.97%)|\n")


@pytest.mark.parametrize("accuracy, share, found", [
    ("0.6316", "93.4%", set()), ("0.6318", "93.4%", {"0.6318"}), ("0.6316", "93.6%", {"93.6%"})],
    ids=["clean", "drifted-accuracy", "drifted-share"])
def test_a_cell_of_a_fraction_and_its_percentage_holds_two_claims(tmp_path, accuracy, share,
                                                                 found):
    # before, a cell whose aliases pinned one run's accuracy and its percentage of BF16's
    # named no single metric: neither number was read; and `q3_k_m` declared millions,
    # reading 0.6194 as 0.00000062 million
    report = run(tmp_path, RECIPES, TABLE.format(accuracy=accuracy, share=share))
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["drift"] + report["matched"]) == 4 and report["unmapped"] == []  # not BF16's


SECTIONS = ("### Table 2  Comparison at an average of 5 bits\n\n"
            "| Avg. bits = 5 | Llama |\n|:--|:--:|\n| **Ours** | **68.6** |\n\n"
            "### Table 3  Comparison at an average of 4.5 bits\n\n"
            "| Avg. bits = 4.5 | Llama |\n|:--|:--:|\n| **Ours** | **68.1** |\n\n"
            "Table 4: the same at 3 bits, below its table.\n")


def test_a_heading_below_a_table_is_the_next_table_s_not_its_caption(tmp_path):
    # before, `### Table 3 … 4.5 bits` below the first table captioned it too: with the
    # results page's evidence, its rows were held against the 4.5-bit runs' claims; a plain
    # line below that reads `Table …` still captions the table above it
    path = tmp_path / "README.md"
    path.write_text(SECTIONS, encoding="utf-8")
    tables = [block for block in document_blocks(path) if isinstance(block, Table)]
    assert [table.caption for table in tables] == [
        "", "Table 4: the same at 3 bits, below its table."]


def _gain(metric: str, difference: float, relative: float) -> list[dict]:
    """Ours over BART on one ROUGE score: the difference, and the relative change."""
    names = ["our model", "baseline BART model", metric.replace("rouge_", "ROUGE-").upper()]
    pair = {"candidate": "ours", "baseline": "bart"}
    return [{**alias_claim("cnndm", "ours-vs-bart", metric, difference, names, **pair,
                           difference=difference), "unit": None},
            alias_claim("cnndm", "ours-vs-bart-relative", metric, relative, names, **pair,
                        difference=relative, relative=True)]


GAINS = [*_gain("rouge_1", 0.71, 1.61), *_gain("rouge_2", 0.46, 2.18),
         *_gain("rouge_l", 0.67, 1.64)]
RESPECTIVELY = ("In the automatic evaluation, our model outperforms the baseline BART model by "
                "{first}, 0.46(2.18\\%), and 0.67(1.64\\%) in ROUGE-1, ROUGE-2, and ROUGE-L "
                "scores respectively.\n")


@pytest.mark.parametrize("first, found", [("0.71(1.61\\%)", set()),
                                          ("1.71(3.89\\%)", {"1.71", "3.89%"})],
                         ids=["clean", "the-source-s-slip"])
def test_differences_each_with_its_relative_change_respectively(tmp_path, first, found):
    # before, the numbers after the first were no differences (only it follows `by`), and a
    # wrong one, near neither the difference nor the relative change, was left unmapped: the
    # `%` says which of the two it states
    report = run(tmp_path, GAINS, RESPECTIVELY.format(first=first), "report.tex")
    assert {item["found"] for item in report["drift"]} == found
    assert len(report["drift"] + report["matched"]) == 6 and report["unmapped"] == []
