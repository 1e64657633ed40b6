"""``evidence/metrics/<exp>/<variant>.json``: each variant's means and seed spreads, rounded,
one file per variant so that ``dvc metrics show`` reads as a table (a row per variant, a column
per metric, split and statistic). Full precision stays in ``evidence/results.json``."""

from __future__ import annotations

import math
from pathlib import Path

from rgt.base.files import write_json
from rgt.deliver.aggregate import AGGREGATE_SCHEMA
from rgt.deliver.inputs import read_document

DIGITS = 4  # significant digits


def rounded(value: float | None) -> float | None:
    """``value`` to ``DIGITS`` significant digits (None and non-finite values as they are)."""
    if value is None or not math.isfinite(value):
        return value
    return float(f"{value:.{DIGITS}g}")


def variant_metrics(cells: dict) -> dict:
    """``{metric: {split: {mean, std}}, "seeds": n}`` of one variant's aggregate cells."""
    table: dict = {}
    for cell in cells.values():
        table.setdefault(cell["metric"], {})[cell["split"]] = {
            "mean": rounded(cell["mean"]), "std": rounded(cell["std"])}
    table["seeds"] = max((cell["n_seeds"] for cell in cells.values()), default=0)
    return table


def write_metrics(aggregate_path: str | Path, out_dir: str | Path) -> list[Path]:
    """One metrics file per experiment and variant of the aggregate; the files written."""
    aggregate = read_document(aggregate_path, AGGREGATE_SCHEMA, "rgt aggregate")
    written = []
    for exp_id, variants in sorted(aggregate["experiments"].items()):
        for variant, cells in sorted(variants.items()):
            path = Path(out_dir) / exp_id / f"{variant}.json"
            write_json(path, variant_metrics(cells))
            written.append(path)
    return written
