"""Test reports in prose, checked as statcheck checks them: the p-value a t, F, z or χ²
statistic gives is recomputed (the statistic's and the p-value's rounding allowed for), and a
p-value stated for a comparison is held against the comparison's 95% CI in the evidence."""

from __future__ import annotations

import pytest

from reconcile_helpers import check
from rgt.evidence.reconcile.statcheck import agrees, implied_p, inconsistent_tests


@pytest.mark.parametrize(("kind", "statistic", "df1", "df2", "p"), [
    ("t", 3.02, 4, None, 0.0392), ("F", 5.2, 1, 8, 0.0520), ("z", 1.5, None, None, 0.1336),
    ("\u03c72", 6.1, 2, None, 0.0474),
])
def test_the_p_value_a_statistic_gives(kind, statistic, df1, df2, p):
    assert implied_p(kind, statistic, df1, df2) == pytest.approx(p, abs=5e-5)


@pytest.mark.parametrize(("report", "consistent"), [
    ("t(4) = 3.02, p = 0.04", True),   # 0.039
    ("t(4) = 3.02, p = .039", True),
    ("t(4) = 3.02, p < 0.05", True),
    ("t(4) = 3.02, p = 0.01", False),
    ("t(4) = 2.31, p < 0.05", False),  # 0.082: not significant
    ("F(1, 8) = 5.2, p = 0.052", True),
    ("F(1, 8) = 5.2, p < .05", False),  # 5.15 to 5.25 gives 0.051 to 0.053
    ("z = 1.5, p = 0.03", False),
    ("\u03c72(2) = 6.1, p = .047", True),
])
def test_a_test_report_is_checked_against_itself(report, consistent):
    findings = inconsistent_tests(f"Mixup beats ERM ({report}).")
    assert (findings == []) == consistent, findings


def test_a_p_value_is_consistent_within_the_rounding_of_both_numbers():
    assert agrees("=", "0.04", 0.0391, 0.0393)
    assert agrees("=", "0.05", 0.0452, 0.0460)   # 0.046 rounds to 0.05
    assert not agrees("=", "0.05", 0.0440, 0.0449)
    assert agrees("<", "0.05", 0.049, 0.051) and not agrees("<", "0.05", 0.051, 0.052)
    assert agrees(">", "0.05", 0.051, 0.052) and not agrees(">", "0.05", 0.01, 0.02)


def test_an_inconsistent_test_report_is_drift_with_the_p_value_its_statistic_gives(tmp_path):
    report = check(tmp_path, "Mixup improves test accuracy over ERM (t(4) = 2.31, p = 0.02).\n")
    (finding,) = [item for item in report["drift"] if item["part"] == "p"]
    assert finding["claim"] == "statistics" and finding["line"] == 1
    assert finding["expected"] == pytest.approx(0.0820, abs=1e-4)
    assert finding["fix"] == "p = 0.08" and not report["ok"]
    fine = check(tmp_path, "Mixup improves test accuracy over ERM (t(4) = 2.31, p = 0.08).\n")
    assert [item for item in fine["drift"] if item["part"] == "p"] == []


def test_a_p_value_is_held_against_its_comparisons_interval(tmp_path):
    # the corpus's CIFAR-10 Mixup − ERM difference: +0.0094, 95% CI [+0.0071, +0.0118]
    said = "On CIFAR-10, Mixup improves test accuracy over ERM by 0.94 pp ({})."
    assert [item for item in check(tmp_path, said.format("p < 0.01"))["drift"]
            if item["part"] == "p"] == []
    report = check(tmp_path, said.format("p = 0.21"))
    (finding,) = [item for item in report["drift"] if item["part"] == "p"]
    assert finding["claim"] == "cifar10_aug/mixup-vs-erm/accuracy/test"
    assert finding["fix"].startswith("p < 0.05 (its 95% CI [")
