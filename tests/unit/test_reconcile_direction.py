"""A quoted difference says which way it goes, and ``rgt reconcile`` checks it: a signed
difference is candidate − baseline in the metric's own direction (as ``rgt verify`` writes it),
a word (*raises*, *lowers*, *improves*, *worsens*…) must say the way the metric moved; a wrong
sign or a wrong word is drift, and the fix corrects the sign or the word. The example: a small
GPT whose test loss dropout raised from 2.742 to 2.823 (3 seeds each)."""

from __future__ import annotations

import json

import pytest

from rgt.cli import main
from rgt.evidence.reconcile import reconcile

LOSS = "gpt/dropout-vs-no_dropout/loss/test"
ACCURACY = "gpt/dropout-vs-no_dropout/accuracy/test"
CLAIMS = [
    {"id": LOSS, "metric": "loss", "exp_id": "gpt", "variant": "dropout-vs-no_dropout",
     "baseline": "no_dropout", "candidate": "dropout", "split": "test", "direction": "lower",
     "value": -0.08076, "n": 3, "variance": {"type": "ci95", "value": [-0.1002, -0.06137]},
     "aliases": ["test loss difference", "effect of dropout on the loss"]},
    {"id": ACCURACY, "metric": "accuracy", "exp_id": "gpt", "variant": "dropout-vs-no_dropout",
     "baseline": "no_dropout", "candidate": "dropout", "split": "test", "direction": "higher",
     "value": 0.0121, "n": 3, "variance": {"type": "ci95", "value": [0.0041, 0.0201]},
     "aliases": ["test accuracy difference"]},
]


def outcomes(tmp_path, text: str) -> dict:
    path = tmp_path / "README.md"
    path.write_text(text + "\n", encoding="utf-8")
    report = reconcile(CLAIMS, [path])
    assert report["unmapped"] == []
    return report


def verdicts(report: dict) -> set[tuple[str, str]]:
    return {(status, item["found"]) for status in ("matched", "drift")
            for item in report[status]}


@pytest.mark.parametrize(("text", "right", "wrong"), [
    ("The test loss difference of dropout is {}.", "+0.081", "−0.081"),
    ("With dropout the test loss changes by {} (95% CI [+0.061, +0.100]).", "+0.081",
     "-0.081"),
    ("The test accuracy difference is {} for dropout.", "+1.21 pp", "-1.21 pp"),
])
def test_a_wrong_sign_is_drift_and_the_fix_flips_it(tmp_path, text, right, wrong):
    assert verdicts(outcomes(tmp_path, text.format(right))) >= {("matched", right)}
    report = outcomes(tmp_path, text.format(wrong))
    (item,) = [item for item in report["drift"] if item["part"] == "value"]
    assert item["found"] == wrong and item["fix"] == right


def test_the_sign_of_the_issue_example_no_longer_passes_both_ways(tmp_path):
    """Before, "+0.081" and "−0.081" both matched the claim (exit 0 for both)."""
    plus = outcomes(tmp_path, "The effect of dropout on the loss is +0.081.")
    minus = outcomes(tmp_path, "The effect of dropout on the loss is −0.081.")
    assert plus["ok"] and not minus["ok"]
    assert minus["drift"][0]["fix"] == "+0.081"


@pytest.mark.parametrize(("right", "wrong", "fix"), [
    ("Dropout raises the test loss by 0.081.", "Dropout lowers the test loss by 0.081.",
     '"raises" for "lowers"'),
    ("Dropout increases the test loss by 0.081.", "Dropout reduces the test loss by 0.081.",
     '"increases" for "reduces"'),
    ("Dropout worsens the test loss by 0.081.", "Dropout improves the test loss by 0.081.",
     '"worsens" for "improves"'),
    ("With dropout the test loss is 0.081 higher.", "With dropout the test loss is 0.081 lower.",
     '"higher" for "lower"'),
    ("Dropout gains 1.21 pp of test accuracy.", "Dropout drops 1.21 pp of test accuracy.",
     '"rises" for "drops"'),
])
def test_a_wrong_direction_word_is_drift_and_the_fix_is_the_opposite_word(
        tmp_path, right, wrong, fix):
    assert outcomes(tmp_path, right)["ok"] and outcomes(tmp_path, right)["matched"]
    (item,) = outcomes(tmp_path, wrong)["drift"]
    assert item["part"] == "direction" and item["fix"] == fix
    assert item["found"].endswith(("0.081", "1.21 pp"))


def test_a_wrong_number_with_the_right_word_is_a_value_drift(tmp_path):
    (item,) = outcomes(tmp_path, "Dropout raises the test loss by 0.091.")["drift"]
    assert (item["part"], item["fix"]) == ("value", "0.081")


def test_a_document_that_declares_positive_is_better_is_read_that_way(tmp_path):
    report = outcomes(tmp_path, "Differences are positive = better. With dropout the test loss "
                                "difference is -0.081 (95% CI [-0.100, -0.061]).")
    assert report["ok"] and verdicts(report) >= {("matched", "-0.081"), ("matched", "-0.100")}
    report = outcomes(tmp_path, "With dropout the test loss difference is -0.081, where a "
                                "positive difference means better.")
    assert report["ok"]
    report = outcomes(tmp_path, "Differences are positive = better. With dropout the test loss "
                                "difference is +0.081.")
    assert [item["fix"] for item in report["drift"]] == ["-0.081"]


def test_interval_bounds_follow_the_value_s_sign(tmp_path):
    report = outcomes(tmp_path, "With dropout the test loss changes by +0.081 "
                                "(95% CI [-0.100, -0.061]).")
    assert {item["part"] for item in report["drift"]} == {"low", "high"}


def test_the_printed_drift_names_the_word_to_write(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evidence").mkdir()
    (tmp_path / "evidence" / "EVIDENCE.json").write_text(
        json.dumps({"schema": "rgt/evidence/v1", "claims": CLAIMS}))
    (tmp_path / "README.md").write_text("Dropout lowers the test loss by 0.081.\n")
    assert main(["reconcile", "--docs", "README.md"]) == 1
    out = capsys.readouterr().out
    assert f"README.md:1: DRIFT {LOSS} (direction): found lowers \u2026 0.081" in out
    assert 'write "raises" for "lowers"' in out
