"""Seed statistics: per-variant summaries, the t test of a difference, power, MDE, seeds needed.

Why t and not the bootstrap (docs/verify-statistics.md has the simulation): with 3 seeds a side
a percentile bootstrap of a difference of means has only 10 distinct resamples per side and its
95% interval covers far less than 95%, so it called noise an "effect" in ~20% of null
experiments. Welch's t interval (unequal variances) keeps its level at 2 to 10 seeds under
normal, skewed and "some seeds fail" seed distributions; a paired t over shared seeds is offered
when seeds are paired by design (same seed -> same initialisation and data order).

Power is the exact two-sided power of the t test under a noncentral t distribution; it plans
with the pooled seed sd (unpaired) or the sd of the per-seed differences (paired):

    power(delta) = P(|T| > t_{1-alpha/2, df}),  T ~ nct(df, delta / se)

The MDE (minimum detectable effect) is the delta where that power reaches ``POWER``; "seeds
needed" is the smallest n per variant whose power at the metric's min effect reaches ``POWER``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from scipy import optimize, stats

ALPHA = 0.05
POWER = 0.8
CONFIDENCE = 1 - ALPHA
SEEDS_CAP = 10_000
WELCH, PAIRED = "Welch t", "paired t"


@dataclass(frozen=True)
class Summary:
    """Seed values of one variant for one metric/split: n, mean and std (ddof=1)."""

    values: tuple[float, ...]
    seeds: tuple[object, ...] = ()

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float | None:
        return float(np.mean(self.values)) if self.values else None

    @property
    def std(self) -> float | None:
        return float(np.std(self.values, ddof=1)) if self.n >= 2 else None

    @property
    def constant(self) -> bool:
        """Two or more values, all exactly equal (np.std of equal floats can be 1e-17)."""
        return self.n >= 2 and max(self.values) == min(self.values)

    def by_seed(self) -> dict[object, float]:
        """Seed -> value (only when the seeds are known)."""
        return dict(zip(self.seeds, self.values, strict=True)) if self.seeds else {}


@dataclass(frozen=True)
class TestResult:
    """A t test of ``sign * (candidate - baseline)``: estimate, 95% interval, p and df."""

    method: str
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    df: float
    n_pairs: int = 0


def welch_test(candidate: Summary, baseline: Summary, sign: int) -> TestResult | None:
    """Welch's unequal-variance t test; None below two seeds a side or with no spread at all."""
    if candidate.n < 2 or baseline.n < 2 or (candidate.constant and baseline.constant):
        return None
    cand, base = sign * np.asarray(candidate.values), sign * np.asarray(baseline.values)
    with warnings.catch_warnings():
        # scipy warns about "catastrophic cancellation" when one side's seeds are all equal;
        # a zero variance on one side is exact and Welch's t handles it.
        warnings.simplefilter("ignore", RuntimeWarning)
        result = stats.ttest_ind(cand, base, equal_var=False)
    return _test_result(WELCH, float(np.mean(cand) - np.mean(base)), result)


def paired_test(candidate: Summary, baseline: Summary, sign: int) -> TestResult | None:
    """Paired t over the seeds both variants ran; None below two pairs or with equal diffs."""
    cand, base = candidate.by_seed(), baseline.by_seed()
    shared = sorted(set(cand) & set(base), key=str)
    diffs = np.asarray([sign * (cand[seed] - base[seed]) for seed in shared])
    if len(diffs) < 2 or np.ptp(diffs) == 0:
        return None
    result = stats.ttest_1samp(diffs, 0.0)
    return _test_result(PAIRED, float(np.mean(diffs)), result, n_pairs=len(diffs))


def _test_result(method: str, diff: float, result, n_pairs: int = 0) -> TestResult:
    interval = result.confidence_interval(CONFIDENCE)
    return TestResult(method, diff, float(interval.low), float(interval.high),
                      float(result.pvalue), float(result.df), n_pairs)


def pooled_sd(baseline: Summary, candidate: Summary) -> float | None:
    """Pooled standard deviation of both variants (ddof=1), None without any spread estimate."""
    sides = [side for side in (baseline, candidate) if side.n >= 2]
    if not sides:
        return None
    squares = sum((side.n - 1) * side.std ** 2 for side in sides)
    return math.sqrt(squares / sum(side.n - 1 for side in sides))


def paired_sd(baseline: Summary, candidate: Summary) -> float | None:
    """Standard deviation of the per-seed differences over shared seeds (None below two)."""
    cand, base = candidate.by_seed(), baseline.by_seed()
    diffs = [cand[seed] - base[seed] for seed in set(cand) & set(base)]
    return float(np.std(diffs, ddof=1)) if len(diffs) >= 2 else None


@dataclass(frozen=True)
class Design:
    """What a planned test looks like: paired or not, and the seed sd it plans with."""

    paired: bool
    sd: float

    def standard_error(self, n_base: int, n_cand: int) -> tuple[float, int]:
        """(se of the difference, degrees of freedom) at these seed counts."""
        if self.paired:
            n = min(n_base, n_cand)
            return self.sd / math.sqrt(n), n - 1
        return self.sd * math.sqrt(1 / n_base + 1 / n_cand), n_base + n_cand - 2

    def power(self, effect: float, n_base: int, n_cand: int) -> float:
        """Two-sided power of the t test at ``effect`` (noncentral t)."""
        se, df = self.standard_error(n_base, n_cand)
        if df < 1 or se <= 0:
            return 0.0 if df < 1 else 1.0
        critical = stats.t.ppf(1 - ALPHA / 2, df)
        noncentrality = abs(effect) / se
        wrong_side = stats.nct.cdf(-critical, df, noncentrality)
        # scipy's nct.cdf gives NaN far in the tail, where the wrong-side mass is nil.
        wrong_side = 0.0 if math.isnan(wrong_side) else wrong_side
        return float(stats.nct.sf(critical, df, noncentrality) + wrong_side)

    def mde(self, n_base: int, n_cand: int) -> float | None:
        """The effect detected with probability ``POWER`` at these seed counts."""
        se, df = self.standard_error(n_base, n_cand)
        if df < 1 or se <= 0:
            return None
        # The textbook (t_{1-a/2} + t_power) * se is within a few % of the root: bracket it.
        guess = (stats.t.ppf(1 - ALPHA / 2, df) + stats.t.ppf(POWER, df)) * se
        return float(optimize.brentq(lambda d: self.power(d, n_base, n_cand) - POWER,
                                     0.5 * guess, 2 * guess, xtol=1e-6 * se))

    def seeds_needed(self, effect: float) -> int | None:
        """Smallest n per variant with power >= ``POWER`` at ``effect``; None past the cap."""
        if effect <= 0 or self.sd <= 0:
            return None
        z = NormalDist().inv_cdf(1 - ALPHA / 2) + NormalDist().inv_cdf(POWER)
        n = max(2, math.ceil((2 - self.paired) * (z * self.sd / effect) ** 2))
        while n <= SEEDS_CAP and self.power(effect, n, n) < POWER:
            n += 1
        while n > 2 and self.power(effect, n - 1, n - 1) >= POWER:
            n -= 1
        return n if n <= SEEDS_CAP else None


def mean_interval(summary: Summary) -> tuple[float, float] | None:
    """95% Student-t interval of one variant's mean (for plots), None below two seeds."""
    if summary.n < 2:
        return None
    half = stats.t.ppf(1 - ALPHA / 2, summary.n - 1) * summary.std / math.sqrt(summary.n)
    return summary.mean - half, summary.mean + half


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error rate), in the input order."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted, running = [0.0] * len(p_values), 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def benjamini_hochberg(p_values: list[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (false discovery rate), in the input order."""
    return [float(p) for p in stats.false_discovery_control(p_values, method="bh")]


ADJUSTMENTS = {"holm": holm, "bh": benjamini_hochberg, "none": lambda p_values: list(p_values)}
