"""Compare each candidate variant with its baseline and classify the difference.

Per experiment: every candidate x metric on the headline split is tested (Welch's t, or a paired
t when asked and the seeds pair up), the p-values of that experiment's family are adjusted
(Holm by default), and each comparison gets a verdict, first match wins:

    suspect-bug   a bug check failed on a run on either side, for this metric
    confounded    the compared configs differ in more than the declared variable
    underpowered  no test possible (n < 2 a side, no seed spread) or not significant with
                  power < 80% at the metric's min effect (the seeds needed are stated)
    effect        adjusted p <= alpha (the 95% interval of the difference excludes 0)
    noise         not significant, with power >= 80% at the min effect
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property

from rgt.verify import stats
from rgt.verify.configs import declared_keys, undeclared_differences
from rgt.verify.experiments import Experiment
from rgt.verify.findings import comparison_claim
from rgt.verify.metric_kinds import format_difference
from rgt.verify.settings import Settings
from rgt.verify.stats import ALPHA, POWER, Summary, TestResult

VERDICTS = ("effect", "noise", "underpowered", "confounded", "suspect-bug")


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
    test: TestResult | None
    design: stats.Design | None
    min_effect: float | None
    min_effect_rule: str
    power: float | None
    confounders: tuple[str, ...]
    suspect_runs: tuple[str, ...]
    multiplicity: str = "holm"
    family: int = 1
    p_adjusted: float | None = None
    verdict: str = "underpowered"
    reason: str = ""

    @property
    def claim_id(self) -> str:
        return comparison_claim(self.exp_id, self.candidate, self.baseline, self.metric,
                                self.split)

    @cached_property
    def mde(self) -> float | None:
        """The effect detected with 80% power at these seed counts (None without spread)."""
        if self.design is None or min(self.base.n, self.cand.n) < 1:
            return None
        return self.design.mde(self.base.n, self.cand.n)

    @cached_property
    def seeds_needed(self) -> int | None:
        """Seeds per variant for 80% power at the min effect (None: unknown or past the cap)."""
        if self.design is None or not self.min_effect:
            return None
        return self.design.seeds_needed(self.min_effect)

    @property
    def diff(self) -> float | None:
        """``+`` = better: the test's estimate, else the difference of the means."""
        if self.test is not None:
            return self.test.diff
        if self.base.mean is None or self.cand.mean is None:
            return None
        return (-1 if self.direction == "lower" else 1) * (self.cand.mean - self.base.mean)

    @property
    def ci_low(self) -> float | None:
        return None if self.test is None else self.test.ci_low

    @property
    def ci_high(self) -> float | None:
        return None if self.test is None else self.test.ci_high

    @property
    def method(self) -> str:
        """The test used, or why none could be."""
        return "none" if self.test is None else self.test.method

    def to_dict(self) -> dict:
        """The ``comparisons[]`` entry of ``rgt/verify/v1`` (full precision)."""
        return {
            "exp_id": self.exp_id, "baseline": self.baseline, "candidate": self.candidate,
            "variable": list(self.variable), "metric": self.metric, "split": self.split,
            "direction": self.direction, "n_baseline": self.base.n, "n_candidate": self.cand.n,
            "mean_baseline": self.base.mean, "mean_candidate": self.cand.mean,
            "std_baseline": self.base.std, "std_candidate": self.cand.std, "diff": self.diff,
            "ci_low": self.ci_low, "ci_high": self.ci_high, "interval": "95% t interval",
            "test": self.method, "df": None if self.test is None else self.test.df,
            "p_value": None if self.test is None else self.test.p_value,
            "p_adjusted": self.p_adjusted, "multiplicity": self.multiplicity,
            "family_size": self.family, "alpha": ALPHA, "min_effect": self.min_effect,
            "min_effect_rule": self.min_effect_rule, "power_at_min_effect": self.power,
            "mde": self.mde, "seeds_needed": self.seeds_needed, "verdict": self.verdict,
            "reason": self.reason,
        }


def compare_experiment(experiment: Experiment, suspects: dict[str, list[str]],
                       settings: Settings) -> list[Comparison]:
    """Every headline comparison in ``experiment``, adjusted as one family and classified;
    ``suspects`` maps a claim id to the runs whose bug checks taint it."""
    drafts = []
    for candidate in experiment.candidates:
        pair = experiment.variants[experiment.baseline] + experiment.variants[candidate]
        declared = tuple(declared_keys(experiment.variants[candidate][0].variant_overrides))
        confounders = tuple(undeclared_differences([run.config for run in pair], declared))
        for metric in experiment.compared_metrics(candidate):
            drafts.append(_draft(experiment, candidate, metric, declared, confounders, settings))
    drafts = [replace(d, suspect_runs=tuple(sorted(set(suspects.get(d.claim_id, ())))))
              for d in drafts]
    return [_classified(d) for d in adjust_family(drafts, settings.multiplicity)]


def _draft(experiment: Experiment, candidate: str, metric: str, declared: tuple[str, ...],
           confounders: tuple[str, ...], settings: Settings) -> Comparison:
    base = _summary(experiment, experiment.baseline, metric)
    cand = _summary(experiment, candidate, metric)
    direction = experiment.direction(metric)
    # Without a declared direction the diff stays raw (candidate - baseline); a finding says so.
    sign = -1 if direction == "lower" else 1
    test, design = _test(cand, base, sign, settings.pairing)
    rule = settings.min_effect_for(metric)
    min_effect = rule.resolve(base.mean, None if design is None else design.sd)
    enough = min(base.n, cand.n) >= 2 and design is not None and min_effect
    power = design.power(min_effect, base.n, cand.n) if enough else None
    return Comparison(experiment.exp_id, experiment.baseline, candidate, declared, metric,
                      experiment.report_split(metric), direction, base, cand, test, design,
                      min_effect, str(rule), power, confounders, (), settings.multiplicity)


def _test(cand: Summary, base: Summary, sign: int,
          pairing: str) -> tuple[TestResult | None, stats.Design | None]:
    if pairing == "paired":
        test = stats.paired_test(cand, base, sign)
        if test is not None:
            return test, stats.Design(True, stats.paired_sd(base, cand))
    sd = stats.pooled_sd(base, cand)
    design = stats.Design(False, sd) if sd else None
    return stats.welch_test(cand, base, sign), design


def _summary(experiment: Experiment, variant: str, metric: str) -> Summary:
    split = experiment.report_split(metric)
    pairs = [(run.seed, run.metric_value(metric, split)) for run in experiment.variants[variant]]
    # A non-finite value is left out here (JSON has no NaN); a bug finding names its run.
    kept = [(seed, float(v)) for seed, v in pairs
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]
    return Summary(tuple(v for _, v in kept), tuple(seed for seed, _ in kept))


def adjust_family(drafts: list[Comparison], multiplicity: str) -> list[Comparison]:
    """Each tested comparison's p adjusted over the family of tested ones (one experiment)."""
    tested = [index for index, d in enumerate(drafts) if d.test is not None]
    adjusted = stats.ADJUSTMENTS[multiplicity]([drafts[i].test.p_value for i in tested])
    result = list(drafts)
    for index, p_adjusted in zip(tested, adjusted, strict=True):
        result[index] = replace(drafts[index], p_adjusted=p_adjusted, family=len(tested))
    return result


def _classified(c: Comparison) -> Comparison:
    verdict, reason = classify(c)
    return replace(c, verdict=verdict, reason=reason)


def classify(c: Comparison) -> tuple[str, str]:
    """(verdict, one-line reason) by the rule of the module docstring."""
    significant = c.p_adjusted is not None and c.p_adjusted <= ALPHA
    powered = c.power is not None and c.power >= POWER
    verdict = verdict_rule(suspect=bool(c.suspect_runs), confounded=bool(c.confounders),
                           testable=c.test is not None, significant=significant,
                           powered=powered)
    return verdict, REASONS[verdict](c)


def verdict_rule(*, suspect: bool, confounded: bool, testable: bool, significant: bool,
                 powered: bool) -> str:
    """The verdict, first match wins (module docstring)."""
    if suspect:
        return "suspect-bug"
    if confounded:
        return "confounded"
    if not testable:
        return "underpowered"
    if significant:
        return "effect"
    return "noise" if powered else "underpowered"


def _suspect_reason(c: Comparison) -> str:
    return f"bug checks failed on run(s) {', '.join(c.suspect_runs)}"


def _confounded_reason(c: Comparison) -> str:
    return f"configs also differ in {', '.join(c.confounders)}"


def _effect_reason(c: Comparison) -> str:
    return f"{_p_text(c)} <= {ALPHA:g}"


def _noise_reason(c: Comparison) -> str:
    return (f"{_p_text(c)} > {ALPHA:g} with {c.power:.0%} power to detect "
            f"{format_difference(c.metric, c.min_effect, signed=False)}")


def _underpowered(c: Comparison) -> str:
    return _untestable_reason(c) if c.test is None else _underpowered_reason(c)


def _untestable_reason(c: Comparison) -> str:
    if min(c.base.n, c.cand.n) < 2:
        return (f"n = {c.base.n}/{c.cand.n}: at least 2 seeds per variant are needed for a "
                f"test{_needed_text(c)}")
    return "every seed gave the same value on both sides: seed noise cannot be estimated"


def _underpowered_reason(c: Comparison) -> str:
    power = "unknown power" if c.power is None else f"{c.power:.0%} power"
    return (f"{_p_text(c)} > {ALPHA:g} with {power} to detect {_effect_text(c)} at "
            f"n = {c.base.n}/{c.cand.n}{_needed_text(c)}")


def _needed_text(c: Comparison) -> str:
    if c.min_effect is None or c.design is None:
        return ""
    if c.seeds_needed is None:
        return f"; more than {stats.SEEDS_CAP} seeds per variant needed"
    return f"; {c.seeds_needed} seeds per variant needed for {POWER:.0%} power"


def _effect_text(c: Comparison) -> str:
    if c.min_effect is None:
        return "an unknown min effect"
    return format_difference(c.metric, c.min_effect, signed=False)


def _p_text(c: Comparison) -> str:
    if c.family <= 1 or c.multiplicity == "none":
        return f"p = {c.test.p_value:.2g}"
    return f"p = {c.test.p_value:.2g} ({c.multiplicity}-adjusted {c.p_adjusted:.2g})"


REASONS = {"suspect-bug": _suspect_reason, "confounded": _confounded_reason,
           "effect": _effect_reason, "noise": _noise_reason, "underpowered": _underpowered}
