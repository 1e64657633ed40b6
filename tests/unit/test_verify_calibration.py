"""Calibration of `rgt verify`'s verdicts by simulation (module rgt.verify.calibration): the
share of null comparisons called `effect`, the coverage of the 95% interval, and the power —
real verdict code on runs in the landed format, 1,000 simulated experiments per cell."""

from __future__ import annotations

import numpy as np
import pytest

from rgt.verify.audit import audit_runs
from rgt.verify.calibration import (
    DISTRIBUTIONS,
    SCALE,
    Cell,
    run_cell,
    simulated_runs,
    verdicts_of,
    write_landed,
)
from rgt.verify.settings import Settings

EXPERIMENTS = 1000
NULL_CEILING = 0.06
COVERAGE_FLOOR = 0.93
POWER_FLOOR = 0.60


@pytest.fixture(scope="module")
def null_cells() -> dict:
    """Every (distribution, n) null cell, simulated once for the whole module."""
    return {(distribution, n): run_cell(Cell(distribution, n, experiments=EXPERIMENTS), seed=n)
            for distribution in DISTRIBUTIONS for n in (2, 3, 5, 10)}


@pytest.mark.parametrize("distribution", sorted(DISTRIBUTIONS))
@pytest.mark.parametrize("n", [2, 3, 5, 10])
def test_noise_is_called_an_effect_at_most_6_percent_of_the_time(null_cells, distribution, n):
    result = null_cells[(distribution, n)]
    assert sum(result.verdicts.values()) == EXPERIMENTS
    assert result.effect_rate <= NULL_CEILING, result.to_dict()


@pytest.mark.parametrize("distribution", sorted(DISTRIBUTIONS))
def test_the_95_interval_covers_the_true_difference_at_5_seeds(null_cells, distribution):
    under_null = null_cells[(distribution, 5)]
    shifted = run_cell(Cell(distribution, 5, true_diff=2.0, experiments=EXPERIMENTS), seed=7)
    assert under_null.coverage >= COVERAGE_FLOOR, under_null.to_dict()
    assert shifted.coverage >= COVERAGE_FLOOR, shifted.to_dict()


def test_a_two_sd_difference_with_5_seeds_is_found_at_least_60_percent_of_the_time():
    result = run_cell(Cell("normal", 5, true_diff=2.0, experiments=EXPERIMENTS), seed=11)
    assert result.effect_rate >= POWER_FLOOR, result.to_dict()


@pytest.mark.parametrize("multiplicity", ["holm", "bh"])
def test_a_family_of_comparisons_keeps_its_error_rate(multiplicity):
    cell = Cell("normal", 5, experiments=EXPERIMENTS, candidates=3)
    adjusted = run_cell(cell, Settings(multiplicity=multiplicity), seed=3)
    # Under the global null the family-wise rate is what Holm and BH control.
    assert adjusted.familywise_rate <= NULL_CEILING, adjusted.to_dict()


def test_without_adjustment_a_family_calls_noise_an_effect_too_often():
    cell = Cell("normal", 5, experiments=300, candidates=3)
    assert run_cell(cell, Settings(multiplicity="none"), seed=3).familywise_rate > NULL_CEILING


def test_the_paired_analysis_keeps_its_level_and_gains_power_when_seeds_pair_up():
    paired = Settings(pairing="paired")
    null = run_cell(Cell("normal", 5, seed_correlation=0.8, experiments=EXPERIMENTS), paired)
    assert null.effect_rate <= NULL_CEILING, null.to_dict()
    effect = Cell("normal", 5, true_diff=1.0, seed_correlation=0.8, experiments=300)
    assert run_cell(effect, paired, seed=5).effect_rate > \
        run_cell(effect, Settings(), seed=5).effect_rate + 0.2


def test_simulated_runs_written_to_disk_get_the_same_verdicts_from_rgt_verify(tmp_path):
    rng = np.random.default_rng(0)
    cells = [Cell("lognormal", 3), Cell("normal", 5, true_diff=3.0)]
    runs = [run for index in range(20) for cell in cells
            for run in simulated_runs(cell, rng, f"exp{index:02d}-{cell.n}")]
    write_landed(tmp_path, runs)
    audited = {c.claim_id: c for c in audit_runs(tmp_path).comparisons}
    in_memory = {c.claim_id: c for c in verdicts_of(runs)}
    assert audited.keys() == in_memory.keys() and len(audited) == 40
    for claim, comparison in in_memory.items():
        assert (audited[claim].verdict, audited[claim].ci_low) == \
            (comparison.verdict, comparison.ci_low)
    assert {c.verdict for c in audited.values()} >= {"effect", "underpowered"}


def test_true_differences_are_in_metric_units():
    runs = simulated_runs(Cell("normal", 200, true_diff=2.0), np.random.default_rng(1), "e")
    [comparison] = verdicts_of(runs)
    assert comparison.diff == pytest.approx(2.0 * SCALE, abs=0.3 * SCALE)
