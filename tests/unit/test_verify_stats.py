"""Seed statistics and the verdict rule of ``rgt verify``."""

from __future__ import annotations

import math

import pytest

from rgt.verify.compare import classify
from rgt.verify.stats import (
    Summary,
    comparison_seed,
    diff_ci,
    mean_interval,
    minimum_detectable_effect,
    pooled_sd,
)

BASE = Summary((0.80, 0.81, 0.79))
CAND = Summary((0.90, 0.92, 0.88))


def test_summary_uses_sample_std():
    assert BASE.n == 3
    assert BASE.mean == pytest.approx(0.80)
    assert BASE.std == pytest.approx(0.01)
    assert Summary((0.5,)).std is None and Summary(()).mean is None


def test_mde_matches_the_textbook_formula_for_equal_n():
    # (z_0.975 + z_0.8) * sd_pooled * sqrt(2/n) with sd_pooled = sqrt((0.01^2 + 0.02^2) / 2).
    expected = (1.959964 + 0.841621) * math.sqrt((0.01**2 + 0.02**2) / 2) * math.sqrt(2 / 3)
    assert minimum_detectable_effect(BASE, CAND) == pytest.approx(expected, rel=1e-6)


def test_mde_needs_baseline_spread():
    assert minimum_detectable_effect(Summary((0.8,)), CAND) is None
    assert pooled_sd(BASE, Summary((0.9,))) == pytest.approx(0.01)


def test_bootstrap_ci_is_seeded_and_oriented():
    higher = diff_ci(CAND, BASE, sign=1, n_resamples=500, seed=7)
    assert higher == diff_ci(CAND, BASE, sign=1, n_resamples=500, seed=7)
    assert 0 < higher[0] < 0.10 < higher[1]
    lower = diff_ci(CAND, BASE, sign=-1, n_resamples=500, seed=7)
    assert lower[1] < 0


def test_bootstrap_ci_needs_two_seeds_per_side():
    assert diff_ci(Summary((0.9,)), BASE, sign=1, n_resamples=100, seed=0) == (None, None)


def test_zero_spread_gives_a_point_interval_not_nan():
    low, high = diff_ci(Summary((0.9, 0.9)), Summary((0.8, 0.8)), sign=1, n_resamples=100,
                        seed=0)
    assert low == pytest.approx(0.1) and high == pytest.approx(0.1)


def test_comparison_seed_depends_only_on_the_id():
    assert comparison_seed("a/b-vs-c/m/test") == comparison_seed("a/b-vs-c/m/test")
    assert comparison_seed("a/b-vs-c/m/test") != comparison_seed("a/d-vs-c/m/test")


def test_mean_interval_is_student_t():
    low, high = mean_interval(BASE)
    assert (high - low) / 2 == pytest.approx(4.302653 * 0.01 / math.sqrt(3), rel=1e-6)
    assert mean_interval(Summary((0.8,))) is None


@pytest.mark.parametrize(("kwargs", "verdict"), [
    ({"suspect": True, "confounded": True, "ci": (0.1, 0.2)}, "suspect-bug"),
    ({"confounded": True, "ci": (0.1, 0.2)}, "confounded"),
    ({"ci": (0.1, 0.2)}, "effect"),
    ({"ci": (-0.2, -0.1)}, "effect"),
    ({"ci": (-0.1, 0.1), "mde": 0.05}, "underpowered"),
    ({"ci": (-0.1, 0.1), "n": (3, 1)}, "underpowered"),
    ({"ci": (None, None), "mde": None}, "underpowered"),
    ({"ci": (-0.1, 0.1)}, "noise"),
])
def test_verdict_rule_first_match_wins(kwargs, verdict):
    arguments = {"suspect": False, "confounded": False, "ci": (None, None), "mde": 0.001,
                 "n": (3, 3), "min_effect": 0.01} | kwargs
    assert classify(**arguments) == verdict
