"""Sealing a run of the plain-loop API: the same run directory ``rgt train`` leaves, written from
what the user's loop reports — ``results.json``, ``train.csv``, ``predictions.parquet`` (compact
per-sample records), ``model.pt``, ``config.yaml`` and ``run.json`` last.

The identity fields of ``run.json`` (experiment, variant, seed, baseline, hashes) come from the
record rgt writes for a training job (``RGT_RUN_RECORD``) and the resolved config
(``RGT_CONFIG``); a script run by hand gets a record with its run id alone.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from rgt.base import files
from rgt.base.clock import utc_now
from rgt.base.environment import git_state, package_versions
from rgt.base.errors import DataError
from rgt.base.files import read_json
from rgt.base.hashing import state_dict_sha256
from rgt.plan.sealed import file_seals
from rgt.train.platform import job_device, platform_record
from rgt.train.tensorboard import write_scalars

ENV_RUN_RECORD, ENV_CONFIG = "RGT_RUN_RECORD", "RGT_CONFIG"
DIRECTIONS = ("higher", "lower")
RESULTS_SCHEMA = "rgt/results/v1"


def seal_plain_run(run_dir: Path, run_id: str, metrics: dict, history: list[dict],
                   per_sample: dict | None, weights: dict | None, *, attempts: int,
                   steps: int) -> dict:
    """Write the run directory, ``run.json`` last; return the run record."""
    entries = metric_entries(metrics)
    run_dir.mkdir(parents=True, exist_ok=True)
    base = read_json(Path(os.environ[ENV_RUN_RECORD])) if os.environ.get(ENV_RUN_RECORD) else {}
    identity = {key: base.get(key) for key in ("exp_id", "variant", "seed")}
    files.write_json(run_dir / "results.json", {"schema": RESULTS_SCHEMA, "run_id": run_id,
                                                **identity, "metrics": entries})
    files.write_text(run_dir / "train.csv", history_csv(history))
    write_scalars(run_dir, history)
    if per_sample:
        write_per_sample(run_dir / "predictions.parquet", per_sample)
    record = {**base, "schema": "rgt/run/v1", "run_id": run_id, "status": "finished",
              "steps": steps, "attempts": attempts, "ended_at": utc_now(),
              "packages": package_versions(), "per_sample": bool(per_sample),
              "platform": platform_record(job_device())}
    if weights is not None:
        record["weights_sha256"] = _save_weights(run_dir / "model.pt", weights)
    commit, dirty = git_state()
    record.setdefault("code_commit", commit)
    record.setdefault("code_dirty", dirty)
    _write_config(run_dir / "config.yaml")
    record["files"] = file_seals(run_dir)
    files.write_json(run_dir / "run.json", record)
    return record


def metric_entries(metrics: dict) -> list[dict]:
    """``results.json`` entries — a metric's spec, or a list of them (one per split); a metric
    without a direction or value is a ``DataError``."""
    if not isinstance(metrics, dict) or not metrics:
        raise DataError("run.finish() got no metrics",
                        "pass {'name': {'value': v, 'split': 'test', 'direction': 'lower'}}")
    return [_entry(name, spec) for name, specs in sorted(metrics.items())
            for spec in (specs if isinstance(specs, list) else [specs])]


def _entry(name: str, spec: object) -> dict:
    if not isinstance(spec, dict) or not isinstance(spec.get("value"), (int, float)):
        raise DataError(f"metric {name!r}: {spec!r} has no numeric 'value'",
                        f"pass {name!r}: {{'value': v, 'split': 'test', 'direction': ...}}")
    if spec.get("direction") not in DIRECTIONS:
        raise DataError(f"metric {name!r} has direction {spec.get('direction')!r}",
                        "say whether more is better: 'direction': 'higher' or 'lower'")
    n = spec.get("n")
    return {"name": name, "split": str(spec.get("split", "test")), "value": float(spec["value"]),
            "direction": spec["direction"], "n": None if n is None else int(n)}


def history_csv(history: list[dict]) -> str:
    """``train.csv``: one row per logged step, columns in order of first appearance."""
    columns = list(dict.fromkeys(key for row in history for key in row))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns or ["step"], lineterminator="\n")
    writer.writeheader()
    for row in history:
        writer.writerow({key: repr(value) if isinstance(value, float) else value
                         for key, value in row.items()})
    return buffer.getvalue()


def write_per_sample(path: Path, per_sample: dict) -> None:
    """``predictions.parquet``: ``split``, ``sample_id`` and the given per-sample columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = [_split_table(split, columns) for split, columns in sorted(per_sample.items())]
    table = pa.concat_tables(tables, promote_options="default")
    with files.atomic_open(path, "wb") as handle:
        pq.write_table(table, handle)


def _split_table(split: str, columns: dict):
    import numpy as np
    import pyarrow as pa

    arrays = {name: np.asarray(values) for name, values in columns.items()}
    lengths = {name: len(values) for name, values in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise DataError(f"per-sample records of split {split!r} have different lengths "
                        f"{lengths}", "give every column one value per sample")
    rows = next(iter(lengths.values()), 0)
    return pa.table({"split": [split] * rows, "sample_id": np.arange(rows),
                     **{name: array for name, array in arrays.items()}})


def _save_weights(path: Path, weights: dict) -> str:
    import torch

    with files.atomic_open(path, "wb") as handle:
        torch.save(weights, handle)
    return state_dict_sha256(weights)


def _write_config(path: Path) -> None:
    source = os.environ.get(ENV_CONFIG)
    text = Path(source).read_text(encoding="utf-8") if source else "{}\n"
    files.write_text(path, text)

