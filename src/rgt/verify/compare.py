"""Compare each candidate variant with its baseline and classify the difference."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rgt.verify import stats
from rgt.verify.configs import declared_keys, undeclared_differences
from rgt.verify.experiments import HEADLINE_SPLIT, Experiment
from rgt.verify.findings import comparison_claim
from rgt.verify.stats import Summary

VERDICTS = ("effect", "noise", "underpowered", "confounded", "suspect-bug")


@dataclass(frozen=True)
class Settings:
    """Knobs of the audit: bootstrap resamples and the smallest effect worth detecting."""

    n_resamples: int = 2000
    min_effect: float = 0.01


@dataclass(frozen=True)
class Comparison:
    """One candidate-vs-baseline comparison of one metric on one split, with its verdict."""

    exp_id: str
    baseline: str
    candidate: str
    variable: tuple[str, ...]
    metric: str
    split: str
    direction: str | None
    base: Summary
    cand: Summary
    diff: float
    ci_low: float | None
    ci_high: float | None
    mde: float | None
    verdict: str
    confounders: tuple[str, ...]
    suspect_runs: tuple[str, ...]

    @property
    def claim_id(self) -> str:
        return comparison_claim(self.exp_id, self.candidate, self.baseline, self.metric,
                                self.split)

    def to_dict(self) -> dict:
        """The ``comparisons[]`` entry of ``rgt/verify/v1`` (full precision)."""
        return {
            "exp_id": self.exp_id, "baseline": self.baseline, "candidate": self.candidate,
            "variable": list(self.variable), "metric": self.metric, "split": self.split,
            "direction": self.direction, "n_baseline": self.base.n, "n_candidate": self.cand.n,
            "mean_baseline": self.base.mean, "mean_candidate": self.cand.mean,
            "std_baseline": self.base.std, "std_candidate": self.cand.std, "diff": self.diff,
            "ci_low": self.ci_low, "ci_high": self.ci_high, "mde": self.mde,
            "verdict": self.verdict,
        }


def compare_experiment(experiment: Experiment, suspects: dict[str, list[str]],
                       settings: Settings) -> list[Comparison]:
    """Every headline comparison in ``experiment``; ``suspects`` maps run id -> bug checks."""
    comparisons = []
    for candidate in experiment.candidates:
        pair = experiment.variants[experiment.baseline] + experiment.variants[candidate]
        declared = declared_keys(experiment.variants[candidate][0].variant_overrides)
        confounders = tuple(undeclared_differences([run.config for run in pair], declared))
        suspect_runs = tuple(sorted(run.run_id for run in pair if run.run_id in suspects))
        for metric in experiment.compared_metrics(candidate):
            comparisons.append(_compare(experiment, candidate, metric, tuple(declared),
                                        confounders, suspect_runs, settings))
    return comparisons


def _compare(experiment: Experiment, candidate: str, metric: str, declared: tuple[str, ...],
             confounders: tuple[str, ...], suspect_runs: tuple[str, ...],
             settings: Settings) -> Comparison:
    base = _summary(experiment, experiment.baseline, metric)
    cand = _summary(experiment, candidate, metric)
    direction = experiment.direction(metric)
    # Without a declared direction the diff stays raw (candidate - baseline); a finding says so.
    sign = -1 if direction == "lower" else 1
    claim = comparison_claim(experiment.exp_id, candidate, experiment.baseline, metric,
                             HEADLINE_SPLIT)
    ci_low, ci_high = stats.diff_ci(cand, base, sign, settings.n_resamples,
                                    stats.comparison_seed(claim))
    mde = stats.minimum_detectable_effect(base, cand)
    verdict = classify(suspect=bool(suspect_runs), confounded=bool(confounders),
                       ci=(ci_low, ci_high), mde=mde, n=(base.n, cand.n),
                       min_effect=settings.min_effect)
    return Comparison(experiment.exp_id, experiment.baseline, candidate, declared, metric,
                      HEADLINE_SPLIT, direction, base, cand, sign * (cand.mean - base.mean),
                      ci_low, ci_high, mde, verdict, confounders, suspect_runs)


def _summary(experiment: Experiment, variant: str, metric: str) -> Summary:
    values = (run.metric_value(metric, HEADLINE_SPLIT) for run in experiment.variants[variant])
    # A non-finite value is left out here (JSON has no NaN); re-derivation flags its run.
    return Summary(tuple(float(v) for v in values
                         if isinstance(v, (int, float)) and math.isfinite(v)))


def classify(*, suspect: bool, confounded: bool, ci: tuple[float | None, float | None],
             mde: float | None, n: tuple[int, int], min_effect: float) -> str:
    """The verdict, first match wins: suspect-bug, confounded, effect, underpowered, noise."""
    if suspect:
        return "suspect-bug"
    if confounded:
        return "confounded"
    low, high = ci
    if low is not None and high is not None and (low > 0 or high < 0):
        return "effect"
    if min(n) < 2 or mde is None or mde > min_effect:
        return "underpowered"
    return "noise"
