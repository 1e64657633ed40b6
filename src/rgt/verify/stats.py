"""Seed statistics: per-variant summaries, a bootstrap CI of the difference, and the MDE.

MDE (minimum detectable effect) for a two-sided test at ``ALPHA`` with power ``POWER``:

    mde = (z_{1-alpha/2} + z_{power}) * sd_pooled * sqrt(1/n_baseline + 1/n_candidate)

which is the textbook ``(z_{1-a/2} + z_pow) * sd * sqrt(2/n)`` when both sides have n seeds.
``sd_pooled`` pools the two variants' sample variances (ddof=1); when the candidate has a single
seed it is the baseline's sd alone. A difference smaller than the MDE cannot be told from seed
noise with this many seeds, so such a comparison is "underpowered", not "no effect".
"""

from __future__ import annotations

import hashlib
import inspect
import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

ALPHA = 0.05
POWER = 0.8
CONFIDENCE = 1 - ALPHA
Z_SUM = NormalDist().inv_cdf(1 - ALPHA / 2) + NormalDist().inv_cdf(POWER)


@dataclass(frozen=True)
class Summary:
    """Seed values of one variant for one metric/split: n, mean and std (ddof=1)."""

    values: tuple[float, ...]

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float | None:
        return float(np.mean(self.values)) if self.values else None

    @property
    def std(self) -> float | None:
        return float(np.std(self.values, ddof=1)) if self.n >= 2 else None


def comparison_seed(key: str) -> int:
    """A bootstrap seed derived from the comparison's id: stable whatever the report order."""
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:16], 16)


def diff_ci(candidate: Summary, baseline: Summary, sign: int, n_resamples: int,
            seed: int) -> tuple[float | None, float | None]:
    """Percentile bootstrap CI of ``sign * (mean_candidate - mean_baseline)``.

    The two variants are resampled independently (seeds are not paired). Percentile rather than
    BCa because BCa is undefined for the zero-spread samples that deterministic runs produce.
    Returns ``(None, None)`` when a side has fewer than two seeds.
    """
    if candidate.n < 2 or baseline.n < 2:
        return None, None
    from scipy import stats

    def statistic(cand: np.ndarray, base: np.ndarray, axis: int = -1) -> np.ndarray:
        return sign * (np.mean(cand, axis=axis) - np.mean(base, axis=axis))

    result = stats.bootstrap(
        (np.asarray(candidate.values), np.asarray(baseline.values)), statistic,
        n_resamples=n_resamples, vectorized=True, paired=False, confidence_level=CONFIDENCE,
        method="percentile", **rng_argument(stats.bootstrap, seed))
    interval = result.confidence_interval
    return _finite(interval.low), _finite(interval.high)


def pooled_sd(baseline: Summary, candidate: Summary) -> float | None:
    """Pooled standard deviation of both variants (ddof=1), None without baseline spread."""
    if baseline.n < 2:
        return None
    dof = (baseline.n - 1) + max(candidate.n - 1, 0)
    squares = (baseline.n - 1) * baseline.std ** 2
    if candidate.n >= 2:
        squares += (candidate.n - 1) * candidate.std ** 2
    return math.sqrt(squares / dof)


def minimum_detectable_effect(baseline: Summary, candidate: Summary) -> float | None:
    """The MDE of the module docstring, or None when a side has no seeds or no spread."""
    sd = pooled_sd(baseline, candidate)
    if sd is None or candidate.n < 1:
        return None
    return Z_SUM * sd * math.sqrt(1 / baseline.n + 1 / candidate.n)


def mean_interval(summary: Summary) -> tuple[float, float] | None:
    """95% Student-t interval of one variant's mean (for plots), None below two seeds."""
    if summary.n < 2:
        return None
    from scipy import stats

    half = stats.t.ppf(1 - ALPHA / 2, summary.n - 1) * summary.std / math.sqrt(summary.n)
    return summary.mean - half, summary.mean + half


def rng_argument(function, seed: int) -> dict:
    """``rng=`` or ``random_state=`` (whichever ``function`` takes) seeded with ``seed``."""
    # scipy >= 1.15 takes `rng`; older releases (the floor is 1.11) only `random_state`.
    name = "rng" if "rng" in inspect.signature(function).parameters else "random_state"
    return {name: np.random.default_rng(seed)}


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None
