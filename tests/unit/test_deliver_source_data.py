"""rgt source-data: one row per run, full-precision round trip, refusal of empty figures."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from conftest import TINY
from rgt.config import load_config
from rgt.deliver import command
from rgt.deliver.inputs import DeliveryError
from rgt.deliver.registry import figure_spec
from rgt.deliver.source_data import COLUMNS, read_source_data, write_source_data

AWKWARD = [0.1 + 0.2, 1 / 3, 0.9712345678901234]

TINY_CONFIG = load_config(TINY)


def aggregate_with(values: list[float], metric: str = "accuracy", split: str = "test") -> dict:
    """A minimal rgt/aggregate/v1 document: one variant, one seed per value."""
    rows = [
        {"seed": seed, "run_id": f"run{seed}", "value": value, "n": 270}
        for seed, value in enumerate(values)
    ]
    cell = {
        "metric": metric,
        "split": split,
        "direction": "higher",
        "values": rows,
        "mean": sum(values) / len(values),
        "std": None,
        "n_seeds": len(values),
    }
    return {
        "schema": "rgt/aggregate/v1",
        "inputs": [],
        "skipped": [],
        "experiments": {"digits": {"dropout": {f"{metric}/{split}": cell}}},
    }


def write_aggregate_file(path: Path, aggregate: dict) -> Path:
    path.write_text(json.dumps(aggregate))
    return path


def test_values_round_trip_at_full_precision(tmp_path):
    source = write_aggregate_file(tmp_path / "results.json", aggregate_with(AWKWARD))
    out = tmp_path / "fig" / "source_data.csv"
    write_source_data(source, figure_spec(TINY_CONFIG, "test_accuracy"), out)
    assert [row["value"] for row in read_source_data(out)] == AWKWARD
    assert "0.30000000000000004" in out.read_text()


def test_one_row_per_run_with_the_documented_columns(tmp_path):
    source = write_aggregate_file(tmp_path / "results.json", aggregate_with([0.9, 0.8]))
    out = tmp_path / "source_data.csv"
    write_source_data(source, figure_spec(TINY_CONFIG, "test_accuracy"), out)
    lines = out.read_text().splitlines()
    assert lines[0] == ",".join(COLUMNS)
    assert lines[1:] == [
        "digits,dropout,0,run0,accuracy,test,0.9,270,higher",
        "digits,dropout,1,run1,accuracy,test,0.8,270,higher",
    ]


def test_zero_rows_is_refused_and_nothing_written(tmp_path):
    source = write_aggregate_file(tmp_path / "results.json", aggregate_with([0.9], split="val"))
    out = tmp_path / "source_data.csv"
    with pytest.raises(DeliveryError, match="would be empty"):
        write_source_data(source, figure_spec(TINY_CONFIG, "test_accuracy"), out)
    assert not out.exists()


def test_unknown_figure_id_names_the_known_ones():
    with pytest.raises(DeliveryError) as error:
        figure_spec(TINY_CONFIG, "nope")
    assert "test_accuracy" in error.value.fix


def test_aggregate_of_wrong_schema_is_refused(tmp_path):
    source = write_aggregate_file(tmp_path / "results.json", {"schema": "rgt/other/v1"})
    with pytest.raises(DeliveryError, match="schema"):
        write_source_data(source, figure_spec(TINY_CONFIG, "test_accuracy"), tmp_path / "out.csv")


def test_reading_a_csv_with_other_columns_is_refused(tmp_path):
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    with pytest.raises(DeliveryError, match="columns"):
        read_source_data(tmp_path / "bad.csv")


def test_command_writes_to_the_default_figure_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("evidence").mkdir()
    write_aggregate_file(Path("evidence/results.json"), aggregate_with(AWKWARD))
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(
        ["source-data", "--aggregate", "evidence/results.json", "--fig", "test_accuracy"]
    )
    assert args.func(args) == 0
    assert len(read_source_data("figures/test_accuracy/source_data.csv")) == 3
