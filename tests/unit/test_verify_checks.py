"""Per-run checks: re-derivation, collapse, stale checkpoint, selection on test."""

from __future__ import annotations

import numpy as np
import pytest
from test_verify_support import write_run

from rgt.base.errors import RunStateError
from rgt.verify.checks import (
    collapse_finding,
    recompute_loss,
    rederive_findings,
    selection_on_test_finding,
    stale_checkpoint_finding,
)
from rgt.verify.findings import ClaimIndex
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
    finding = collapse_finding(run, predictions, ClaimIndex())
    assert finding.check == "collapse" and "1 of 4 classes" in finding.detail


def test_low_entropy_predictions_are_collapse(tmp_path):
    run, predictions = load_one(tmp_path)
    test = predictions.split == "test"
    # 990 of 1000 on class 0: entropy ~0.06 nats, under 10% of log 4 (~0.139).
    predictions.prediction[np.flatnonzero(test)[10:]] = 0
    assert collapse_finding(run, predictions, ClaimIndex()) is not None


def test_varied_predictions_are_not_collapse(tmp_path):
    run, predictions = load_one(tmp_path)
    assert collapse_finding(run, predictions, ClaimIndex()) is None


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
