"""Which runs a number speaks of: a seed count aggregating every result (``median of 5
runs``, ``we run 5 trials``), the released checkpoints of a table of downloads (one run's
numbers, not the mean of several), the individual runs of a list (``{60.1, 60.4, 60.9}``).
Snippets shaped like the real corpus's development part, with numbers of their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim, outcomes, reconcile_text

MEANS = [alias_claim("imagenet", name.lower(), "top1_accuracy", value,
                     [name, "ResNet-50", "top-1 acc."], n=5)
         for name, value in (("Alpha", 61.4), ("Beta", 66.2))]
SINGLE = alias_claim("imagenet", "gamma", "top1_accuracy", 70.3, ["Gamma", "top-1 acc."], n=1)
DOWNLOADS = """\
Our pre-trained ResNet-50 models can be downloaded as following:

| | epochs | top-1 acc. | model |
|---|---|---|---|
| Alpha | 200 | 61.1 | [download](https://example.org/a.pth) |
| Beta | 200 | 66.5 | [download](https://example.org/b.pth) |
| Gamma | 800 | 70.1 | [download](https://example.org/c.pth) |
"""


def test_a_released_checkpoints_number_is_not_compared_with_a_mean_of_several_runs(tmp_path):
    report = reconcile_text(tmp_path, [*MEANS, SINGLE], DOWNLOADS)
    assert outcomes(report) == {("gamma", 7, "70.1")}  # a single run's claim: checked
    assert report["unmapped"] == []
    results = DOWNLOADS.replace("Our pre-trained ResNet-50 models can be downloaded",
                                "Our ResNet-50 results are")
    assert outcomes(reconcile_text(tmp_path, [*MEANS, SINGLE], results)) == {
        ("alpha", 5, "61.1"), ("beta", 6, "66.5"), ("gamma", 7, "70.1")}


def test_a_seed_count_aggregating_the_results_is_about_the_claims_of_several_runs(tmp_path):
    claims = [*MEANS, SINGLE]
    for said, drift in (("median of 5 runs", set()), ("median of 6 runs", {"6 runs"}),
                        ("we run 5 trials and report the mean", set()),
                        ("we run 4 trials and report the mean", {"4 trials"})):
        report = reconcile_text(tmp_path, claims, f"Top-1 acc. (ResNet-50, {said}).\n")
        assert {item["found"] for item in report["drift"]} == drift, said
        assert report["unmapped"] == [] and bool(report["matched"]) != bool(drift)


def test_pre_training_names_no_split_and_a_list_of_runs_is_no_mean(tmp_path):
    text = ("Here we run 5 trials (of pre-training and linear classification) and report "
            "mean\u00b1std: the 5 results of Alpha are {61.0, 61.2, 61.4, 61.6, 61.8}.\n")
    report = reconcile_text(tmp_path, MEANS, text)
    assert outcomes(report, "matched") == {("alpha", 1, "5 trials")}
    assert report["drift"] == [] and report["unmapped"] == []
