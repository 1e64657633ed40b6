"""Calibration of the verdicts by simulation: how often does ``rgt verify`` call noise an
effect, does its 95% interval cover the true difference, and how often does it find a real one?

Each simulated experiment is a baseline and a candidate variant, ``n`` seeds each, whose runs
are written as the landed run documents (``run.json``, ``results.json``, the resolved config)
and read back into the same ``Run`` objects ``load_runs`` builds; the verdicts come from the
same grouping and comparison code ``rgt verify`` runs. Seed values are ``LEVEL + SCALE * e``
with ``e`` drawn from a standardised distribution (mean 0, sd 1), so a true difference is given
in seed standard deviations:

- ``normal``: e ~ N(0, 1);
- ``lognormal``: a right-skewed seed distribution, exp(N(0, 1)) standardised;
- ``failing-seeds``: a bimodal "some seeds fail" mixture, 80% N(0, 1) and 20% N(-6, 1),
  standardised.

``tests/unit/test_verify_calibration.py`` holds the claimed rates; ``bench/verify_calibration.py``
prints the full table.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from rgt.verify.compare import Comparison, compare_experiment
from rgt.verify.experiments import group_experiments
from rgt.verify.runs import Run
from rgt.verify.settings import Settings

LEVEL, SCALE = 0.90, 0.01
METRIC = "score"
FAIL_SHARE, FAIL_SHIFT = 0.2, -6.0


def _normal(rng: np.random.Generator, size) -> np.ndarray:
    return rng.normal(0.0, 1.0, size)


def _lognormal(rng: np.random.Generator, size) -> np.ndarray:
    mean, sd = math.exp(0.5), math.sqrt((math.e - 1) * math.e)
    return (rng.lognormal(0.0, 1.0, size) - mean) / sd


def _failing_seeds(rng: np.random.Generator, size) -> np.ndarray:
    mean = FAIL_SHARE * FAIL_SHIFT
    sd = math.sqrt(1 + FAIL_SHARE * (1 - FAIL_SHARE) * FAIL_SHIFT ** 2)
    failed = rng.random(size) < FAIL_SHARE
    return (rng.normal(0.0, 1.0, size) + np.where(failed, FAIL_SHIFT, 0.0) - mean) / sd


DISTRIBUTIONS: dict[str, Callable[[np.random.Generator, object], np.ndarray]] = {
    "normal": _normal, "lognormal": _lognormal, "failing-seeds": _failing_seeds}


@dataclass(frozen=True)
class Cell:
    """One simulation setting: distribution, seeds per variant, true difference (in seed sds),
    candidates per experiment (the family size) and the correlation of same-seed runs."""

    distribution: str
    n: int
    true_diff: float = 0.0
    experiments: int = 1000
    candidates: int = 1
    seed_correlation: float = 0.0


@dataclass
class CellResult:
    """What ``rgt verify`` said over a cell's simulated experiments."""

    cell: Cell
    verdicts: Counter = field(default_factory=Counter)
    experiments_with_effect: int = 0
    intervals: int = 0
    covered: int = 0

    @property
    def effect_rate(self) -> float:
        """Share of comparisons called ``effect``."""
        return self.verdicts["effect"] / max(1, sum(self.verdicts.values()))

    @property
    def familywise_rate(self) -> float:
        """Share of experiments with at least one ``effect`` among their comparisons."""
        return self.experiments_with_effect / self.cell.experiments

    @property
    def coverage(self) -> float | None:
        """Share of 95% intervals holding the true difference (None without intervals)."""
        return self.covered / self.intervals if self.intervals else None

    def to_dict(self) -> dict:
        """The JSON row of the benchmark."""
        return {"distribution": self.cell.distribution, "n": self.cell.n,
                "true_diff_sd": self.cell.true_diff, "experiments": self.cell.experiments,
                "candidates": self.cell.candidates,
                "seed_correlation": self.cell.seed_correlation,
                "effect_rate": self.effect_rate, "familywise_rate": self.familywise_rate,
                "coverage": self.coverage, "verdicts": dict(sorted(self.verdicts.items()))}


def run_cell(cell: Cell, settings: Settings | None = None, seed: int = 0) -> CellResult:
    """Simulate ``cell.experiments`` experiments and tally the verdicts and interval coverage."""
    rng = np.random.default_rng(seed)
    result = CellResult(cell)
    for index in range(cell.experiments):
        comparisons = verdicts_of(simulated_runs(cell, rng, f"sim{index:05d}"), settings)
        result.verdicts.update(c.verdict for c in comparisons)
        result.experiments_with_effect += any(c.verdict == "effect" for c in comparisons)
        for comparison in comparisons:
            _tally_interval(result, comparison, cell.true_diff * SCALE)
    return result


def _tally_interval(result: CellResult, comparison: Comparison, truth: float) -> None:
    if comparison.ci_low is not None:
        result.intervals += 1
        result.covered += comparison.ci_low <= truth <= comparison.ci_high


def verdicts_of(runs: list[Run], settings: Settings | None = None) -> list[Comparison]:
    """The comparisons ``rgt verify`` makes of these runs (no run is suspect: clean runs)."""
    experiments, _ = group_experiments(tuple(runs))
    return [c for experiment in experiments
            for c in compare_experiment(experiment, {}, settings or Settings())]


def simulated_runs(cell: Cell, rng: np.random.Generator, exp_id: str) -> list[Run]:
    """One experiment's runs: the baseline and ``cell.candidates`` candidates, n seeds each."""
    draw = DISTRIBUTIONS[cell.distribution]
    shared = draw(rng, cell.n)  # what a seed contributes to every variant (paired designs)
    weight = math.sqrt(cell.seed_correlation)
    runs = []
    for index, variant in enumerate(["baseline"] + [f"cand{k}" for k in range(cell.candidates)]):
        own = draw(rng, cell.n)
        noise = weight * shared + math.sqrt(1 - cell.seed_correlation) * own
        shift = 0.0 if index == 0 else cell.true_diff
        for seed in range(cell.n):
            value = LEVEL + SCALE * (noise[seed] + shift)
            runs.append(run_from_documents(landed_documents(exp_id, variant, seed, value)))
    return runs


def landed_documents(exp_id: str, variant: str, seed: int, value: float) -> dict[str, dict]:
    """``run.json``, ``results.json`` and ``config.yaml`` of a finished run, as they land."""
    run_id = f"{exp_id}-{variant}-{seed}"
    overrides = {} if variant == "baseline" else {"model": {"variant": variant}}
    meta = {"schema": "rgt/run/v1", "run_id": run_id, "exp_id": exp_id, "variant": variant,
            "seed": seed, "baseline_variant": "baseline", "variant_overrides": overrides,
            "status": "finished", "selected_step": 1}
    results = {"schema": "rgt/results/v1", "run_id": run_id, "exp_id": exp_id,
               "variant": variant, "seed": seed,
               "metrics": [{"name": METRIC, "split": "test", "value": float(value), "n": 1000,
                            "direction": "higher"}],
               "selection": {"metric": METRIC, "split": "val", "step": 1}}
    config = {"model": {"variant": "baseline", **overrides.get("model", {})},
              "run": {"exp_id": exp_id, "variant": variant, "seed": seed}}
    return {"run.json": meta, "results.json": results, "config.yaml": config}


def write_landed(runs_dir: Path, runs: list[Run]) -> None:
    """Write ``runs`` as finished run directories ``rgt verify`` audits (with a small
    ``predictions.parquet``: the simulated metric has no predictions-based check)."""
    rows = pa.table({"split": ["val", "test"], "sample_id": [0, 0], "label": [0, 1],
                     "prediction": [0, 1], "scores": [[0.9, 0.1], [0.1, 0.9]]})
    for run in runs:
        run_dir = runs_dir / run.run_id
        run_dir.mkdir(parents=True)
        (run_dir / "run.json").write_text(json.dumps(run.meta))
        (run_dir / "results.json").write_text(json.dumps(run.results))
        (run_dir / "config.yaml").write_text(yaml.safe_dump(run.config))
        pq.write_table(rows, run_dir / "predictions.parquet")


def run_from_documents(documents: dict[str, dict], root: Path = Path("runs")) -> Run:
    """The ``Run`` that ``load_runs`` builds from these documents."""
    meta = documents["run.json"]
    return Run(run_id=meta["run_id"], path=root / meta["run_id"], meta=meta,
               results=documents["results.json"], config=documents["config.yaml"])
