"""Seed statistics of ``rgt verify``: t tests, power, MDE, seeds needed, adjustments, settings."""

from __future__ import annotations

import math

import pytest
from scipy import stats as scipy_stats

from rgt.base.errors import ConfigError
from rgt.config import VerifySection
from rgt.verify.settings import MinEffect, Settings, parse_min_effect, settings_from_config
from rgt.verify.stats import (
    PAIRED,
    POWER,
    WELCH,
    Design,
    Summary,
    benjamini_hochberg,
    holm,
    mean_interval,
    paired_test,
    pooled_sd,
    welch_test,
)

BASE = Summary((0.80, 0.81, 0.79), (0, 1, 2))
CAND = Summary((0.90, 0.92, 0.88), (0, 1, 2))


def test_summary_uses_sample_std():
    assert BASE.n == 3
    assert BASE.mean == pytest.approx(0.80)
    assert BASE.std == pytest.approx(0.01)
    assert Summary((0.5,)).std is None and Summary(()).mean is None


def test_welch_matches_the_textbook_formula():
    result = welch_test(CAND, BASE, sign=1)
    se = math.sqrt(0.01 ** 2 / 3 + 0.02 ** 2 / 3)
    df = se ** 4 / ((0.01 ** 2 / 3) ** 2 / 2 + (0.02 ** 2 / 3) ** 2 / 2)
    half = scipy_stats.t.ppf(0.975, df) * se
    assert result.method == WELCH
    assert result.diff == pytest.approx(0.10)
    assert result.df == pytest.approx(df)
    assert (result.ci_low, result.ci_high) == pytest.approx((0.10 - half, 0.10 + half))
    assert result.p_value == pytest.approx(2 * scipy_stats.t.sf(0.10 / se, df))


def test_lower_is_better_flips_the_sign():
    result = welch_test(CAND, BASE, sign=-1)
    assert result.diff == pytest.approx(-0.10) and result.ci_high < 0


def test_no_test_below_two_seeds_or_without_any_spread():
    assert welch_test(Summary((0.9,)), BASE, sign=1) is None
    assert welch_test(Summary((0.9, 0.9)), Summary((0.8, 0.8)), sign=1) is None
    assert welch_test(Summary((0.9, 0.9)), BASE, sign=1) is not None  # one side spreads


def test_paired_t_uses_the_per_seed_differences():
    base = Summary((0.80, 0.85, 0.90), (0, 1, 2))
    cand = Summary((0.81, 0.87, 0.905), (0, 1, 2))
    result = paired_test(cand, base, sign=1)
    diffs = [0.01, 0.02, 0.005]
    expected = scipy_stats.ttest_1samp(diffs, 0.0)
    assert result.method == PAIRED and result.n_pairs == 3
    assert result.p_value == pytest.approx(expected.pvalue)
    # The same numbers unpaired are drowned by the between-seed spread.
    assert welch_test(cand, base, sign=1).p_value > 0.5 > result.p_value


def test_paired_t_needs_two_shared_seeds():
    assert paired_test(Summary((0.9, 0.91), (5, 6)), BASE, sign=1) is None


def test_power_at_the_mde_is_the_target_power():
    design = Design(paired=False, sd=0.01)
    mde = design.mde(3, 3)
    assert design.power(mde, 3, 3) == pytest.approx(POWER, abs=1e-4)
    # Small n: the t-based MDE is well above the normal-approximation one.
    z_mde = (1.959964 + 0.841621) * 0.01 * math.sqrt(2 / 3)
    assert mde > 1.2 * z_mde


def test_seeds_needed_is_the_smallest_n_reaching_the_power():
    design = Design(paired=False, sd=1.0)
    n = design.seeds_needed(1.0)
    assert design.power(1.0, n, n) >= POWER > design.power(1.0, n - 1, n - 1)
    assert n == 17  # the textbook two-sample t: d = 1 needs 17 per group at 80% power
    assert Design(False, 1.0).seeds_needed(1e-4) is None  # past the cap


def test_pooled_sd_uses_any_side_with_spread():
    assert pooled_sd(BASE, Summary((0.9,))) == pytest.approx(0.01)
    assert pooled_sd(Summary((0.8,)), Summary((0.9,))) is None


def test_mean_interval_is_student_t():
    low, high = mean_interval(BASE)
    assert (high - low) / 2 == pytest.approx(4.302653 * 0.01 / math.sqrt(3), rel=1e-6)
    assert mean_interval(Summary((0.8,))) is None


def test_holm_and_bh_adjustments():
    p = [0.01, 0.04, 0.03, 0.20]
    assert holm(p) == pytest.approx([0.04, 0.09, 0.09, 0.20])
    assert benjamini_hochberg(p) == pytest.approx([0.04, 0.0533333, 0.0533333, 0.20])


@pytest.mark.parametrize(("value", "expected"), [
    (0.01, MinEffect(0.01)), ("2%", MinEffect(2.0, "%")), ("0.5sd", MinEffect(0.5, "sd")),
    ("0.02", MinEffect(0.02)),
])
def test_min_effect_forms(value, expected):
    assert parse_min_effect(value, "x") == expected


@pytest.mark.parametrize("value", [0, -1, "nan", "0%", "two", True, float("inf")])
def test_bad_min_effect_names_the_field_the_value_and_the_forms(value):
    with pytest.raises(ValueError, match=r"verify\.min_effect\.loss = .* write a number"):
        parse_min_effect(value, "verify.min_effect.loss")


def test_min_effect_resolves_against_the_baseline_or_the_seed_sd():
    assert MinEffect(2.0, "%").resolve(-150.0, None) == pytest.approx(3.0)
    assert MinEffect(0.5, "sd").resolve(None, 0.04) == pytest.approx(0.02)
    assert MinEffect(0.5, "sd").resolve(1.0, None) is None


def test_settings_default_and_overrides():
    settings = settings_from_config(VerifySection(min_effect={"accuracy": 0.01},
                                                  pairing="paired", multiplicity="bh"))
    assert settings.min_effect_for("accuracy") == MinEffect(0.01)
    assert settings.min_effect_for("perplexity") == MinEffect(1.0, "%")
    assert settings.with_overrides({"loss": MinEffect(0.1)}).min_effect_for("loss").amount == 0.1
    assert Settings().multiplicity == "holm" and settings.pairing == "paired"


def test_a_bad_min_effect_in_the_config_is_a_config_error():
    with pytest.raises(ConfigError, match="verify.min_effect.loss"):
        settings_from_config(VerifySection(min_effect={"loss": "0%"}))
