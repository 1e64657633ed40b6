"""rgt aggregate: per-seed values, mean/std/n, inputs with hashes, determinism, refusals."""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import pytest

from rgt.base.errors import RunStateError
from rgt.base.hashing import sha256_file
from rgt.deliver import command
from rgt.deliver.aggregate import build_aggregate, write_aggregate
from rgt.deliver.inputs import DeliveryError


def write_run(
    runs: Path,
    run_id: str,
    variant: str,
    seed: int,
    accuracy: float,
    status: str = "finished",
    evaluated: bool = True,
    exp_id: str = "digits",
) -> Path:
    """A synthetic runs/<run_id>/ with run.json and (optionally) results.json."""
    run_dir = runs / run_id
    run_dir.mkdir(parents=True)
    identity = {"run_id": run_id, "exp_id": exp_id, "variant": variant, "seed": seed}
    (run_dir / "run.json").write_text(
        json.dumps({"schema": "rgt/run/v1", **identity, "status": status})
    )
    if evaluated:
        metrics = [
            {
                "name": "accuracy",
                "split": "test",
                "value": accuracy,
                "n": 270,
                "direction": "higher",
            },
            {"name": "loss", "split": "val", "value": 1 - accuracy, "n": 270, "direction": "lower"},
        ]
        (run_dir / "results.json").write_text(
            json.dumps({"schema": "rgt/results/v1", **identity, "metrics": metrics})
        )
    return run_dir


def three_seed_runs(runs: Path) -> None:
    # Directory order (a, b, c) deliberately differs from seed order (2, 0, 1).
    write_run(runs, "a-run", "dropout", 2, 0.94)
    write_run(runs, "b-run", "dropout", 0, 0.90)
    write_run(runs, "c-run", "dropout", 1, 0.92)
    write_run(runs, "d-run", "baseline", 0, 0.88)


def test_mean_std_and_n_over_seeds(tmp_path):
    three_seed_runs(tmp_path / "runs")
    cell = build_aggregate(tmp_path / "runs")["experiments"]["digits"]["dropout"]["accuracy/test"]
    assert [row["seed"] for row in cell["values"]] == [0, 1, 2]
    assert [row["run_id"] for row in cell["values"]] == ["b-run", "c-run", "a-run"]
    assert cell["mean"] == pytest.approx(0.92, abs=1e-15)
    assert cell["std"] == pytest.approx(statistics.stdev([0.90, 0.92, 0.94]))
    assert cell["std"] == pytest.approx(0.02)
    assert (cell["n_seeds"], cell["direction"], cell["values"][0]["n"]) == (3, "higher", 270)


def test_single_seed_has_null_std(tmp_path):
    three_seed_runs(tmp_path / "runs")
    cell = build_aggregate(tmp_path / "runs")["experiments"]["digits"]["baseline"]["accuracy/test"]
    assert (cell["n_seeds"], cell["std"], cell["mean"]) == (1, None, 0.88)


def test_metrics_keep_their_split_and_direction(tmp_path):
    three_seed_runs(tmp_path / "runs")
    cells = build_aggregate(tmp_path / "runs")["experiments"]["digits"]["dropout"]
    assert sorted(cells) == ["accuracy/test", "loss/val"]
    assert (cells["loss/val"]["split"], cells["loss/val"]["direction"]) == ("val", "lower")


def test_unfinished_and_unevaluated_runs_are_left_out_and_listed(tmp_path):
    runs = tmp_path / "runs"
    three_seed_runs(runs)
    write_run(runs, "e-run", "dropout", 3, 0.10, status="running")
    write_run(runs, "f-run", "dropout", 4, 0.10, evaluated=False)
    aggregate = build_aggregate(runs)
    assert aggregate["experiments"]["digits"]["dropout"]["accuracy/test"]["n_seeds"] == 3
    assert aggregate["skipped"] == [
        {"run_id": "e-run", "reason": "status running"},
        {"run_id": "f-run", "reason": "not evaluated"},
    ]


def test_inputs_list_every_results_file_with_its_hash(tmp_path):
    runs = tmp_path / "runs"
    three_seed_runs(runs)
    inputs = build_aggregate(runs)["inputs"]
    expected = sorted(runs.glob("*/results.json"))
    assert [item["path"] for item in inputs] == [path.as_posix() for path in expected]
    assert [item["sha256"] for item in inputs] == [sha256_file(path) for path in expected]


def test_output_is_byte_identical_and_key_sorted(tmp_path):
    three_seed_runs(tmp_path / "runs")
    write_aggregate(tmp_path / "runs", tmp_path / "one.json")
    write_aggregate(tmp_path / "runs", tmp_path / "two.json")
    text = (tmp_path / "one.json").read_text()
    assert text == (tmp_path / "two.json").read_text()
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"
    assert json.loads(text)["schema"] == "rgt/aggregate/v1"


def test_two_runs_with_the_same_seed_are_refused(tmp_path):
    runs = tmp_path / "runs"
    three_seed_runs(runs)
    write_run(runs, "z-stale", "dropout", 1, 0.5)
    with pytest.raises(RunStateError, match="c-run and z-stale are both seed 1"):
        build_aggregate(runs)


def test_results_of_another_run_are_refused(tmp_path):
    run_dir = write_run(tmp_path / "runs", "a-run", "dropout", 0, 0.9)
    results = json.loads((run_dir / "results.json").read_text())
    (run_dir / "results.json").write_text(json.dumps({**results, "run_id": "other"}))
    with pytest.raises(RunStateError, match="differs from run.json"):
        build_aggregate(tmp_path / "runs")


def test_missing_metric_field_names_the_field(tmp_path):
    run_dir = write_run(tmp_path / "runs", "a-run", "dropout", 0, 0.9)
    results = json.loads((run_dir / "results.json").read_text())
    del results["metrics"][0]["direction"]
    (run_dir / "results.json").write_text(json.dumps(results))
    with pytest.raises(RunStateError, match="missing field"):
        build_aggregate(tmp_path / "runs")


def test_conflicting_directions_are_refused(tmp_path):
    runs = tmp_path / "runs"
    write_run(runs, "a-run", "dropout", 0, 0.9)
    run_dir = write_run(runs, "b-run", "dropout", 1, 0.9)
    results = json.loads((run_dir / "results.json").read_text())
    results["metrics"][0]["direction"] = "lower"
    (run_dir / "results.json").write_text(json.dumps(results))
    with pytest.raises(RunStateError, match="direction"):
        build_aggregate(runs)


def test_no_finished_run_is_a_user_error(tmp_path):
    write_run(tmp_path / "runs", "a-run", "dropout", 0, 0.9, status="failed")
    with pytest.raises(DeliveryError, match="no finished run"):
        build_aggregate(tmp_path / "runs")
    with pytest.raises(DeliveryError, match="no such runs directory"):
        build_aggregate(tmp_path / "absent")


def test_command_writes_the_aggregate(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    three_seed_runs(Path("runs"))
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(["aggregate", "--runs", "runs", "--out", "evidence/results.json"])
    assert args.func(args) == 0
    written = json.loads(Path("evidence/results.json").read_text())
    assert written["inputs"][0]["path"] == "runs/a-run/results.json"
