"""Prose of papers and READMEs named only by the evidence's aliases: the run a sentence
describes carries to the next one's result, a sentence about cited work quotes that work's
numbers, an alias that is a metric's name (a column header) names no variant. Snippets shaped
like the real corpus's development part, with numbers of their own."""

from __future__ import annotations

from reconcile_helpers import alias_claim, outcomes, reconcile_text

SOFT = alias_claim("c10", "soft-vs-hard", "accuracy", 0.3, ["soft assignment"],
                   candidate="soft", baseline="hard", difference=0.3)
NOISE = alias_claim("c10", "noise-vs-hard", "accuracy", -7.9, ["white noise"],
                    candidate="noise", baseline="hard", difference=-7.9)
HARD = alias_claim("c10", "hard", "accuracy", 84.2, ["Ours", "Acc."])
NOISY = alias_claim("c10", "noise", "accuracy", 76.3, ["white noise", "Accuracy"])


def test_the_run_a_sentence_describes_carries_to_the_next_ones_result(tmp_path):
    text = ("We replace the hard assignment by a soft assignment with a sigmoid. "
            "The accuracy increases by {}%, which does not affect much the performance.\n")
    claims = [SOFT, NOISE, HARD, NOISY]
    assert outcomes(reconcile_text(tmp_path, claims, text.format("0.3")), "matched") == {
        ("soft-vs-hard", 1, "0.3%")}
    drifted = reconcile_text(tmp_path, claims, text.format("0.5"))
    assert outcomes(drifted) == {("soft-vs-hard", 1, "0.5%")} and drifted["unmapped"] == []


def test_a_sentence_about_cited_work_quotes_its_numbers(tmp_path):
    text = ("Sparse coding representations used by [4, 7] can be seen as soft assignment and "
            "yield a comparable accuracy (resp. 80.1% and 83.9%).\n")
    report = reconcile_text(tmp_path, [SOFT, NOISE, HARD, NOISY], text)
    assert report["drift"] == [] and report["unmapped"] == []


def test_an_alias_that_is_a_metrics_name_names_no_variant(tmp_path):
    text = "Other representations yield a comparable accuracy of 81.5%.\n"
    report = reconcile_text(tmp_path, [HARD, NOISY], text)
    assert report["drift"] == []  # not white noise's: "Accuracy" is its column, not its name
    assert [item["line"] for item in report["unmapped"]] == [1]
