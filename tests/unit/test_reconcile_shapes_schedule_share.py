"""Shapes of results the real corpus's seventy-fourth held-out part showed (now in
tests/data/reconcile_real/dev), read as a reader reads them: a training-speed-up library's
method card saying how much of the training a method ran for (``for 30% of training``) in
the sentence that states its speed-up. The snippets follow that shape, with numbers of their
own."""

from __future__ import annotations

from reconcile_helpers import alias_claim, assert_drifts
from reconcile_helpers import reconcile_text as run

CLAIMS = [alias_claim("gpt2", "warmup", "speedup", 1.5,
                      ["Sequence Length Warmup", "speedup", "speed up training"], unit="x",
                      split="train")]


def test_a_share_of_the_training_a_method_ran_for_is_a_setting(tmp_path):
    # before, `30%` (of training, the train split's word) was held against the speed-up
    # claim of the train split: a false drift
    text = ("We found that running Sequence Length Warmup for 30% of training provided the "
            "largest speedup.\n")
    report = run(tmp_path, CLAIMS, text)
    assert (report["drift"], report["unmapped"]) == ([], [])


def test_a_share_of_the_epochs_that_is_a_result_stays_one(tmp_path):
    # a share that is the measure itself (`reaches 30% of the epochs' accuracy`) has no
    # schedule word before it and is read as ever
    claims = [alias_claim("gpt2", "warmup", "accuracy", 31.0, ["Sequence Length Warmup"])]
    report = run(tmp_path, claims, "Sequence Length Warmup reaches an accuracy of 30% of "
                                   "epochs.\n")
    assert_drifts(report, {"30%"}, "gpt2/warmup/accuracy/test", 1)
