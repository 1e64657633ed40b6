"""provenance.json: inputs and outputs bound by sha256, run ids, command, code, packages,
claims and disclosures wired from verify findings."""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

import rgt
from conftest import TINY
from rgt.base.environment import code_state
from rgt.base.hashing import sha256_file
from rgt.config import load_config
from rgt.deliver import command, provenance
from rgt.deliver.registry import figure_spec
from rgt.deliver.source_data import write_source_data

FINDING = {
    "check": "leakage",
    "severity": "warning",
    "subject": "digits",
    "detail": "2 test samples duplicate train samples",
    "claims": ["digits/dropout/accuracy/test"],
}
OTHER_FINDING = {
    "check": "collapse",
    "severity": "error",
    "subject": "cifar",
    "detail": "constant predictions",
    "claims": ["cifar/x/accuracy/test"],
}
ARGV = ["rgt", "figure", "--fig", "test_accuracy"]

TINY_CONFIG = load_config(TINY)


def cell(values: list[float]) -> dict:
    rows = [
        {"seed": seed, "run_id": f"r{len(values)}{seed}", "value": value, "n": 270}
        for seed, value in enumerate(values)
    ]
    return {
        "metric": "accuracy",
        "split": "test",
        "direction": "higher",
        "values": rows,
        "mean": sum(values) / len(values),
        "std": None,
        "n_seeds": len(values),
    }


def project(root: Path) -> None:
    """Aggregate, source data and verify report, as the earlier verbs leave them."""
    aggregate = {
        "schema": "rgt/aggregate/v1",
        "inputs": [],
        "skipped": [],
        "experiments": {
            "digits": {
                "baseline": {"accuracy/test": cell([0.96])},
                "dropout": {"accuracy/test": cell([0.97, 0.98])},
            }
        },
    }
    (root / "evidence").mkdir()
    (root / "evidence/results.json").write_text(json.dumps(aggregate))
    write_source_data(
        root / "evidence/results.json",
        figure_spec(TINY_CONFIG, "test_accuracy"),
        root / "figures/test_accuracy/source_data.csv",
    )
    (root / "verify").mkdir()
    (root / "verify/report.json").write_text(
        json.dumps(
            {"schema": "rgt/verify/v1", "comparisons": [], "findings": [FINDING, OTHER_FINDING]}
        )
    )


def build(tmp_path: Path, monkeypatch, extra: tuple[str, ...] = ()) -> dict:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ARGV)
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(["figure", "--fig", "test_accuracy", *extra])
    assert args.func(args) == 0
    return json.loads(Path("figures/test_accuracy/provenance.json").read_text())


def test_inputs_and_outputs_carry_their_hashes(tmp_path, monkeypatch):
    project(tmp_path)
    record = build(tmp_path, monkeypatch)
    paths = ["figures/test_accuracy/source_data.csv", "evidence/results.json", "verify/report.json"]
    assert record["inputs"] == [{"path": path, "sha256": sha256_file(path)} for path in paths]
    outputs = ["figures/test_accuracy/figure.png", "figures/test_accuracy/figure.pdf"]
    assert record["outputs"] == [{"path": path, "sha256": sha256_file(path)} for path in outputs]


def test_runs_command_packages_and_code_are_recorded(tmp_path, monkeypatch):
    project(tmp_path)
    record = build(tmp_path, monkeypatch)
    assert record["schema"] == "rgt/provenance/v1" and record["fig_id"] == "test_accuracy"
    assert record["run_ids"] == ["r10", "r20", "r21"]
    assert record["command"] == ARGV
    assert record["packages"]["python"] == platform.python_version()
    assert set(record["packages"]) == {"python", "numpy", "matplotlib", "torch"}
    # The code is the part of rgt that draws figures, wherever the figure is drawn.
    package = code_state(Path(rgt.__file__).parent, provenance.FIGURE_CODE)
    assert record["code"] == {"commit": package[0], "dirty": package[1],
                              "sha256": provenance.figure_code()["sha256"]}
    assert record["source_matches_aggregate"] is True
    assert record["pixel_gate"]["ok"] is True


def test_claims_and_disclosures_come_from_matching_findings(tmp_path, monkeypatch):
    project(tmp_path)
    record = build(tmp_path, monkeypatch)
    assert record["claims"] == ["digits/baseline/accuracy/test", "digits/dropout/accuracy/test"]
    assert record["disclosures"] == {
        "digits/baseline/accuracy/test": ["single seed"],
        "digits/dropout/accuracy/test": [
            "warning: leakage: 2 test samples duplicate train samples"
        ],
    }


def test_edited_source_data_no_longer_matches_the_aggregate(tmp_path, monkeypatch):
    project(tmp_path)
    source = tmp_path / "figures/test_accuracy/source_data.csv"
    source.write_text(source.read_text().replace("0.97,", "0.99,"))
    record = build(tmp_path, monkeypatch)
    assert record["source_matches_aggregate"] is False
    assert record["inputs"][0]["sha256"] == sha256_file(source)


def test_absent_aggregate_is_recorded_as_unknown(tmp_path, monkeypatch):
    project(tmp_path)
    record = build(tmp_path, monkeypatch, ("--aggregate", "elsewhere.json"))
    assert record["inputs"][1] == {"path": "elsewhere.json", "sha256": None}
    assert record["source_matches_aggregate"] is None


def test_rebuild_writes_the_same_provenance(tmp_path, monkeypatch):
    project(tmp_path)
    first = build(tmp_path, monkeypatch)
    assert build(tmp_path, monkeypatch) == first
