"""Shapes of results the real corpus's seventy-seventh held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: an NLP toolkit's release notes,
tables captioned by the project's settings (``For the default project settings with 1M
(2.6G) tokenized training texts …``) whose cells are test results. The snippets follow that
shape, with numbers of their own."""

from __future__ import annotations

import pytest

from reconcile_helpers import alias_claim
from reconcile_helpers import reconcile_text as run

CLAIMS = [alias_claim("finnish", variant, metric, value, [name, header, "Finnish"], unit=None)
          for variant, name in (("none", "none"), ("floret", "floret"))
          for metric, header, value in (("tag", "TAG", {"none": 92.8, "floret": 96.1}[variant]),
                                        ("pos", "POS", {"none": 91.7, "floret": 95.2}[variant]))]
NOTES = """\
Finnish pipeline training, comparing no vectors with floret vectors.

For the default project settings with AMOUNT tokenized training texts and 50K 300-dim vectors:

| Vectors | TAG | POS |
| --- | ---: | ---: |
| none | 92.8 | 91.7 |
| floret | **96.1** | **FLORET** |
"""


@pytest.mark.parametrize("amount", ["1M (2.6G)", "500K", "2 million"])
@pytest.mark.parametrize("pos, found", [("95.2", set()),
                                        ("95.5", {("95.5", "finnish/floret/pos/test")})],
                         ids=["clean", "drifted"])
def test_an_amount_of_training_texts_names_no_split(tmp_path, amount, pos, found):
    # before, the caption's `training` made the table's cells the train split's, and the
    # test claims went unchecked
    report = run(tmp_path, CLAIMS, NOTES.replace("AMOUNT", amount).replace("FLORET", pos))
    assert {(item["found"], item["claim"]) for item in report["drift"]} == found
    assert len(report["matched"]) == 4 - len(found)


def test_a_caption_naming_the_training_set_s_numbers_still_names_the_train_split(tmp_path):
    train = [{**alias_claim("finnish", "floret", "pos", 94.9, ["floret", "POS", "Finnish"],
                            unit=None), "id": "finnish/floret/pos/train", "split": "train"}]
    text = ("Accuracy on the training texts:\n\n| Vectors | POS |\n| --- | ---: |\n"
            "| floret | 95.2 |\n")  # the test claim's value: not the train split's
    report = run(tmp_path, CLAIMS + train, text)
    assert [(item["found"], item["claim"]) for item in report["drift"]] == [
        ("95.2", "finnish/floret/pos/train")]
