"""``evidence/results.json``: every finished run's metrics, grouped and summarised over seeds.

Generated, never typed: the file is a pure function of the ``results.json`` files it lists in
``inputs`` (with their sha256), written with sorted keys so equal inputs give equal bytes. When
the config draws curves, ``histories`` adds the scalars they name from each run's ``train.csv``
(listed with their sha256 too; rgt.deliver.histories).
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Collection
from pathlib import Path

from rgt.base.errors import RunStateError
from rgt.base.files import write_json
from rgt.deliver.histories import build_histories
from rgt.deliver.inputs import DeliveryError, file_record, read_document
from rgt.deliver.spec import FigureSpec
from rgt.plan.rundirs import run_directories

AGGREGATE_SCHEMA = "rgt/aggregate/v1"
RESULTS_SCHEMA = "rgt/results/v1"
DIRECTIONS = ("higher", "lower")
RESULT_FIELDS = ("run_id", "exp_id", "variant", "seed", "metrics")
METRIC_FIELDS = ("name", "split", "value", "n", "direction")


def collect_results(runs_dir: str | Path, only: Collection[str] | None = None
                    ) -> tuple[list[tuple[Path, dict]], list[dict]]:
    """Results of every finished, evaluated run under ``runs_dir``, and the runs left out.

    A run is left out (with its reason) when it has not finished or has no ``results.json``.
    """
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        raise DeliveryError(f"{runs_dir}: no such runs directory", fix="pass --runs DIR")
    results, skipped = [], []
    for run_json in [d / "run.json" for d in run_directories(runs_dir, only)
                     if (d / "run.json").is_file()]:
        run = _read_json(run_json)
        results_path = run_json.parent / "results.json"
        if run.get("status") != "finished":
            skipped.append(
                {"run_id": run_json.parent.name, "reason": f"status {run.get('status')}"}
            )
        elif not results_path.is_file():
            skipped.append({"run_id": run_json.parent.name, "reason": "not evaluated"})
        else:
            results.append((results_path, _read_results(results_path, run)))
    return results, skipped


def _read_json(path: Path) -> dict:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise RunStateError(
            f"{path}: unreadable ({error})", fix="re-pull or rerun this run"
        ) from error
    if not isinstance(document, dict):
        raise RunStateError(f"{path}: not a JSON object", fix="re-pull or rerun this run")
    return document


def _read_results(path: Path, run: dict) -> dict:
    results = read_document(path, RESULTS_SCHEMA, "rgt evaluate")
    _require_fields(path, results, RESULT_FIELDS)
    for metric in results["metrics"]:
        _require_fields(path, metric, METRIC_FIELDS)
    if results.get("run_id") != run.get("run_id"):
        raise RunStateError(
            f"{path}: run_id {results.get('run_id')!r} differs from "
            f"run.json's {run.get('run_id')!r}",
            fix="re-evaluate the run: `rgt evaluate`",
        )
    return results


def _require_fields(path: Path, record: object, fields: tuple[str, ...]) -> None:
    missing = [name for name in fields if not isinstance(record, dict) or name not in record]
    if missing:
        raise RunStateError(
            f"{path}: missing field(s) {', '.join(missing)} (schema {RESULTS_SCHEMA})",
            fix="re-evaluate the run: `rgt evaluate`",
        )


def group_values(results: list[tuple[Path, dict]]) -> dict:
    """``{exp_id: {variant: {"metric/split": {metric, split, direction, values}}}}``."""
    experiments: dict = {}
    for path, result in results:
        variants = experiments.setdefault(result["exp_id"], {})
        cells = variants.setdefault(result["variant"], {})
        for metric in result["metrics"]:
            cell = cells.setdefault(
                f"{metric['name']}/{metric['split']}",
                {
                    "metric": metric["name"],
                    "split": metric["split"],
                    "direction": None,
                    "values": [],
                },
            )
            _add_value(cell, metric, result, path)
    return experiments


def _add_value(cell: dict, metric: dict, result: dict, path: Path) -> None:
    direction = metric.get("direction")
    if direction not in DIRECTIONS or cell["direction"] not in (None, direction):
        raise RunStateError(
            f"{path}: metric {metric['name']} has direction {direction!r}, "
            f"expected one of {DIRECTIONS} and the same in every run",
            fix="re-evaluate the runs with one metric definition",
        )
    cell["direction"] = direction
    for other in cell["values"]:
        if other["seed"] == result["seed"]:
            raise RunStateError(
                f"runs {other['run_id']} and {result['run_id']} are both seed {result['seed']} of "
                f"{result['exp_id']}/{result['variant']} (one is stale: config or code changed)",
                fix="move the stale run out of the runs directory before aggregating",
            )
    cell["values"].append(
        {
            "seed": result["seed"],
            "run_id": result["run_id"],
            "value": metric["value"],
            "n": metric["n"],
        }
    )


def summarize(cell: dict) -> dict:
    """Add ``mean``, ``std`` (ddof=1; null for one seed) and ``n_seeds``; sort values by seed."""
    values = sorted(cell["values"], key=lambda row: row["seed"])
    numbers = [row["value"] for row in values]
    std = statistics.stdev(numbers) if len(numbers) > 1 else None
    return {
        **cell,
        "values": values,
        "mean": math.fsum(numbers) / len(numbers),
        "std": std,
        "n_seeds": len(numbers),
    }


def build_aggregate(runs_dir: str | Path, only: Collection[str] | None = None,
                    curves: dict[str, FigureSpec] | None = None,
                    report_splits: dict[str, str] | None = None) -> dict:
    """The ``rgt/aggregate/v1`` document for ``runs_dir`` (see docs/contracts.md), with the
    logged scalars of ``curves`` (figure id -> spec) when there are any, and the metrics
    declared on a split other than test (``report_splits``: metric -> split) when any is."""
    results, skipped = collect_results(runs_dir, only)
    if not results:
        raise DeliveryError(
            f"{runs_dir}: no finished run with a results.json",
            fix="train and evaluate first: `rgt train`, then `rgt evaluate`",
        )
    experiments = {
        exp_id: {
            variant: {key: summarize(cell) for key, cell in cells.items()}
            for variant, cells in variants.items()
        }
        for exp_id, variants in group_values(results).items()
    }
    inputs = [file_record(path) for path, _ in results]
    document = {
        "schema": AGGREGATE_SCHEMA,
        "experiments": experiments,
        "inputs": inputs,
        "runs": run_identities(path for path, _ in results),
        "skipped": skipped,
    }
    if curves:
        document["histories"] = build_histories(results, curves)
    if report_splits:
        document["report_splits"] = dict(sorted(report_splits.items()))
    return document


def incomplete_cells(aggregate: dict) -> list[str]:
    """A line per metric cell over fewer runs than its variant has (a run whose results.json
    lacks that metric): what the variant's number is over, and which runs are missing."""
    lines = []
    for exp_id, variants in sorted(aggregate["experiments"].items()):
        for variant, cells in sorted(variants.items()):
            runs = {row["run_id"] for cell in cells.values() for row in cell["values"]}
            for key, cell in sorted(cells.items()):
                missing = sorted(runs - {row["run_id"] for row in cell["values"]})
                if missing:
                    lines.append(f"{exp_id}/{variant} {key} is over n = {cell['n_seeds']}/"
                                 f"{len(runs)} seeds: no {key} in run(s) {', '.join(missing)}")
    return lines


IDENTITY_FIELDS = ("code_sha256", "data_sha256", "split_sha256")


def run_identities(results_paths) -> dict[str, dict]:
    """Per run id, the hashes of the code and data that decided it and the platform it was
    made on (from its run.json): what a figure's provenance and the evidence's ``made_on``
    name."""
    identities = {}
    for path in results_paths:
        run = _read_json(path.parent / "run.json")
        identities[str(run.get("run_id"))] = {
            **{key: run.get(key) for key in IDENTITY_FIELDS},
            "platform": platform_summary(run.get("platform"))}
    return dict(sorted(identities.items()))


def platform_summary(platform: object) -> dict | None:
    """The facts of a run's ``platform`` block (rgt.train.platform) a reader compares: None for
    a run sealed before platforms were recorded."""
    if not isinstance(platform, dict) or not platform.get("fingerprint"):
        return None
    cpu, build = platform.get("cpu") or {}, platform.get("build") or {}
    return {"fingerprint": platform["fingerprint"], "cpu": cpu.get("model"),
            "capability": build.get("capability"), "torch": build.get("torch"),
            "blas": build.get("blas"), "threads": (platform.get("threads") or {}).get("intra_op"),
            "device": platform.get("gpu") or platform.get("device")}


def write_aggregate(runs_dir: str | Path, out: str | Path, only: Collection[str] | None = None,
                    curves: dict[str, FigureSpec] | None = None,
                    report_splits: dict[str, str] | None = None) -> dict:
    """Build the aggregate of ``runs_dir`` and write it atomically to ``out``."""
    aggregate = build_aggregate(runs_dir, only, curves, report_splits)
    write_json(out, aggregate)
    return aggregate
