"""Per-run integrity checks: re-derivation, collapse, shuffled-label control, stale checkpoint,
selection on test."""

from __future__ import annotations

import math

import numpy as np

from rgt.verify.controls import metrics_by_view, shuffle_control_findings
from rgt.verify.findings import ClaimIndex, Finding
from rgt.verify.metric_kinds import PROBABILISTIC, TOP1
from rgt.verify.predictions import NO_RECORDS, Predictions
from rgt.verify.runs import Run

ACCURACY_TOLERANCE = 1e-9
# float32 softmax scores only approximate the float32 logits' cross-entropy, hence the slack:
# relative for ordinary losses, absolute for near-zero ones (a score of 1-1e-8 rounds to 1.0).
LOSS_REL_TOLERANCE = 1e-4
LOSS_ABS_TOLERANCE = 1e-6
COLLAPSE_ENTROPY_FRACTION = 0.10
VALIDATION_SPLITS = ("val", "validation")
# Error findings of these checks make the comparisons of the claims they name suspect-bug.
BUG_CHECKS = ("rederive-mismatch", "collapse", "stale-checkpoint", "shuffle-control",
              "non-finite-metric")
# One-sided z for "accuracy not above the majority-class rate" (a 1% level).
MAJORITY_Z = 2.326


def run_label(run: Run) -> str:
    """``exp/variant seed=N`` for finding details."""
    return f"{run.exp_id}/{run.variant} seed={run.seed}"


def rederive_findings(run: Run, predictions: Predictions, claims: ClaimIndex) -> list[Finding]:
    """Recompute each metric (and its n) per split from the per-sample records, where the
    records hold what the metric needs."""
    findings = []
    for entry in run.metrics():
        name, split = entry.get("name"), entry.get("split")
        recompute = REDERIVERS.get(name)
        affected = claims.claims_for(run.exp_id, run.variant, name, split)
        if _non_finite(entry.get("value")):
            continue  # a non-finite-metric finding names it
        rows = predictions.select(split)
        value = recompute(rows) if recompute else None
        if value is None:
            findings.append(Finding("not-rederivable", "info", run.run_id,
                                    f"{run_label(run)}: {name}/{split} "
                                    f"{_why_not_rederivable(name, predictions)}", affected))
            continue
        if not (_value_matches(name, entry.get("value"), value) and _n_matches(entry, rows)):
            detail = (f"{run_label(run)}: {name}/{split} stored {entry.get('value')!r} "
                      f"(n={entry.get('n')!r}), recomputed {value!r} (n={len(rows)}) from "
                      f"the per-sample records")
            findings.append(Finding("rederive-mismatch", "error", run.run_id, detail, affected))
    return findings


def _why_not_rederivable(name: str, predictions: Predictions) -> str:
    if name not in REDERIVERS:
        return "has no re-derivation rule (accuracy, loss and perplexity have one)"
    if predictions is NO_RECORDS:
        return "cannot be re-derived: the run wrote no predictions.parquet"
    return "cannot be re-derived: the per-sample records lack the columns it needs"


def _n_matches(entry: dict, rows: Predictions) -> bool:
    """n counts the rows, or the predictions they stand for (tokens); unset n is not checked."""
    n = entry.get("n")
    return n is None or n in (len(rows), int(rows.weights().sum()))


def recompute_accuracy(rows: Predictions) -> float | None:
    """mean(prediction == label) (or of ``correct``); NaN for an empty split."""
    flags = rows.correct_flags()
    if flags is None:
        return None
    return float(np.mean(flags)) if len(flags) else math.nan


def recompute_loss(rows: Predictions) -> float | None:
    """Mean NLL of the true labels per prediction: sum of -log p(label) over their count."""
    nll = rows.true_label_nll()
    if nll is None:
        return None
    return float(nll.sum() / rows.weights().sum()) if len(nll) else math.nan


def recompute_perplexity(rows: Predictions) -> float | None:
    """exp(mean NLL of the true labels): the perplexity of the records."""
    loss = recompute_loss(rows)
    return None if loss is None else math.exp(loss)


REDERIVERS = {"accuracy": recompute_accuracy, "loss": recompute_loss,
              "perplexity": recompute_perplexity}


def _non_finite(value: object) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def _value_matches(name: str, stored: object, recomputed: float) -> bool:
    if not isinstance(stored, (int, float)) or not math.isfinite(recomputed):
        return False
    if name in ("loss", "perplexity"):
        return math.isclose(stored, recomputed, rel_tol=LOSS_REL_TOLERANCE,
                            abs_tol=LOSS_ABS_TOLERANCE)
    return abs(stored - recomputed) <= ACCURACY_TOLERANCE


def collapse_findings(run: Run, collapsed: dict[str, str],
                      claims: ClaimIndex) -> list[Finding]:
    """A ``collapse`` error per collapsed view, naming the claims of that view's metrics."""
    views = metrics_by_view(run)
    return [Finding("collapse", "error", run.run_id, f"{run_label(run)}: {detail}",
                    tuple(c for metric in views[view]
                          for c in claims.claims_for(run.exp_id, run.variant, metric)))
            for view, detail in sorted(collapsed.items())]


def collapsed_views(run: Run, predictions: Predictions) -> dict[str, str]:
    """View -> why, for each view of the run's metrics whose test predictions do no better than
    a constant: top-1 predictions near-constant at the majority rate, or probabilities that give
    the true labels no more than the label frequencies would."""
    test = predictions.select(run.predictions_split)
    if len(test) < 2 or test.label is None or predictions.n_classes < 2:
        return {}
    found = {view: COLLAPSE_RULES[view](test, predictions.n_classes)
             for view in metrics_by_view(run)}
    return {view: detail for view, detail in found.items() if detail is not None}


def top1_collapse(test: Predictions, n_classes: int) -> str | None:
    """Near-constant argmax predictions (entropy < 10% of the labels') at the majority rate."""
    if test.prediction is None:
        return None
    labels = np.bincount(test.label[test.label >= 0], minlength=n_classes)
    label_entropy = _entropy(labels)
    if np.count_nonzero(labels) < 2:
        return None
    counts = np.bincount(test.prediction[test.prediction >= 0], minlength=n_classes)
    entropy, accuracy = _entropy(counts), float(np.mean(test.prediction == test.label))
    majority = labels.max() / labels.sum()
    slack = MAJORITY_Z * math.sqrt(majority * (1 - majority) / len(test.label))
    if entropy >= COLLAPSE_ENTROPY_FRACTION * label_entropy or accuracy > majority + slack:
        return None
    return (f"test predictions use {int(np.count_nonzero(counts))} of {n_classes} classes "
            f"(prediction entropy {entropy:.4g} nats < 10% of the labels' "
            f"{label_entropy:.4g}) and accuracy {accuracy:.4g} is not above the majority-class "
            f"rate {majority:.4g}")


def probabilistic_collapse(test: Predictions, n_classes: int) -> str | None:
    """Mean NLL of the true labels no lower than the entropy of the test labels themselves
    (the loss of always predicting the test set's own label frequencies)."""
    nll = test.true_label_nll()
    if nll is None or test.tokens is not None:  # per-sequence rows have no single label
        return None
    label_entropy = _entropy(np.bincount(test.label[test.label >= 0], minlength=n_classes))
    if float(np.mean(nll)) < label_entropy:
        return None
    return (f"test NLL {float(np.mean(nll)):.4g} nats is no lower than {label_entropy:.4g}, "
            f"the loss of predicting the label frequencies: the probabilities ignore the input")


COLLAPSE_RULES = {TOP1: top1_collapse, PROBABILISTIC: probabilistic_collapse}


def _entropy(counts: np.ndarray) -> float:
    p = counts[counts > 0] / counts.sum() if counts.sum() else np.zeros(0)
    return float(-(p * np.log(p)).sum()) + 0.0  # + 0.0 turns -0.0 into 0.0


def non_finite_findings(run: Run, claims: ClaimIndex) -> list[Finding]:
    """An error per stored metric value that is NaN or infinite (a diverged or broken run)."""
    findings = []
    for entry in run.metrics():
        value = entry.get("value")
        if isinstance(value, float) and not math.isfinite(value):
            name, split = entry.get("name"), entry.get("split")
            findings.append(Finding(
                "non-finite-metric", "error", run.run_id,
                f"{run_label(run)}: {name}/{split} is {value!r}; the run is left out of the "
                f"comparison, which is suspect until it is explained (diverged training?)",
                claims.claims_for(run.exp_id, run.variant, name)))
    return findings


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
    """Every per-run check on one run; a view's shuffled-label control only when that view did
    not collapse (a collapsed model is at chance by construction: one finding names the cause)."""
    findings = rederive_findings(run, predictions, claims) + non_finite_findings(run, claims)
    collapsed = collapsed_views(run, predictions)
    findings += collapse_findings(run, collapsed, claims)
    findings += shuffle_control_findings(run, predictions, claims, skip_views=set(collapsed))
    optional = (stale_checkpoint_finding(run, claims), selection_on_test_finding(run, claims),
                unavailable_checks_finding(run, predictions))
    return findings + [finding for finding in optional if finding is not None]


def unavailable_checks_finding(run: Run, predictions: Predictions) -> Finding | None:
    """One ``checks-unavailable`` note naming the per-sample checks the records cannot serve."""
    views = metrics_by_view(run)
    if predictions is NO_RECORDS:
        missing = ["re-derivation, collapse and the label-shuffled control (the run wrote no "
                   "predictions.parquet)"]
    else:
        missing = [f"{check} of {', '.join(views[view])} (no {columns} columns)"
                   for view, check, columns, usable in _NEEDS
                   if view in views and not usable(predictions)]
    if not missing:
        return None
    return Finding("checks-unavailable", "info", run.run_id,
                   f"{run_label(run)}: not run: {'; '.join(missing)}")


_NEEDS = (
    (TOP1, "collapse and the label-shuffled control", "`prediction` + `label`",
     lambda p: p.has_top1),
    (PROBABILISTIC, "collapse", "`label` + `nll` or `scores` (one label a row)",
     lambda p: p.label is not None and p.tokens is None and p.true_label_nll() is not None),
    (PROBABILISTIC, "the label-shuffled control", "`label` + `scores`",
     lambda p: p.label is not None and p.scores is not None),
)
