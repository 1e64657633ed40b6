"""Benchmark: calibration of `rgt verify`'s verdicts against the percentile bootstrap it replaced.

For each seed distribution (normal, lognormal, a "some seeds fail" mixture) and seeds per variant
(2, 3, 5, 10), simulated experiments (rgt.verify.calibration: runs in the landed format, verdicts
by the real comparison code) give:

- null rate: share of comparisons called `effect` when both variants share one distribution;
- coverage: share of 95% intervals holding the true difference, under the null and at a true
  difference of 2 seed sds;
- power: share called `effect` at a true difference of 2 seed sds.

The named baseline, on the very same simulated seed values: the previous rule, a 95% percentile
bootstrap of the difference of means (2,000 resamples, variants resampled independently) calling
`effect` when the interval excludes 0. Goals: null rate <= 6% everywhere, coverage >= 93% at
n = 5, power >= 60% at 2 sds with 5 seeds.

    python bench/verify_calibration.py [--experiments 1000] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from rgt.verify.calibration import (  # noqa: E402
    DISTRIBUTIONS,
    METRIC,
    SCALE,
    Cell,
    simulated_runs,
    verdicts_of,
)

SEED_COUNTS = (2, 3, 5, 10)
SHIFT_SD = 2.0
RESAMPLES = 2000


def bootstrap_interval(base: np.ndarray, cand: np.ndarray, rng) -> tuple[float, float]:
    """The replaced rule: percentile bootstrap CI of mean(cand) - mean(base)."""
    def statistic(c, b, axis=-1):
        return np.mean(c, axis=axis) - np.mean(b, axis=axis)

    result = stats.bootstrap((cand, base), statistic, n_resamples=RESAMPLES, vectorized=True,
                             paired=False, method="percentile", rng=rng)
    return result.confidence_interval.low, result.confidence_interval.high


def seed_values(runs, variant: str) -> np.ndarray:
    """One variant's metric values, in seed order."""
    return np.asarray([run.metric_value(METRIC, "test") for run in runs
                       if run.variant == variant])


def simulate(cell: Cell, seed: int) -> dict:
    """Effect calls and interval coverage of both rules over one cell's experiments."""
    rng = np.random.default_rng(seed)
    truth = cell.true_diff * SCALE
    tally = {"rgt_effect": 0, "rgt_covered": 0, "rgt_intervals": 0, "boot_effect": 0,
             "boot_covered": 0}
    for index in range(cell.experiments):
        runs = simulated_runs(cell, rng, f"sim{index:05d}")
        [comparison] = verdicts_of(runs)
        tally["rgt_effect"] += comparison.verdict == "effect"
        if comparison.ci_low is not None:
            tally["rgt_intervals"] += 1
            tally["rgt_covered"] += comparison.ci_low <= truth <= comparison.ci_high
        low, high = bootstrap_interval(seed_values(runs, "baseline"),
                                       seed_values(runs, "cand0"), rng)
        tally["boot_effect"] += low > 0 or high < 0
        tally["boot_covered"] += low <= truth <= high
    return {"effect_rate": tally["rgt_effect"] / cell.experiments,
            "coverage": tally["rgt_covered"] / max(1, tally["rgt_intervals"]),
            "bootstrap_effect_rate": tally["boot_effect"] / cell.experiments,
            "bootstrap_coverage": tally["boot_covered"] / cell.experiments}


def row(distribution: str, n: int, experiments: int) -> dict:
    """Null and shifted cells of one (distribution, n)."""
    null = simulate(Cell(distribution, n, experiments=experiments), seed=n)
    shifted = simulate(Cell(distribution, n, true_diff=SHIFT_SD, experiments=experiments),
                       seed=100 + n)
    return {"distribution": distribution, "n": n, "experiments": experiments,
            "null_rate": null["effect_rate"],
            "bootstrap_null_rate": null["bootstrap_effect_rate"],
            "null_rate_vs_bootstrap": null["effect_rate"] / max(1e-9,
                                                                null["bootstrap_effect_rate"]),
            "coverage_null": null["coverage"], "coverage_shift": shifted["coverage"],
            "bootstrap_coverage_null": null["bootstrap_coverage"],
            "power_2sd": shifted["effect_rate"],
            "bootstrap_power_2sd": shifted["bootstrap_effect_rate"]}


def print_table(rows: list[dict]) -> None:
    print("rgt verify calibration (Welch t, Holm) vs the percentile bootstrap it replaced; "
          f"{rows[0]['experiments']} simulated experiments per cell")
    print(f"  {'distribution':<14}{'n':>3}  {'null rate':>9} {'(boot)':>7} {'ratio':>6}  "
          f"{'coverage 0/2sd':>15} {'(boot 0)':>8}  {'power 2sd':>9} {'(boot)':>7}")
    for r in rows:
        print(f"  {r['distribution']:<14}{r['n']:>3}  {r['null_rate']:>9.1%} "
              f"{r['bootstrap_null_rate']:>7.1%} {r['null_rate_vs_bootstrap']:>6.2f}  "
              f"{r['coverage_null']:>7.1%}/{r['coverage_shift']:<7.1%} "
              f"{r['bootstrap_coverage_null']:>8.1%}  {r['power_2sd']:>9.1%} "
              f"{r['bootstrap_power_2sd']:>7.1%}")


def goals(rows: list[dict]) -> dict:
    """The issue's goals, each met or not."""
    at5 = [r for r in rows if r["n"] == 5]
    return {"null_rate_at_most_6pct": all(r["null_rate"] <= 0.06 for r in rows),
            "coverage_at_5_at_least_93pct": all(min(r["coverage_null"], r["coverage_shift"])
                                                 >= 0.93 for r in at5),
            "power_2sd_at_5_normal_at_least_60pct": all(
                r["power_2sd"] >= 0.60 for r in at5 if r["distribution"] == "normal")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", type=int, default=1000)
    parser.add_argument("--json", help="also write the table and goals to this file")
    args = parser.parse_args()
    rows = [row(distribution, n, args.experiments)
            for distribution in DISTRIBUTIONS for n in SEED_COUNTS]
    print_table(rows)
    met = goals(rows)
    for goal, ok in met.items():
        print(f"  goal {goal}: {'met' if ok else 'NOT met'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "goals": met}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
