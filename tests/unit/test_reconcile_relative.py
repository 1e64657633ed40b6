"""A number belongs to the metric that governs it in its clause — the one before it, or the one
right after it (``96.13% test accuracy``), not a closer one that follows — in Markdown and in
LaTeX; and a relative change (``reduces the error by 15%``, ``3× fewer parameters``) is
compared with a claim that is a relative change (``"relative": true``), never with an
absolute one."""

from __future__ import annotations

import pytest

from reconcile_helpers import check, drift, matched
from rgt.evidence.reconcile import reconcile

M_ACC, M_ECE = "c10/mixup/accuracy", "c10/mixup/ece"


@pytest.mark.parametrize(("text", "suffix"), [
    ("The test accuracy of Mixup on CIFAR-10 is {acc} with an ECE of 1.84%.", ".md"),
    (r"The test accuracy of Mixup on CIFAR-10 is \SI{{{acc_si}}}{{\percent}} with an ECE of "
     r"\SI{{1.84}}{{\percent}}.", ".tex"),
    ("On CIFAR-10 Mixup gets an ECE of 1.84% and {acc} test accuracy.", ".md"),
    ("Mixup reaches {acc} of the top-1 accuracy on CIFAR-10 with an ECE of 1.84%.", ".md"),
])
def test_a_number_is_the_metric_s_that_governs_it_not_the_next_one_named(
        tmp_path, text, suffix):
    clean = text.format(acc="96.13%", acc_si="96.13")
    report = check(tmp_path, clean, suffix)
    assert report["drift"] == [] and matched(report) >= {(M_ACC, "96.13%"), (M_ECE, "1.84%")}
    stale = text.format(acc="96.31%", acc_si="96.31")
    assert drift(check(tmp_path, stale, suffix)) == {(M_ACC, "96.31%")}


def comparison(value: float, relative: bool, **extra) -> dict:
    kind = "relative" if relative else "absolute"
    return {"id": f"cifar10/cutout-vs-baseline/test_error_{kind}/test", "metric": "test_error",
            "exp_id": "cifar10", "variant": "cutout-vs-baseline", "candidate": "cutout",
            "baseline": "baseline", "split": "test", "direction": "lower", "value": value,
            "relative": relative, "aliases": ["cutout", "Cutout"], **extra}


# Cutout lowers the CIFAR-10 test error of ResNet18 from 4.72% to 3.99%: 0.73 points, 15.5%.
CLAIMS = [comparison(0.0073, False), comparison(0.154661, True)]
PARAMS = [{"id": "c/student-vs-teacher/params/test", "metric": "params", "exp_id": "c",
           "variant": "student-vs-teacher", "candidate": "student", "baseline": "teacher",
           "split": "test", "direction": "lower", "value": 0.666667, "relative": True,
           "aliases": ["the student"]}]


def run(tmp_path, claims: list[dict], text: str) -> dict:
    path = tmp_path / "doc.md"
    path.write_text(text + "\n", encoding="utf-8")
    report = reconcile(claims, [path])
    assert report["unmapped"] == []
    return report


@pytest.mark.parametrize(("text", "claim"), [
    ("Cutout reduces the test error by 15.5%.", "relative"),
    ("Cutout reduces the test error by 0.73 pp.", "absolute"),
    ("Cutout reduces the test error by 0.73%.", "absolute"),
])
def test_a_relative_change_is_compared_with_the_relative_claim(tmp_path, text, claim):
    (item,) = run(tmp_path, CLAIMS, text)["matched"]
    assert item["claim"].endswith(f"_{claim}/test")


def test_a_drifted_relative_change_is_the_relative_claim_s_drift(tmp_path):
    (item,) = run(tmp_path, CLAIMS, "Cutout reduces the test error by 18.5%.")["drift"]
    assert item["claim"].endswith("_relative/test") and item["fix"] == "15.5%"
    (item,) = run(tmp_path, CLAIMS, "Cutout raises the test error by 15.5%.")["drift"]
    assert (item["part"], item["fix"]) == ("direction", '"lowers" for "raises"')


def test_a_ratio_states_a_relative_change_only(tmp_path):
    report = run(tmp_path, PARAMS, "The student has 3× fewer parameters.")
    assert report["ok"] and [item["found"] for item in report["matched"]] == ["3"]
    (item,) = run(tmp_path, PARAMS, "The student has 4× fewer parameters.")["drift"]
    assert item["found"] == "4"
    (item,) = run(tmp_path, PARAMS, "The student has 3× more parameters.")["drift"]
    assert item["part"] == "direction"
    absolute = [{**PARAMS[0], "relative": False, "value": 2.0}]
    report = run(tmp_path, absolute, "The student has 2× fewer parameters.")
    assert (report["drift"], report["matched"]) == ([], [])  # a ratio is no absolute change
