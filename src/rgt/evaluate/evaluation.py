"""Evaluate a run directory: ``results.json`` and ``predictions.parquet`` from ``model.pt``.

Works on any sealed run directory (it reads the run's own resolved ``config.yaml``), so runs
pulled back from a rented machine are evaluated the same way as local ones.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import torch
import yaml

from rgt.base import files
from rgt.base.errors import RunStateError
from rgt.base.files import read_json
from rgt.config import RunSettings, Settings, validated
from rgt.data import load_dataset, make_split, split_sha256
from rgt.models import build_model
from rgt.train.determinism import configure
from rgt.train.scoring import DIRECTIONS, Scores, score
from rgt.train.trainer import split_tensors

EVAL_SPLITS = ("val", "test")


def evaluate_run(run_dir: Path) -> dict:
    """Score the run's selected weights on val and test; write results and predictions."""
    record = _finished_record(run_dir)
    settings = sealed_settings(run_dir)
    configure(settings.train.threads)
    dataset = load_dataset(settings.data)
    split = make_split(dataset, settings.data.split)
    if split_sha256(split) != record["split_sha256"]:
        raise RunStateError(f"the split rebuilt for {run_dir} differs from the one it trained on",
                            "the dataset or split code changed: retrain this run")
    model = build_model(settings.model, dataset.input_shape, dataset.num_classes)
    model.load_state_dict(torch.load(run_dir / "model.pt", weights_only=True))
    scores = {name: (split[name], score(model, *split_tensors(dataset, split[name])))
              for name in EVAL_SPLITS}
    write_predictions(run_dir / "predictions.parquet", scores, dataset)
    results = results_document(record, settings, {name: s for name, (_, s) in scores.items()})
    files.write_json(run_dir / "results.json", results)
    return results


def _finished_record(run_dir: Path) -> dict:
    record = read_json(run_dir / "run.json")
    if not record or record.get("status") != "finished":
        raise RunStateError(f"{run_dir} is not a finished run (no finished run.json)",
                            "train it first: `rgt train --run-id <id>`")
    return record


def sealed_settings(run_dir: Path) -> RunSettings:
    """The resolved settings a sealed run trained with (its ``config.yaml``), validated."""
    return validated(RunSettings, yaml.safe_load((run_dir / "config.yaml").read_text()),
                     str(run_dir / "config.yaml"))


def results_document(record: dict, settings: Settings, scores: dict[str, Scores]) -> dict:
    """The ``results.json`` content (schema ``rgt/results/v1``)."""
    metrics = [{"name": name, "split": split, "value": split_scores.metric(name),
                "n": split_scores.n, "direction": direction}
               for split, split_scores in scores.items()
               for name, direction in DIRECTIONS.items()]
    return {"schema": "rgt/results/v1", "run_id": record["run_id"], "exp_id": record["exp_id"],
            "variant": record["variant"], "seed": record["seed"], "metrics": metrics,
            "selection": {"metric": settings.selection.metric,
                          "split": settings.selection.split,
                          "step": record["selected_step"]}}


def write_predictions(path: Path, scores: dict, dataset) -> None:
    """One row per val/test sample: split, sample id, label, prediction, class scores."""
    columns = {"split": [], "sample_id": [], "label": [], "prediction": [], "scores": []}
    for split_name, (ids, split_scores) in scores.items():
        labels = split_tensors(dataset, ids)[1]
        columns["split"] += [split_name] * len(ids)
        columns["sample_id"] += [int(i) for i in ids]
        columns["label"] += labels.tolist()
        columns["prediction"] += split_scores.predictions.tolist()
        columns["scores"] += split_scores.probabilities.tolist()
    schema = pa.schema([("split", pa.string()), ("sample_id", pa.int64()), ("label", pa.int64()),
                        ("prediction", pa.int64()), ("scores", pa.list_(pa.float32()))])
    with files.atomic_open(path) as handle:
        pq.write_table(pa.table(columns, schema=schema), handle)
