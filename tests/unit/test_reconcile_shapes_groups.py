"""Shapes of results the real corpus's twenty-sixth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a README whose tables name each
dataset only over the middle of its columns (``| | | CIFAR-10 | | |``), an empty spacer column
between datasets, and the label counts of each column in a second header row that Markdown
reads as a body row (``| | 40 | 250 | 4000 |``); a narrow table whose metrics sit in such a
row under a title over its first column (``| | 100k labels | |`` over ``| | top-1 | top-5 |``);
prose where a rate ``falls from 92.7% to 70.2%`` and a share is worked out in place
(``89/119 = 75%``). The snippets follow those shapes, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run


def _ssl(dataset: str, labels: int, method: str, value: float, spread: float) -> dict:
    return alias_claim(f"{dataset.lower().replace('-', '')}_{labels}", method.lower(),
                       "accuracy", value, [method, dataset, str(labels)],
                       variance={"type": "std", "value": spread}, n=3)


GROUPED = [_ssl("CIFAR-10", 40, "FixMatch", 92.53, 0.28),
           _ssl("CIFAR-10", 250, "FixMatch", 95.14, 0.05),
           _ssl("SVHN", 40, "FixMatch", 96.19, 1.18),
           _ssl("SVHN", 250, "FixMatch", 97.98, 0.02)]
SPACED = ("The results are best accuracies with standard errors over three seeds.\n\n"
          "|              |            |  CIFAR-10  |   |            | SVHN       |\n"
          "|--------------|------------|------------|---|------------|------------|\n"
          "|              | 40         | 250        |   | 40         | 250        |\n"
          "| FixMatch [8] | {first} | 95.14±0.05 |   | 96.19±1.18 | 97.98±0.02 |\n")


@pytest.mark.parametrize("first, found", [("92.53±0.28", set()),
                                          ("92.58±0.28", {"92.58"}),
                                          ("92.53±0.21", {"± 0.21"})])
def test_a_dataset_over_the_middle_of_its_columns_and_counts_below_name_every_cell(
        tmp_path, first, found):
    # before, the dataset named only its middle column and the counts were a body row: the
    # first column's cells named no dataset, the label counts none of the columns
    report = run(tmp_path, GROUPED, SPACED.format(first=first))
    assert {item["found"] for item in report["drift"]} == found
    assert report["unmapped"] == []
    assert {item["claim"] for item in report["drift"] + report["matched"]} == {
        claim["id"] for claim in GROUPED}


TOPK = [alias_claim("imagenet_100k", "flexmatch", metric, value,
                    ["FlexMatch", "100k labels", name])
        for metric, name, value in (("top1_accuracy", "top-1", 58.15),
                                    ("top5_accuracy", "top-5", 80.52))]
NARROW = ("|               |100k labels |            |\n"
          "|---------------|------------|------------|\n"
          "|               | top-1      | top-5      |\n"
          "| FlexMatch [9] | 58.15      | {top5}      |\n")


def test_a_narrow_table_s_metrics_in_its_second_header_row_name_their_columns(tmp_path):
    # before, two names were too few for a header row: the top-5 column named nothing
    drifted = run(tmp_path, TOPK, NARROW.format(top5="80.57"))
    assert [(item["claim"], item["found"]) for item in drifted["drift"]] == [
        ("imagenet_100k/flexmatch/top5_accuracy/test", "80.57")]
    assert len(run(tmp_path, TOPK, NARROW.format(top5="80.52"))["matched"]) == 2


FINETUNED = [alias_claim(exp, variant, "accuracy", value, ["detection rate", *aliases])
             for exp, variant, value, aliases in (
                 ("webtext", "simple_baseline", 92.69,
                  ["simple baseline", "GPT-2 full model", "Top-K 40 generations"]),
                 ("amazon", "simple_baseline", 70.2,
                  ["simple baseline", "samples from the finetuned GPT-2 full model",
                   "Top-K 40 generations"]),
                 ("webtext", "zero_shot", 81.8, ["using GPT-2 full", "Top-K 40 generations"]),
                 ("amazon", "zero_shot", 76.2, ["using GPT-2 full", "Amazon reviews"]))]


def test_the_start_of_a_fall_is_not_held_against_its_end_s_claim(tmp_path):
    # before, the sentence's finetuned model carried both numbers to the finetuned claim:
    # 92.7 was a false drift against 70.2
    text = ("When run on samples from the finetuned GPT-2 full model, detection rate falls "
            "from 92.7% to 70.2% for Top-K 40 generations.\n")
    report = run(tmp_path, FINETUNED, text)
    assert report["drift"] == [] and report["unmapped"] == []
    assert [item["found"] for item in report["matched"]] == ["70.2%"]


def test_a_share_worked_out_from_two_counts_is_no_claim_s(tmp_path):
    # before, the 75% was left unmapped between the detection rates
    text = ("The simple baseline's detection rate was 70.2% on samples from the finetuned "
            "GPT-2 full model; for the majority of the misses (89/119 = 75%), the samples "
            "were short.\n")
    report = run(tmp_path, FINETUNED, text)
    assert report["drift"] == [] and report["unmapped"] == []
