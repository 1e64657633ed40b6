"""Synthetic finished runs and a verify report, delivered through the real verbs.

Two variants of experiment ``digits`` (``plain``: 2 seeds, ``dropout``: 3 seeds) with test
accuracy and test loss, and one verify comparison, so that every claim kind exists.
"""

from __future__ import annotations

import json
import math
import shutil
import statistics
from pathlib import Path

from rgt.cli import main

ACCURACY = {("plain", 0): 0.951, ("plain", 1): 0.962,
            ("dropout", 0): 0.973, ("dropout", 1): 0.9712345678901234, ("dropout", 2): 0.968}
LOSS = {("plain", 0): 0.20, ("plain", 1): 0.22,
        ("dropout", 0): 0.15, ("dropout", 1): 0.16, ("dropout", 2): 0.14}


def mean(variant: str, table: dict = ACCURACY) -> float:
    """The mean over seeds exactly as ``rgt aggregate`` computes it."""
    values = [value for (name, _), value in sorted(table.items()) if name == variant]
    return math.fsum(values) / len(values)


def write_runs(runs: Path, accuracy: dict = ACCURACY) -> None:
    """One sealed, evaluated run directory per (variant, seed)."""
    for (variant, seed), value in accuracy.items():
        run_id = f"{variant}-{seed}"
        identity = {"run_id": run_id, "exp_id": "digits", "variant": variant, "seed": seed}
        (runs / run_id).mkdir(parents=True, exist_ok=True)
        (runs / run_id / "run.json").write_text(
            json.dumps({**identity, "status": "finished", "host_audit": None}))
        metrics = [
            {"name": "accuracy", "split": "test", "value": value, "n": 270, "direction": "higher"},
            {"name": "loss", "split": "test", "value": LOSS[variant, seed], "n": 270,
             "direction": "lower"},
        ]
        (runs / run_id / "results.json").write_text(
            json.dumps({"schema": "rgt/results/v1", **identity, "metrics": metrics}))


def comparison() -> dict:
    """dropout vs plain on test accuracy, as ``rgt verify`` writes it."""
    plain = [ACCURACY["plain", s] for s in (0, 1)]
    dropout = [ACCURACY["dropout", s] for s in (0, 1, 2)]
    diff = mean("dropout") - mean("plain")
    return {"exp_id": "digits", "baseline": "plain", "candidate": "dropout",
            "variable": "model.dropout", "metric": "accuracy", "split": "test",
            "direction": "higher", "n_baseline": 2, "n_candidate": 3,
            "mean_baseline": mean("plain"), "mean_candidate": mean("dropout"),
            "std_baseline": statistics.stdev(plain), "std_candidate": statistics.stdev(dropout),
            "diff": diff, "ci_low": diff - 0.01, "ci_high": diff + 0.01, "mde": 0.02,
            "verdict": "underpowered"}


def write_verify(path: Path) -> None:
    """A verify report with the comparison and no findings."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"schema": "rgt/verify/v1", "comparisons": [comparison()],
                                "findings": []}))


def deliver(project: Path, claims: str | None = None) -> dict:
    """Runs -> aggregate -> evidence through ``rgt``'s own entry point; the evidence document.

    Paths are relative: call with ``project`` as the working directory.
    """
    write_runs(project / "runs")
    write_verify(project / "verify" / "report.json")
    assert main(["aggregate", "--runs", "runs", "--out", "evidence/results.json"]) == 0
    extra = ["--claims", claims] if claims else []
    assert main(["evidence", "--aggregate", "evidence/results.json", "--verify",
                 "verify/report.json", "--figures-dir", "figures",
                 "--out", "evidence/EVIDENCE.json", *extra]) == 0
    return json.loads((project / "evidence" / "EVIDENCE.json").read_text())


def synthetic_project(project: Path, root: Path, config: Path, names: tuple[str, ...]) -> Path:
    """``project`` with ``names`` copied from ``root``, ``config`` as its config, synthetic runs
    and a verify report (aggregate them next), and a claims file for these runs (the shipped
    one names the bundled example's claims)."""
    for name in names:
        source = root / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, project / name)
    (project / "config").mkdir()
    shutil.copy(config, project / "config" / "config.yaml")
    (project / "evidence").mkdir()
    (project / "evidence" / "claims.yaml").write_text("tolerances: {accuracy: 0.0}\n")
    write_runs(project / "runs")
    write_verify(project / "verify" / "report.json")
    return project
