"""``figures/<fig>/source_data.csv``: the rows a figure is drawn from, at full precision.

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
         "split": str, "value": float, "n": int, "direction": str}


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


def render_csv(rows: list[dict]) -> str:
    """CSV text with a header, ``\\n`` line ends and every value at full precision."""
    table = pd.DataFrame(rows, columns=list(COLUMNS)).astype({"value": float})
    return table.to_csv(index=False, lineterminator="\n")


def write_source_data(aggregate_path: str | Path, spec: FigureSpec, out: str | Path) -> list[dict]:
    """Write the figure's source rows from the aggregate at ``aggregate_path``; refuse zero rows."""
    aggregate = read_document(aggregate_path, AGGREGATE_SCHEMA, "rgt aggregate")
    rows = source_rows(aggregate, spec)
    if not rows:
        raise DeliveryError(
            f"{aggregate_path}: no run has metric {spec.metric!r} on split {spec.split!r}, "
            f"so figure {spec.fig_id!r} would be empty",
            fix="evaluate runs that report this metric, then rerun `rgt aggregate`",
        )
    write_text(out, render_csv(rows))
    return rows


def read_source_data(path: str | Path) -> list[dict]:
    """Parse a source_data.csv back into typed rows (int seed and n, float value)."""
    path = Path(path)
    if not path.is_file():
        raise DeliveryError(f"{path}: no such file", fix="create it with `rgt source-data`")
    table = pd.read_csv(path, dtype=TYPES, keep_default_na=False)
    if tuple(table.columns) != COLUMNS:
        raise DeliveryError(f"{path}: columns are {list(table.columns)}, expected {COLUMNS}",
                            fix="regenerate it with `rgt source-data`")
    return [{name: _plain(value) for name, value in row.items()}
            for row in table.to_dict("records")]


def _plain(value):
    """A pandas/numpy scalar as the Python value the rest of delivery compares."""
    return value.item() if hasattr(value, "item") else value
