"""The label-shuffled control: are a run's test predictions better than shuffled labels?

The control pairs the model's test outputs with a random permutation of the test labels
(``SHUFFLES`` permutations, seeded from the run id), in the view of each metric the run reports
(``metric_kinds``): top-1 accuracy for top-1 metrics, the mean NLL of the true label for
probabilistic ones (loss, perplexity) — a language model whose argmax is always the most frequent
token still passes on perplexity when its probabilities follow the input. Two rules:

- the real score must beat the control: a one-sided p-value above ``SHUFFLE_ALPHA`` means the
  outputs carry no information about the labels (a model at chance, or predictions misaligned
  with their labels) — an ``error`` that makes that view's comparisons ``suspect-bug``;
- (top-1) the control must land at chance, 1/C: its exact expectation, sum over classes of
  (share of predictions) x (share of labels), above 1/C + ``CHANCE_SLACK`` means imbalanced labels
  and predictions, so accuracy must be read against that level, not 1/C (a ``warning``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection

import numpy as np

from rgt.verify.findings import ClaimIndex, Finding
from rgt.verify.metric_kinds import PROBABILISTIC, TOP1, group_by_view
from rgt.verify.predictions import Predictions
from rgt.verify.runs import Run

SHUFFLES = 200
SHUFFLE_ALPHA = 0.01
CHANCE_SLACK = 0.05


def comparison_seed(key: str) -> int:
    """A permutation seed derived from an id: stable whatever the report order."""
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:16], 16)


def _accuracy(prediction: np.ndarray, label: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(prediction == label, axis=axis)


def control_level(prediction: np.ndarray, label: np.ndarray, n_classes: int) -> float:
    """The exact mean accuracy of the label-shuffled control."""
    shares = [np.bincount(values[values >= 0], minlength=n_classes)[:n_classes] / len(values)
              for values in (prediction, label)]
    return float(np.dot(*shares))


def _shuffled_labels(label: np.ndarray, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.permuted(np.broadcast_to(label, (SHUFFLES, len(label))), axis=1)


def shuffle_p_value(prediction: np.ndarray, label: np.ndarray, seed: int) -> float:
    """One-sided permutation p-value of the real accuracy against shuffled labels.

    ``(1 + #{control >= real}) / (1 + SHUFFLES)``, the same estimate as scipy's
    ``permutation_test`` (pairings), computed in one vectorised pass: scipy's generic version
    costs ~15 ms a run, which dominates an audit of a thousand runs.
    """
    control = _accuracy(prediction, _shuffled_labels(label, seed))
    real = _accuracy(prediction, label)
    return float((1 + np.count_nonzero(control >= real)) / (1 + SHUFFLES))


def shuffle_nll_p_value(rows: Predictions, seed: int) -> tuple[float, float, float] | None:
    """(p, real mean NLL, control mean NLL): the real NLL against shuffled labels' NLL, one-sided;
    None without scores for every label."""
    real = rows.true_label_nll() if rows.scores is not None else None
    if real is None:
        return None
    shuffled = _shuffled_labels(rows.label, seed)
    picked = np.take_along_axis(rows.scores, shuffled.T, axis=1).T
    control = -np.log(np.clip(picked, np.finfo(np.float32).tiny, None)).mean(axis=1)
    p_value = (1 + np.count_nonzero(control <= real.mean())) / (1 + SHUFFLES)
    return float(p_value), float(real.mean()), float(control.mean())


def shuffle_control_findings(run: Run, predictions: Predictions, claims: ClaimIndex,
                             skip_views: Collection[str] = ()) -> list[Finding]:
    """The rules of the module docstring on the run's test outputs, per view of its metrics."""
    test = predictions.select(run.predictions_split)
    n_classes = predictions.n_classes
    if len(test) < 2 or test.label is None or n_classes < 2:
        return []
    views = metrics_by_view(run)
    findings = []
    if TOP1 in views and TOP1 not in skip_views and test.has_top1:
        findings += _top1_control(run, test, n_classes, _affected(run, claims, views[TOP1]))
    if PROBABILISTIC in views and PROBABILISTIC not in skip_views and test.scores is not None:
        findings += _nll_control(run, test, _affected(run, claims, views[PROBABILISTIC]))
    return findings


def metrics_by_view(run: Run) -> dict[str, list[str]]:
    """The run's metric names grouped by the view that judges them (see ``metric_kinds``)."""
    return group_by_view(str(entry.get("name")) for entry in run.metrics())


def _affected(run: Run, claims: ClaimIndex, metrics: list[str]) -> tuple[str, ...]:
    return tuple(c for m in metrics for c in claims.claims_for(run.exp_id, run.variant, m))


def _label(run: Run) -> str:
    return f"{run.exp_id}/{run.variant} seed={run.seed}"


def _top1_control(run: Run, test: Predictions, n_classes: int,
                  affected: tuple[str, ...]) -> list[Finding]:
    real = float(_accuracy(test.prediction, test.label))
    control = control_level(test.prediction, test.label, n_classes)
    findings = []
    p_value = shuffle_p_value(test.prediction, test.label, comparison_seed(run.run_id))
    if p_value > SHUFFLE_ALPHA:
        findings.append(Finding(
            "shuffle-control", "error", run.run_id,
            f"{_label(run)}: test accuracy {real:.4g} is not above its label-shuffled control "
            f"(control mean {control:.4g}, p = {p_value:.3g} over {SHUFFLES} shuffles); the "
            f"predictions carry no information about the labels", affected))
    if control > 1 / n_classes + CHANCE_SLACK:
        findings.append(Finding(
            "shuffle-control", "warning", run.run_id,
            f"{_label(run)}: the label-shuffled control scores {control:.4g}, not chance 1/C = "
            f"{1 / n_classes:.4g} (imbalanced labels and predictions); read test accuracy "
            f"{real:.4g} against {control:.4g}", affected))
    return findings


def _nll_control(run: Run, test: Predictions, affected: tuple[str, ...]) -> list[Finding]:
    result = shuffle_nll_p_value(test, comparison_seed(run.run_id))
    if result is None or result[0] <= SHUFFLE_ALPHA:
        return []
    p_value, real, control = result
    return [Finding(
        "shuffle-control", "error", run.run_id,
        f"{_label(run)}: test NLL {real:.4g} nats is not below its label-shuffled control "
        f"(control mean {control:.4g}, p = {p_value:.3g} over {SHUFFLES} shuffles); the "
        f"probabilities carry no information about the labels", affected)]
