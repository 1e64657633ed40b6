"""Per-run checks: re-derivation, collapse, stale checkpoint, selection on test."""

from __future__ import annotations

import numpy as np
import pytest
from test_verify_support import write_run

from rgt.base.errors import RunStateError
from rgt.verify.checks import (
    collapse_findings,
    collapsed_views,
    non_finite_findings,
    recompute_loss,
    rederive_findings,
    selection_on_test_finding,
    stale_checkpoint_finding,
)
from rgt.verify.findings import ClaimIndex
from rgt.verify.metric_kinds import PROBABILISTIC, TOP1
from rgt.verify.predictions import Predictions, load_predictions
from rgt.verify.runs import load_runs


def load_one(tmp_path, **kwargs):
    write_run(tmp_path, "r", **({"test_accuracy": 0.8} | kwargs))
    [run] = load_runs(tmp_path).runs
    return run, load_predictions(run.predictions_path)


def rederived(tmp_path, **kwargs):
    run, predictions = load_one(tmp_path, **kwargs)
    return rederive_findings(run, predictions, ClaimIndex())


def test_consistent_run_rederives_cleanly(tmp_path):
    assert rederived(tmp_path) == []


def test_accuracy_off_by_more_than_1e9_is_a_mismatch(tmp_path):
    [finding] = rederived(tmp_path, tamper={("accuracy", "test"): 0.8 + 1e-8})
    assert finding.check == "rederive-mismatch" and "accuracy/test" in finding.detail


def entry(run, name, split):
    [found] = [e for e in run.results["metrics"] if (e["name"], e["split"]) == (name, split)]
    return found


def test_loss_within_relative_1e4_matches_and_beyond_does_not(tmp_path):
    run, predictions = load_one(tmp_path)
    loss = entry(run, "loss", "val")
    stored = loss["value"]
    loss["value"] = stored * (1 + 5e-5)
    assert rederive_findings(run, predictions, ClaimIndex()) == []
    loss["value"] = stored * (1 + 5e-4)
    [finding] = rederive_findings(run, predictions, ClaimIndex())
    assert "loss/val" in finding.detail


def test_wrong_n_is_a_mismatch(tmp_path):
    run, predictions = load_one(tmp_path)
    entry(run, "accuracy", "test")["n"] = 999
    [finding] = rederive_findings(run, predictions, ClaimIndex())
    assert "n=999" in finding.detail


def test_unknown_metric_is_disclosed_as_not_rederivable(tmp_path):
    run, predictions = load_one(tmp_path)
    run.results["metrics"].append({"name": "f1", "split": "test", "value": 0.5, "n": 1000})
    [finding] = rederive_findings(run, predictions, ClaimIndex())
    assert (finding.check, finding.severity) == ("not-rederivable", "info")


def test_loss_of_an_underflowed_score_stays_finite():
    rows = Predictions(np.array(["test"], dtype=object), np.array([1]), np.array([0]),
                       np.array([[1.0, 0.0]]))
    assert np.isfinite(recompute_loss(rows))


def test_single_class_predictions_are_collapse(tmp_path):
    run, predictions = load_one(tmp_path, collapse=True)
    views = collapsed_views(run, predictions)
    assert "1 of 4 classes" in views[TOP1] and "majority-class rate" in views[TOP1]
    [top1, probabilistic] = collapse_findings(run, views, ClaimIndex())
    assert top1.check == probabilistic.check == "collapse"


def test_low_entropy_predictions_are_collapse(tmp_path):
    run, predictions = load_one(tmp_path)
    test = predictions.split == "test"
    # 990 of 1000 on class 0: entropy ~0.06 nats, under 10% of the labels' log 4 (~0.139),
    # and accuracy ~0.25, the majority-class rate.
    predictions.prediction[np.flatnonzero(test)[10:]] = 0
    assert TOP1 in collapsed_views(run, predictions)


def test_varied_predictions_are_not_collapse(tmp_path):
    run, predictions = load_one(tmp_path)
    assert collapsed_views(run, predictions) == {}


def test_few_classes_used_but_accurate_on_skewed_labels_is_not_collapse(tmp_path):
    run, predictions = load_one(tmp_path)
    test = np.flatnonzero(predictions.split == "test")
    # 97% of the labels are class 0 and the model is right on every row: the predictions are as
    # concentrated as the labels, which is no collapse.
    predictions.label[test] = np.where(np.arange(len(test)) < 970, 0, 1)
    predictions.prediction[test] = predictions.label[test]
    assert TOP1 not in collapsed_views(run, predictions)


def test_probabilities_no_better_than_label_frequencies_are_collapse(tmp_path):
    run, predictions = load_one(tmp_path)
    test = np.flatnonzero(predictions.split == "test")
    predictions.scores[test] = 0.25  # uniform over 4 balanced classes: NLL = log 4 = H(labels)
    assert "label frequencies" in collapsed_views(run, predictions)[PROBABILISTIC]


def test_non_finite_metric_is_an_error_naming_the_value(tmp_path):
    run, _ = load_one(tmp_path)
    entry(run, "accuracy", "test")["value"] = float("nan")
    [finding] = non_finite_findings(run, ClaimIndex())
    assert finding.severity == "error" and "nan" in finding.detail


def test_stale_checkpoint_and_selection_split(tmp_path):
    run, _ = load_one(tmp_path, evaluated_step=3, selection_split="test")
    assert stale_checkpoint_finding(run, ClaimIndex()).check == "stale-checkpoint"
    assert selection_on_test_finding(run, ClaimIndex()).check == "selection-on-test"
    run.results["selection"] = {"split": "val", "step": 10}
    assert stale_checkpoint_finding(run, ClaimIndex()) is None
    assert selection_on_test_finding(run, ClaimIndex()) is None


def test_predictions_missing_a_column_is_unusable(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "predictions.parquet"
    pq.write_table(pa.table({"split": ["test"], "label": [1]}), path)
    with pytest.raises(RunStateError, match="lacks columns"):
        load_predictions(path)


def test_per_sequence_records_weigh_the_nll_by_their_tokens():
    from rgt.verify.checks import recompute_perplexity

    rows = Predictions(np.array(["test", "test"], dtype=object), nll=np.array([6.0, 2.0]),
                       tokens=np.array([3, 1]))
    assert recompute_perplexity(rows) == pytest.approx(np.exp(8.0 / 4))
    assert recompute_loss(Predictions(np.array(["test"], dtype=object))) is None
