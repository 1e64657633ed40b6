"""Per-run integrity checks: re-derivation, collapse, shuffled-label control, stale checkpoint,
selection on test."""

from __future__ import annotations

import math

import numpy as np

from rgt.verify.controls import shuffle_control_findings
from rgt.verify.findings import ClaimIndex, Finding
from rgt.verify.predictions import Predictions
from rgt.verify.runs import Run

ACCURACY_TOLERANCE = 1e-9
# float32 softmax scores only approximate the float32 logits' cross-entropy, hence the slack:
# relative for ordinary losses, absolute for near-zero ones (a score of 1-1e-8 rounds to 1.0).
LOSS_REL_TOLERANCE = 1e-4
LOSS_ABS_TOLERANCE = 1e-6
COLLAPSE_ENTROPY_FRACTION = 0.10
VALIDATION_SPLITS = ("val", "validation")
# Error findings of these checks make every comparison the run is in a suspect-bug.
BUG_CHECKS = ("rederive-mismatch", "collapse", "stale-checkpoint", "shuffle-control")


def run_label(run: Run) -> str:
    """``exp/variant seed=N`` for finding details."""
    return f"{run.exp_id}/{run.variant} seed={run.seed}"


def rederive_findings(run: Run, predictions: Predictions, claims: ClaimIndex) -> list[Finding]:
    """Recompute accuracy and loss (and n) per split from the per-sample predictions."""
    findings = []
    for entry in run.metrics():
        name, split = entry.get("name"), entry.get("split")
        recompute = REDERIVERS.get(name)
        affected = claims.claims_for(run.exp_id, run.variant, name, split)
        if recompute is None:
            findings.append(Finding("not-rederivable", "info", run.run_id,
                                    f"{run_label(run)}: no re-derivation for metric {name!r}",
                                    affected))
            continue
        rows = predictions.select(split)
        value, n = recompute(rows), len(rows.label)
        if not (_value_matches(name, entry.get("value"), value) and entry.get("n") == n):
            detail = (f"{run_label(run)}: {name}/{split} stored {entry.get('value')!r} "
                      f"(n={entry.get('n')!r}), recomputed {value!r} (n={n}) from predictions")
            findings.append(Finding("rederive-mismatch", "error", run.run_id, detail, affected))
    return findings


def recompute_accuracy(rows: Predictions) -> float:
    """mean(prediction == label); NaN for an empty split."""
    return float(np.mean(rows.prediction == rows.label)) if len(rows.label) else math.nan


def recompute_loss(rows: Predictions) -> float:
    """Mean cross-entropy from the softmax scores: mean of -log(score[label])."""
    if not len(rows.label) or rows.scores.shape[1] <= int(rows.label.max()):
        return math.nan
    picked = rows.scores[np.arange(len(rows.label)), rows.label]
    # An underflowed float32 probability would give -log(0) = inf for a finite stored loss.
    picked = np.clip(picked, np.finfo(np.float32).tiny, None)
    return float(np.mean(-np.log(picked)))


REDERIVERS = {"accuracy": recompute_accuracy, "loss": recompute_loss}


def _value_matches(name: str, stored: object, recomputed: float) -> bool:
    if not isinstance(stored, (int, float)) or not math.isfinite(recomputed):
        return False
    if name == "loss":
        return math.isclose(stored, recomputed, rel_tol=LOSS_REL_TOLERANCE,
                            abs_tol=LOSS_ABS_TOLERANCE)
    return abs(stored - recomputed) <= ACCURACY_TOLERANCE


def collapse_finding(run: Run, predictions: Predictions, claims: ClaimIndex) -> Finding | None:
    """Flag test predictions that are one class, or whose class entropy < 10% of log(C)."""
    test = predictions.select("test")
    n_classes = predictions.n_classes
    if not len(test.prediction) or n_classes < 2:
        return None
    counts = np.bincount(test.prediction[test.prediction >= 0], minlength=n_classes)
    entropy = _entropy(counts)
    ceiling = COLLAPSE_ENTROPY_FRACTION * math.log(n_classes)
    used = int(np.count_nonzero(counts))
    if used > 1 and entropy >= ceiling:
        return None
    detail = (f"{run_label(run)}: test predictions use {used} of {n_classes} classes; "
              f"prediction entropy {entropy:.4g} nats < {ceiling:.4g} (10% of log C); "
              f"label entropy {_entropy(np.bincount(test.label[test.label >= 0])):.4g}")
    affected = claims.claims_for(run.exp_id, run.variant)
    return Finding("collapse", "error", run.run_id, detail, affected)


def _entropy(counts: np.ndarray) -> float:
    p = counts[counts > 0] / counts.sum() if counts.sum() else np.zeros(0)
    return float(-(p * np.log(p)).sum()) + 0.0  # + 0.0 turns -0.0 into 0.0


def stale_checkpoint_finding(run: Run, claims: ClaimIndex) -> Finding | None:
    """Flag a run evaluated at another step than the one training selected."""
    selected = run.meta.get("selected_step")
    evaluated = (run.results.get("selection") or {}).get("step")
    if selected is None or evaluated is None or selected == evaluated:
        return None
    detail = (f"{run_label(run)}: run.json selected_step={selected} but results.json "
              f"selection.step={evaluated}; the evaluated weights are not the selected ones")
    affected = claims.claims_for(run.exp_id, run.variant)
    return Finding("stale-checkpoint", "error", run.run_id, detail, affected)


def selection_on_test_finding(run: Run, claims: ClaimIndex) -> Finding | None:
    """Flag checkpoint selection that read a split other than validation."""
    split = (run.results.get("selection") or {}).get("split")
    if split is None or split in VALIDATION_SPLITS:
        return None
    detail = (f"{run_label(run)}: checkpoint selected on split {split!r}, not the validation "
              f"split; test numbers are optimistically biased")
    affected = claims.claims_for(run.exp_id, run.variant)
    return Finding("selection-on-test", "error", run.run_id, detail, affected)


def run_findings(run: Run, predictions: Predictions, claims: ClaimIndex) -> list[Finding]:
    """Every per-run check on one run; the shuffled-label control only when not collapsed
    (a collapsed model is at chance by construction: one finding names the cause)."""
    findings = rederive_findings(run, predictions, claims)
    collapse = collapse_finding(run, predictions, claims)
    if collapse is None:
        findings += shuffle_control_findings(run, predictions, claims)
    optional = (collapse, stale_checkpoint_finding(run, claims),
                selection_on_test_finding(run, claims))
    return findings + [finding for finding in optional if finding is not None]
