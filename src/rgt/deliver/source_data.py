"""``figures/<fig>/source_data.csv``: the rows a figure is drawn from, at full precision — a
bar's one row per run, a curve's one row per run and logged step (long format).

Values are written as the shortest text that reads back to the same float (pandas, like
``repr``), so that ``float(text) == value`` exactly; rounding happens only when a figure or a
sentence is rendered.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from rgt.base.files import write_text
from rgt.deliver.aggregate import AGGREGATE_SCHEMA
from rgt.deliver.inputs import DeliveryError, read_document
from rgt.deliver.spec import FigureSpec

COLUMNS = ("exp_id", "variant", "seed", "run_id", "metric", "split", "value", "n", "direction")
TYPES = {"exp_id": str, "variant": str, "seed": int, "run_id": str, "metric": str,
         "split": str, "value": float, "n": int, "direction": str, "step": int}
# A plain loop's run.finish may leave a metric's sample count out (an empty cell).
OPTIONAL = ("n",)
# A curve's rows, long format: one per (run, logged step) of one experiment's scalar.
CURVE_COLUMNS = ("variant", "seed", "run_id", "step", "value")
KIND_COLUMNS = {"bar": COLUMNS, "curve": CURVE_COLUMNS}


def figure_rows(aggregate: dict, spec: FigureSpec) -> list[dict]:
    """The source rows of a figure of either kind."""
    return curve_rows(aggregate, spec) if spec.kind == "curve" else source_rows(aggregate, spec)


def source_rows(aggregate: dict, spec: FigureSpec) -> list[dict]:
    """One row per run for the figure's metric and split, sorted by exp_id, variant and seed."""
    rows = []
    for exp_id in sorted(aggregate["experiments"]):
        if spec.experiment is not None and exp_id != spec.experiment:
            continue
        variants = aggregate["experiments"][exp_id]
        for variant in sorted(variants):
            cell = variants[variant].get(f"{spec.metric}/{spec.split}")
            for value in (cell or {}).get("values", []):
                rows.append(
                    {
                        "exp_id": exp_id,
                        "variant": variant,
                        "seed": value["seed"],
                        "run_id": value["run_id"],
                        "metric": spec.metric,
                        "split": spec.split,
                        "value": value["value"],
                        "n": value["n"],
                        "direction": cell["direction"],
                    }
                )
    return sorted(rows, key=lambda row: (row["exp_id"], row["variant"], row["seed"]))


def curve_rows(aggregate: dict, spec: FigureSpec) -> list[dict]:
    """One row per run and logged step of the curve's scalar in its experiment, sorted by
    variant, seed and step; an aggregate without that scalar's series is a ``DeliveryError``."""
    series = (aggregate.get("histories") or {}).get("series") or {}
    if spec.metric not in series:
        raise DeliveryError(
            f"the aggregate holds no logged {spec.metric!r} for curve figure {spec.fig_id!r}",
            fix="rerun `rgt aggregate --config CONFIG` with the config declaring the figure "
                "(it copies the curves' scalars from each run's train.csv)")
    rows = [{"variant": entry["variant"], "seed": entry["seed"], "run_id": entry["run_id"],
             "step": step, "value": value}
            for entry in series[spec.metric] if entry["exp_id"] == spec.experiment
            for step, value in zip(entry["step"], entry["value"], strict=True)]
    return sorted(rows, key=lambda row: (row["variant"], row["seed"], row["step"]))


def render_csv(rows: list[dict], columns: tuple[str, ...] = COLUMNS) -> str:
    """CSV text with a header, ``\\n`` line ends and every value at full precision."""
    table = pd.DataFrame(rows, columns=list(columns)).astype({"value": float})
    return table.to_csv(index=False, lineterminator="\n")


def write_source_data(aggregate_path: str | Path, spec: FigureSpec, out: str | Path) -> list[dict]:
    """Write the figure's source rows from the aggregate at ``aggregate_path``; refuse zero rows."""
    aggregate = read_document(aggregate_path, AGGREGATE_SCHEMA, "rgt aggregate")
    rows = figure_rows(aggregate, spec)
    if not rows and spec.kind == "curve":
        raise DeliveryError(
            f"{aggregate_path}: no run of experiment {spec.experiment!r} logged "
            f"{spec.metric!r} at any step, so curve figure {spec.fig_id!r} would be empty",
            fix=f"log it in the training loop (run.log(step, {spec.metric}=value)), or name a "
                f"scalar the runs log in figures.{spec.fig_id}.metric")
    if not rows:
        raise DeliveryError(
            f"{aggregate_path}: no run has metric {spec.metric!r} on split {spec.split!r}, "
            f"so figure {spec.fig_id!r} would be empty",
            fix="evaluate runs that report this metric, then rerun `rgt aggregate`",
        )
    write_text(out, render_csv(rows, KIND_COLUMNS[spec.kind]))
    return rows


def read_source_data(path: str | Path, kind: str = "bar") -> list[dict]:
    """Parse a source_data.csv of a figure of ``kind`` back into typed rows (int seed, n and
    step, float value)."""
    path, columns = Path(path), KIND_COLUMNS[kind]
    if not path.is_file():
        raise DeliveryError(f"{path}: no such file", fix="create it with `rgt source-data`")
    types = {name: TYPES[name] for name in columns if name not in OPTIONAL}
    converters = {name: _optional_int for name in columns if name in OPTIONAL}
    table = pd.read_csv(path, dtype=types, converters=converters, keep_default_na=False)
    if tuple(table.columns) != columns:
        raise DeliveryError(f"{path}: columns are {list(table.columns)}, expected {columns}",
                            fix="regenerate it with `rgt source-data`")
    return [{name: _plain(value) for name, value in row.items()}
            for row in table.to_dict("records")]


def _optional_int(text: str) -> int | None:
    return int(text) if text else None


def _plain(value):
    """A pandas/numpy scalar as the Python value the rest of delivery compares."""
    return value.item() if hasattr(value, "item") else value
