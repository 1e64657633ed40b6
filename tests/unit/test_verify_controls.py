"""The label-shuffled control: a model at chance, misaligned predictions, imbalanced chance."""

from __future__ import annotations

import numpy as np
from test_verify_support import write_run, write_variant

from rgt.verify.audit import audit_runs
from rgt.verify.controls import control_level, shuffle_control_findings
from rgt.verify.findings import ClaimIndex
from rgt.verify.predictions import Predictions
from rgt.verify.runs import load_runs

DROPOUT = {"model": {"dropout": 0.3}}


def test_model_at_chance_fails_the_control_and_makes_a_suspect_bug(tmp_path):
    write_variant(tmp_path, "baseline", [0.80, 0.81, 0.79])
    # 4 balanced classes: 25% accuracy with balanced predictions is exactly the control's level.
    write_variant(tmp_path, "dropout", [0.25, 0.26, 0.24], overrides=DROPOUT)
    audit = audit_runs(tmp_path)
    found = [f for f in audit.findings if f.check == "shuffle-control"]
    assert {f.subject for f in found} == {"exp-dropout-0", "exp-dropout-1", "exp-dropout-2"}
    assert all(f.severity == "error" and "not above its label-shuffled control" in f.detail
               for f in found)
    assert {c.verdict for c in audit.comparisons} == {"suspect-bug"}


def test_learned_model_passes_the_control(tmp_path):
    write_variant(tmp_path, "baseline", [0.80, 0.81, 0.79])
    assert not [f for f in audit_runs(tmp_path).findings if f.check == "shuffle-control"]


def test_predictions_misaligned_with_labels_fail_the_control(tmp_path):
    write_run(tmp_path, "r", test_accuracy=0.95)
    [run] = load_runs(tmp_path).runs
    rng = np.random.default_rng(0)
    labels = np.arange(400) % 4
    predictions = rng.permutation(labels)  # a correct model's outputs, rows shuffled
    test = Predictions(np.array(["test"] * 400, dtype=object), labels, predictions,
                       np.eye(4)[predictions])
    findings = shuffle_control_findings(run, test, ClaimIndex())
    # Both views fail: the argmax and the probabilities belong to other rows.
    assert [f.severity for f in findings] == ["error", "error"]
    assert "test accuracy" in findings[0].detail and "test NLL" in findings[1].detail


def test_imbalanced_control_above_one_over_c_is_disclosed():
    labels = np.array([0] * 90 + [1] * 10)
    predictions = labels.copy()
    assert control_level(predictions, labels, 2) == 0.9 * 0.9 + 0.1 * 0.1


def test_imbalanced_test_set_gets_a_chance_level_warning(tmp_path):
    write_run(tmp_path, "r", test_accuracy=0.95)
    [run] = load_runs(tmp_path).runs
    labels = np.array([0] * 180 + [1] * 20)
    predictions = labels.copy()
    predictions[:5] = 1
    rows = Predictions(np.array(["test"] * 200, dtype=object), labels, predictions,
                       np.eye(2)[predictions])
    [finding] = shuffle_control_findings(run, rows, ClaimIndex())
    assert finding.severity == "warning" and "not chance 1/C = 0.5" in finding.detail


def test_the_nll_control_passes_informative_probabilities():
    from test_verify_support import lm_predictions

    from rgt.verify.controls import shuffle_nll_p_value

    rows = lm_predictions(400, seed=0)
    test = Predictions(np.array(["test"] * 400, dtype=object), rows["label"],
                       rows["prediction"], rows["scores"].astype(np.float64))
    p_value, real, control = shuffle_nll_p_value(test, seed=1)
    assert p_value < 0.01 and real < control
