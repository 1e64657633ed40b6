"""Builders of synthetic run directories for the ``rgt verify`` tests (no tests here).

Each run's ``results.json`` is computed from the ``predictions.parquet`` written beside it, so a
run is consistent unless a test tampers with it on purpose.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from rgt.config import merge  # noqa: F401  (re-exported for the verify tests)

BASE_CONFIG = {"model": {"dropout": 0.0, "hidden": 32}, "optim": {"lr": 0.01}, "epochs": 5}
N_CLASSES = 4


def split_predictions(accuracy: float, n: int, collapse: bool = False) -> dict:
    """Labels cycling over the classes; the first round(accuracy*n) predictions are right."""
    labels = np.arange(n) % N_CLASSES
    correct = round(accuracy * n)
    predictions = np.where(np.arange(n) < correct, labels, (labels + 1) % N_CLASSES)
    if collapse:
        predictions = np.zeros(n, dtype=np.int64)
    scores = np.full((n, N_CLASSES), 0.3 / (N_CLASSES - 1), dtype=np.float32)
    scores[np.arange(n), predictions] = 0.7
    return {"label": labels, "prediction": predictions, "scores": scores}


def metrics_from(split: str, rows: dict, direction: str | None = "higher") -> list[dict]:
    """accuracy and loss entries exactly as re-derivation computes them."""
    n = len(rows["label"])
    accuracy = float(np.mean(rows["prediction"] == rows["label"]))
    picked = rows["scores"][np.arange(n), rows["label"]].astype(np.float64)
    loss = float(np.mean(-np.log(picked)))
    accuracy_entry = {"name": "accuracy", "split": split, "value": accuracy, "n": n}
    if direction is not None:
        accuracy_entry["direction"] = direction
    return [accuracy_entry,
            {"name": "loss", "split": split, "value": loss, "n": n, "direction": "lower"}]


def write_run(runs_dir: Path, run_id: str, *, test_accuracy: float, exp_id: str = "exp",
              variant: str = "baseline", seed: int = 0, baseline: str = "baseline",
              overrides: dict | None = None, extra_config: dict | None = None, n: int = 1000,
              status: str = "finished", selection_split: str = "val", selected_step: int = 10,
              evaluated_step: int | None = None, collapse: bool = False,
              direction: str | None = "higher", tamper: dict | None = None,
              meta: dict | None = None) -> Path:
    """Write a complete ``runs/<run_id>/``; ``tamper`` maps (metric, split) -> stored value;
    ``meta`` adds keys to ``run.json``."""
    run_dir = runs_dir / run_id
    run_dir.mkdir(parents=True)
    overrides = overrides or {}
    config = merge(merge(BASE_CONFIG, overrides), extra_config or {}) | {"seed": seed}
    splits = {"val": split_predictions(0.5, 200),
              "test": split_predictions(test_accuracy, n, collapse)}
    metrics = [m for split, rows in splits.items() for m in metrics_from(split, rows, direction)]
    for entry in metrics:
        entry["value"] = (tamper or {}).get((entry["name"], entry["split"]), entry["value"])
    meta = {"schema": "rgt/run/v1", "run_id": run_id, "exp_id": exp_id, "variant": variant,
            "seed": seed, "baseline_variant": baseline, "variant_overrides": overrides,
            "status": status, "selected_step": selected_step} | (meta or {})
    results = {"schema": "rgt/results/v1", "run_id": run_id, "exp_id": exp_id,
               "variant": variant, "seed": seed, "metrics": metrics,
               "selection": {"metric": "accuracy", "split": selection_split,
                             "step": selected_step if evaluated_step is None else evaluated_step}}
    (run_dir / "run.json").write_text(json.dumps(meta))
    (run_dir / "results.json").write_text(json.dumps(results))
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config))
    write_predictions(run_dir / "predictions.parquet", splits)
    return run_dir


def write_predictions(path: Path, splits: dict) -> None:
    """``predictions.parquet`` with the contract's columns and types."""
    columns = {"split": [], "sample_id": [], "label": [], "prediction": [], "scores": []}
    for split, rows in splits.items():
        columns["split"] += [split] * len(rows["label"])
        columns["sample_id"] += list(range(len(rows["label"])))
        columns["label"] += rows["label"].tolist()
        columns["prediction"] += rows["prediction"].tolist()
        columns["scores"] += rows["scores"].tolist()
    schema = pa.schema([("split", pa.string()), ("sample_id", pa.int64()), ("label", pa.int64()),
                        ("prediction", pa.int64()), ("scores", pa.list_(pa.float32()))])
    pq.write_table(pa.table(columns, schema=schema), path)


def write_variant(runs_dir: Path, variant: str, accuracies: list[float], **kwargs) -> None:
    """One run per seed of ``variant`` with the given test accuracies."""
    for seed, accuracy in enumerate(accuracies):
        write_run(runs_dir, f"{kwargs.get('exp_id', 'exp')}-{variant}-{seed}",
                  test_accuracy=accuracy, variant=variant, seed=seed, **kwargs)


def assert_close(a: float, b: float) -> None:
    """Equal to 12 significant digits."""
    assert math.isclose(a, b, rel_tol=1e-12), (a, b)


LM_VOCAB = 500


def lm_predictions(n: int, seed: int, informative: float = 0.2) -> dict:
    """Next-token outputs of a small language model over a Zipf-distributed vocabulary: the
    argmax is always the most frequent token (as with a small LM), but ``informative`` of the
    probability mass sits on the true token, so the probabilities follow the input."""
    rng = np.random.default_rng(seed)
    marginal = 1 / np.arange(1, LM_VOCAB + 1)
    marginal /= marginal.sum()
    labels = rng.choice(LM_VOCAB, size=n, p=marginal)
    scores = np.tile((1 - 0.5 - informative) * marginal, (n, 1))
    scores[:, 0] += 0.5
    scores[np.arange(n), labels] += informative
    return {"label": labels, "prediction": scores.argmax(axis=1),
            "scores": scores.astype(np.float32)}


def lm_metrics(split: str, rows: dict) -> list[dict]:
    """loss (nats) and perplexity, lower is better, as re-derivation computes them."""
    n = len(rows["label"])
    nll = -np.log(rows["scores"][np.arange(n), rows["label"]].astype(np.float64))
    return [{"name": "loss", "split": split, "value": float(nll.mean()), "n": n,
             "direction": "lower"},
            {"name": "perplexity", "split": split, "value": float(np.exp(nll.mean())), "n": n,
             "direction": "lower"}]


def write_lm_run(runs_dir: Path, variant: str, seed: int, informative: float,
                 with_accuracy: bool = False, records: str = "full") -> Path:
    """A finished language-model run (loss and perplexity; accuracy too when asked). Its
    per-sample records are ``full`` (scores), ``compact`` (label + nll) or ``none``."""
    run_id = f"lm-{variant}-{seed}"
    run_dir = runs_dir / run_id
    run_dir.mkdir(parents=True)
    splits = {split: lm_predictions(400, 10 * seed + index, informative)
              for index, split in enumerate(("val", "test"))}
    metrics = [m for split, rows in splits.items() for m in lm_metrics(split, rows)]
    if with_accuracy:
        metrics += [m for split, rows in splits.items() for m in metrics_from(split, rows)
                    if m["name"] == "accuracy"]
    overrides = {"model": {"dropout": 0.3}} if variant == "dropout" else {}
    meta = {"schema": "rgt/run/v1", "run_id": run_id, "exp_id": "lm", "variant": variant,
            "seed": seed, "baseline_variant": "baseline", "variant_overrides": overrides,
            "status": "finished", "selected_step": 10}
    results = {"schema": "rgt/results/v1", "run_id": run_id, "exp_id": "lm", "variant": variant,
               "seed": seed, "metrics": metrics,
               "selection": {"metric": "loss", "split": "val", "step": 10}}
    (run_dir / "run.json").write_text(json.dumps(meta))
    (run_dir / "results.json").write_text(json.dumps(results))
    config = merge(BASE_CONFIG, overrides) | {"seed": seed}
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config))
    if records == "full":
        write_predictions(run_dir / "predictions.parquet", splits)
    elif records == "compact":
        write_compact(run_dir / "predictions.parquet", splits)
    return run_dir


def write_compact(path: Path, splits: dict) -> None:
    """``predictions.parquet`` in the compact form: split, sample_id, label, nll."""
    columns = {"split": [], "sample_id": [], "label": [], "nll": []}
    for split, rows in splits.items():
        n = len(rows["label"])
        columns["split"] += [split] * n
        columns["sample_id"] += list(range(n))
        columns["label"] += rows["label"].tolist()
        columns["nll"] += (-np.log(rows["scores"][np.arange(n), rows["label"]]
                                   .astype(np.float64))).tolist()
    pq.write_table(pa.table(columns), path)
