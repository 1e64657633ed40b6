"""Each attribution rule of ``rgt reconcile`` (docs/reconcile.md), on a short document: the
stale number is found, and the same text with the evidence's numbers yields no report.

The claims are the corpus project's (tests/data/reconcile): ERM, Mixup and CutMix on CIFAR-10
(accuracy, ECE, params) and ERM, Mixup on CIFAR-100; Mixup and CutMix compared with ERM.
"""

from __future__ import annotations

import pytest

from reconcile_helpers import check, drift, matched
from rgt.evidence.reconcile import reconcile

M_ACC, E_ACC, C_ACC = "c10/mixup/accuracy", "c10/erm/accuracy", "c10/cutmix/accuracy"
M_ECE, E_ECE, C_ECE = "c10/mixup/ece", "c10/erm/ece", "c10/cutmix/ece"
MIX_GAIN, CUT_GAIN, ECE_GAIN = ("c10/mixup-vs-erm/accuracy", "c10/cutmix-vs-erm/accuracy",
                                "c10/mixup-vs-erm/ece")

# (rule, text with the evidence's numbers, the same text gone stale, the drift it must show)
PAIRS = [
    ("nearby metric: a number belongs to the metric named closest",
     "On CIFAR-10, Mixup reaches 96.13% accuracy with an ECE of 1.84%.",
     "On CIFAR-10, Mixup reaches 96.13% accuracy with an ECE of 1.48%.",
     {(M_ECE, "1.48%")}),
    ("nearby metric: a number before its metric",
     "On CIFAR-10, Mixup has an ECE of 1.84% and 96.13% accuracy.",
     "On CIFAR-10, Mixup has an ECE of 1.84% and 96.31% accuracy.",
     {(M_ACC, "96.31%")}),
    ("rounding: any shown precision, fraction or percent",
     "CIFAR-10 test accuracy: ERM 0.95, Mixup 96.1%, CutMix 95.803%.",
     "CIFAR-10 test accuracy: ERM 0.95, Mixup 96.2%, CutMix 95.803%.",
     {(M_ACC, "96.2%")}),
    ("± spread: the claim's std",
     "Mixup reaches 96.13 ± 0.12% test accuracy on CIFAR-10.",
     "Mixup reaches 96.13 ± 0.21% test accuracy on CIFAR-10.",
     {(M_ACC, "± 0.21%")}),
    ("± spread: s.e.m. when the text says so",
     "On CIFAR-10 the ECE of Mixup is 1.84 ± 0.12% (mean ± s.e.m.).",
     "On CIFAR-10 the ECE of Mixup is 1.84 ± 0.21% (mean ± s.e.m.).",
     {(M_ECE, "± 0.21%")}),
    ("± spread: a std named next to the number",
     "On CIFAR-10, ERM reaches 95.18% test accuracy (std 0.16).",
     "On CIFAR-10, ERM reaches 95.18% test accuracy (std 0.61).",
     {(E_ACC, "± 0.61")}),
    ("± spread: a difference's is its CI's half-width",
     "On CIFAR-10 the gain from mixup is 0.94 ± 0.23 pp.",
     "On CIFAR-10 the gain from mixup is 0.94 ± 0.32 pp.",
     {(MIX_GAIN, "± 0.32 pp")}),
    ("CI bounds are the comparison's, not its point estimate",
     "On CIFAR-10 the gain from mixup is +0.94 pp (95% CI [0.71, 1.18]).",
     "On CIFAR-10 the gain from mixup is +0.94 pp (95% CI [0.71, 1.81]).",
     {(MIX_GAIN, "1.81")}),
    ("the confidence level is the evidence's (95%)",
     "On CIFAR-10 the gain from mixup is +0.94 pp (95% CI [0.71, 1.18]).",
     "On CIFAR-10 the gain from mixup is +0.94 pp (99% CI [0.71, 1.18]).",
     {(MIX_GAIN, "99%")}),
    ("a CI written 'a to b' after its level",
     "The gain from cutmix on CIFAR-10 has a 95% confidence interval of 0.26 to 0.98.",
     "The gain from cutmix on CIFAR-10 has a 95% confidence interval of 0.26 to 0.89.",
     {(CUT_GAIN, "0.89")}),
    ("lower-is-better: the change's sign and interval (Mixup lowers ECE)",
     "On CIFAR-10, Mixup changes ECE by -1.07 pp (95% CI [-1.48, -0.66]).",
     "On CIFAR-10, Mixup changes ECE by -1.07 pp (95% CI [-1.48, -0.56]).",
     {(ECE_GAIN, "-0.56")}),
    ("difference: the way its word says it goes",
     "Mixup improves test accuracy by 0.94 pp over ERM on CIFAR-10.",
     "Mixup hurts test accuracy by 0.94 pp against ERM on CIFAR-10.",
     {(MIX_GAIN, "hurts \u2026 0.94 pp")}),
    ("difference: an explicit sign",
     "On CIFAR-10 the gain from cutmix is +0.62 pp.",
     "On CIFAR-10 the gain from cutmix is -0.62 pp.",
     {(CUT_GAIN, "-0.62 pp")}),
    ("difference: 'its gain over ERM' takes the candidate of its sentence",
     "On CIFAR-10, CutMix reaches 95.80% test accuracy; its gain over ERM is +0.62 pp.",
     "On CIFAR-10, CutMix reaches 95.80% test accuracy; its gain over ERM is +0.26 pp.",
     {(CUT_GAIN, "+0.26 pp")}),
    ("baseline: 'from X to Y' reads X as the baseline",
     "On CIFAR-10, Mixup improves test accuracy from 95.18% to 96.13%.",
     "On CIFAR-10, Mixup improves test accuracy from 95.81% to 96.13%.",
     {(E_ACC, "95.81%")}),
    ("baseline: the word 'baseline' is the comparisons' baseline",
     "On CIFAR-10 the baseline reaches 95.18% test accuracy.",
     "On CIFAR-10 the baseline reaches 95.12% test accuracy.",
     {(E_ACC, "95.12%")}),
    ("respectively: the k-th number goes with the k-th name",
     "On CIFAR-10, ERM and Mixup reach 95.18% and 96.13% test accuracy, respectively.",
     "On CIFAR-10, ERM and Mixup reach 96.13% and 95.18% test accuracy, respectively.",
     {(E_ACC, "96.13%"), (M_ACC, "95.18%")}),
    ("seed count: a variant's n",
     "On CIFAR-10, CutMix was trained with 5 seeds and reaches 95.80% test accuracy.",
     "On CIFAR-10, CutMix was trained with 4 seeds and reaches 95.80% test accuracy.",
     {(C_ACC, "4 seeds")}),
    ("seed count: in words",
     "On CIFAR-10, Mixup reaches 96.13% test accuracy over three seeds.",
     "On CIFAR-10, Mixup reaches 96.13% test accuracy over five seeds.",
     {(M_ACC, "five seeds")}),
    ("anaphora: 'its' takes the previous sentence's variant",
     "Mixup reaches 96.13% test accuracy on CIFAR-10. Its ECE is 1.84%.",
     "Mixup reaches 96.13% test accuracy on CIFAR-10. Its ECE is 1.48%.",
     {(M_ECE, "1.48%")}),
    ("experiment: named outright beats what an alias implies",
     "On CIFAR-100 the gain from mixup is 1.17 pp.",
     "On CIFAR-100 the gain from mixup is 1.71 pp.",
     {("c100/mixup-vs-erm/accuracy", "1.71 pp")}),
    ("experiment: unnamed, the clearly closest one",
     "ERM reaches 95.18% test accuracy.",
     "ERM reaches 95.81% test accuracy.",
     {(E_ACC, "95.81%")}),
    ("model size: an M suffix",
     "Every CIFAR-10 model, ERM included, has 11.2M parameters.",
     "Every CIFAR-10 model, ERM included, has 12.1M parameters.",
     {("c10/erm/params", "12.1M")}),
]


@pytest.mark.parametrize(("rule", "clean", "stale", "expected"), PAIRS,
                         ids=[pair[0] for pair in PAIRS])
def test_a_rule_finds_the_stale_number_and_nothing_in_the_clean_text(
        tmp_path, rule, clean, stale, expected):
    report = check(tmp_path, clean)
    assert report["drift"] == [] and report["unmapped"] == [], rule
    assert report["matched"], f"{rule}: the clean text's numbers are checked, not skipped"
    report = check(tmp_path, stale)
    assert drift(report) == expected and report["unmapped"] == [], rule


# Places a careless reader reports: none of these is a claim's number.
LEFT_ALONE = [
    ("another split", "On CIFAR-10, Mixup reaches 96.40% validation accuracy."),
    ("another metric", "On CIFAR-10, Mixup reaches a top-5 accuracy of 99.80%."),
    ("a hyper-parameter", "On CIFAR-10, Mixup (alpha = 0.2, lr 0.1) reaches 96.13% accuracy."),
    ("a citation", "AutoAugment reaches 96.3% test accuracy on CIFAR-10 [3]."),
    ("an author-year citation", "ERM reaches 95.3% test accuracy (He et al., 2016)."),
    ("another system", "On CIFAR-10, RandAugment reaches 96.2% test accuracy."),
    ("one seed", "On CIFAR-10, seed 2 of CutMix reaches 95.77% test accuracy."),
    ("the best seed", "The best single CutMix seed reached 96.21% test accuracy on CIFAR-10."),
    ("one epoch", "At epoch 100, Mixup reached 94.10% test accuracy on CIFAR-10."),
    ("references, units, money, years",
     "Section 4.2 and Table 2 give Mixup's test accuracy on CIFAR-10 (2.5 h, 16 GB, 200 epochs, "
     "$1.20/h, 2024, PyTorch 2.1)."),
    ("a seed count without names", "We tuned the learning rate on 4 seeds."),
    ("part of the seeds", "On CIFAR-10 the first three seeds of CutMix disagreed."),
    ("a mean's CI (the evidence discloses a std)",
     "On CIFAR-10, ERM reaches 95.18% test accuracy (95% CI [94.90, 95.50])."),
    ("code", "```\nMixup test accuracy on CIFAR-10: 0.10\n```\n"),
    ("an indented code block", "Run it:\n\n    mixup --test-accuracy 0.10\n"),
    ("inline code", "Set `min_effect: {accuracy: 0.01}` for Mixup's test accuracy on CIFAR-10."),
    ("a test's power and level",
     "On CIFAR-10, Mixup's test accuracy gain needs 80% power at alpha = 0.05 to be called."),
    ("a p-value", "On CIFAR-10 the gain from mixup has p = 0.19 (adjusted p < 0.38)."),
    ("no metric named", "On CIFAR-10, Mixup needs 0.5 of the compute of CutMix."),
    ("a quantity in another unit than the metric's",
     "On CIFAR-10, Mixup trains in 2.5 h and reaches 96.13% test accuracy."),
    ("a previous sentence's variant without 'it'",
     "Mixup reaches 96.13% test accuracy on CIFAR-10. ERM was tuned first. The ECE is low."),
]


@pytest.mark.parametrize(("place", "text"), LEFT_ALONE, ids=[place for place, _ in LEFT_ALONE])
def test_numbers_that_are_no_claims_are_left_alone(tmp_path, place, text):
    report = check(tmp_path, text)
    assert report["drift"] == [] and report["unmapped"] == [], place


def test_a_number_tied_to_no_single_claim_is_unmapped_with_its_sentence(tmp_path):
    report = check(tmp_path, "# Notes\n\nThe test accuracy is 90.00% on CIFAR-10.\n")
    assert report["drift"] == []
    assert report["unmapped"] == [{"file": (tmp_path / "doc.md").as_posix(), "line": 3,
                                   "text": "The test accuracy is 90.00% on CIFAR-10."}]


def test_a_weakly_named_number_matching_another_claim_of_its_sentence_is_matched(tmp_path):
    text = "On CIFAR-10, Mixup reaches 96.13% accuracy and an ECE of 1.84%, ERM 95.18% and 2.91%."
    report = check(tmp_path, text)
    assert report["drift"] == [] and report["unmapped"] == []
    assert {(E_ACC, "95.18%"), (E_ECE, "2.91%")} <= matched(report)


def test_a_seed_count_about_how_every_result_is_aggregated_is_every_claims(tmp_path):
    report = check(tmp_path, "All numbers are means over 5 seeds (ERM and Mixup: 3).")
    assert report["drift"] == [] and report["unmapped"] == [] and report["matched"]
    report = check(tmp_path, "All numbers are means over 4 seeds.")
    assert report["drift"] == [] and len(report["unmapped"]) == 1  # 3 for some, 5 for others
    claims = [{"id": f"e/{v}/accuracy/test", "metric": "accuracy", "exp_id": "e", "variant": v,
               "split": "test", "value": 0.9, "n": 5, "aliases": []} for v in ("a", "b")]
    path = tmp_path / "doc.md"
    path.write_text("Each model is run with 3 seeds; we report the mean.\n")
    assert [item["found"] for item in reconcile(claims, [path])["drift"]] == ["3 seeds"]


def test_a_metric_whose_id_names_a_unit_is_read_in_that_unit(tmp_path):
    claim = {"id": "nlp/student/latency_ms/test", "metric": "latency_ms", "exp_id": "nlp",
             "variant": "student", "split": "test", "direction": "lower", "value": 18.7, "n": 5,
             "variance": {"type": "std", "value": 0.8}, "aliases": []}
    path = tmp_path / "doc.md"
    path.write_text("The student's latency is 18.7 ms; it trains in 1.5 h.\n"
                    "The student's latency is 21.7 ms.\n")
    report = reconcile([claim], [path])
    assert [(item["line"], item["found"]) for item in report["matched"]] == [(1, "18.7")]
    assert [(item["line"], item["found"]) for item in report["drift"]] == [(2, "21.7")]


def test_a_drift_names_the_fix_in_the_documents_own_format(tmp_path):
    report = check(tmp_path, "On CIFAR-10, Mixup reaches 96.31% test accuracy.")
    (item,) = report["drift"]
    assert item["fix"] == "96.13%" and item["part"] == "value"
    assert item["expected"] == pytest.approx(0.961267)


TABLE = """\
Table 1: CIFAR-10 test results, mean ± std over 3 seeds.

| Method | Acc. (%) | ECE (%) | ± s.e.m. |
|---|---|---|---|
| ERM | 95.18 ± 0.16 | 2.91 | 0.14 |
| Mixup (ours) | 96.13 ± 0.12 | 1.84 | 0.12 |
| ResNet-18 + CutMix [4] | 96.10 | 1.90 | 0.10 |
| Linear probe | 61.20 | 9.00 | 0.50 |
"""
TRANSPOSED = """\
| CIFAR-10, test | ERM | Mixup |
|---|---|---|
| accuracy (%) | 95.18 | 96.13 |
| ECE (%) | 2.91 | 1.84 |
"""


@pytest.mark.parametrize(("table", "old", "new", "expected"), [
    (TABLE, "| 95.18 ± 0.16 |", "| 95.81 ± 0.16 |", {(E_ACC, "95.81")}),
    (TABLE, "| 1.84 | 0.12 |", "| 1.84 | 0.21 |", {(M_ECE, "± 0.21")}),
    (TABLE, "96.13 ± 0.12", "96.13 ± 0.21", {(M_ACC, "± 0.21")}),
    (TRANSPOSED, "| 2.91 |", "| 2.19 |", {(E_ECE, "2.19")}),
], ids=["cell by row and column", "a spread-only column qualifies the one before it",
        "± in a cell", "metrics as rows, variants as columns"])
def test_a_table_cell_is_the_claim_of_its_row_and_column(tmp_path, table, old, new, expected):
    report = check(tmp_path, table)
    assert report["drift"] == [] and report["unmapped"] == [] and len(report["matched"]) >= 4
    assert drift(check(tmp_path, table.replace(old, new))) == expected


def test_rows_naming_no_variant_and_variants_named_only_in_a_caption_are_left_alone(tmp_path):
    report = check(tmp_path, TABLE)
    assert not any("CutMix" in item["claim"] or item["line"] >= 7 for item in report["matched"])
    captioned = "Table 2: ECE of CutMix on CIFAR-10, per seed.\n\n| run | ECE (%) |\n|---|---|\n" \
                "| first | 2.10 |\n| second | 2.60 |\n"
    report = check(tmp_path, captioned)
    assert report["drift"] == report["unmapped"] == report["matched"] == []


def test_a_group_row_or_multirow_label_names_the_rows_below_it(tmp_path):
    text = ("| Dataset / method | Acc. (%) |\n|---|---|\n| **CIFAR-100** | |\n| ERM | 78.31 |\n"
            "| Mixup | 79.94 |\n")
    assert drift(check(tmp_path, text)) == {("c100/mixup/accuracy", "79.94")}
