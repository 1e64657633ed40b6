"""What a curve figure is drawn from: the scalars each run logged while training.

Every sealed run keeps its history in ``train.csv`` (one row per logged step: ``run.log(step,
**scalars)`` of the plain-loop API, one row per epoch for ``rgt train``). The aggregate copies the
series of the scalars the config's curves name — ``{metric: [{exp_id, variant, seed, run_id,
step, value}]}`` with every ``train.csv`` it read by sha256 — so the curves' source data, like
the bars', is a function of ``evidence/results.json`` alone and ``dvc repro`` needs no run.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from rgt.deliver.inputs import DeliveryError, file_record
from rgt.deliver.spec import FigureSpec

HISTORY_FILE = "train.csv"


def build_histories(results: list[tuple[Path, dict]], curves: dict[str, FigureSpec]) -> dict:
    """The aggregate's ``histories`` section for ``curves`` (figure id -> spec): each run's
    series of every scalar a curve names; a curve no run of its experiment logged (or logged at
    no step) is a ``DeliveryError`` naming the figure's field."""
    metrics = sorted({spec.metric for spec in curves.values()})
    series: dict[str, list[dict]] = {metric: [] for metric in metrics}
    inputs, logged = [], {}
    for results_path, result in results:
        path = results_path.parent / HISTORY_FILE
        if not path.is_file():
            continue
        inputs.append(file_record(path))
        columns, rows = read_history(path)
        logged.setdefault(result["exp_id"], set()).update(columns)
        for metric in metrics:
            if metric in columns:
                series[metric].append({**_identity(result), **scalar_series(rows, metric, path)})
    for fig_id, spec in sorted(curves.items()):
        _require_steps(fig_id, spec, series[spec.metric], logged.get(spec.experiment, set()))
    return {"inputs": inputs,
            "series": {metric: sorted(entries, key=_order) for metric, entries in series.items()}}


def _identity(result: dict) -> dict:
    return {key: result[key] for key in ("exp_id", "variant", "seed", "run_id")}


def _order(entry: dict) -> tuple:
    return entry["exp_id"], entry["variant"], entry["seed"], entry["run_id"]


def read_history(path: Path) -> tuple[list[str], list[dict]]:
    """The column names and rows of a run's ``train.csv``."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
        return list(reader.fieldnames or []), rows


def scalar_series(rows: list[dict], metric: str, path: Path) -> dict:
    """``{"step": [...], "value": [...]}`` of the rows that logged ``metric``, by step; a step
    logged twice keeps its last value (what the run ended with at that step)."""
    by_step: dict[int, float] = {}
    for row in rows:
        text = (row.get(metric) or "").strip()
        if text:
            by_step[int(_finite(row.get("step"), "step", path))] = _finite(text, metric, path)
    steps = sorted(by_step)
    return {"step": steps, "value": [by_step[step] for step in steps]}


def _finite(text: str | None, column: str, path: Path) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not math.isfinite(value):
        raise DeliveryError(f"{path}: column {column!r} holds {text!r}, not a finite number",
                            fix="log finite numbers at integer steps: run.log(step, name=value)")
    return value


def _require_steps(fig_id: str, spec: FigureSpec, entries: list[dict], logged: set[str]) -> None:
    mine = [entry for entry in entries if entry["exp_id"] == spec.experiment]
    field = f"figures.{fig_id}.metric = {spec.metric!r}"
    if not mine:
        columns = ", ".join(sorted(logged - {"step"})) or "none"
        raise DeliveryError(
            f"{field}: no run of experiment {spec.experiment!r} logged it while training "
            f"(their {HISTORY_FILE} columns: {columns})",
            fix=f"name one of those columns, or log it in your loop: "
                f"run.log(step, {spec.metric}=value)")
    if not any(entry["step"] for entry in mine):
        raise DeliveryError(
            f"{field}: the runs of experiment {spec.experiment!r} have the column but logged no "
            "step with a value, so the curve would be empty",
            fix=f"log it at least once: run.log(step, {spec.metric}=value)")
