"""The whole DELIVER chain through its verbs: runs -> aggregate -> source data -> figure ->
evidence, with every delivered number traceable to the runs."""

from __future__ import annotations

import argparse
import csv
import json
import math
import shutil
from pathlib import Path

from conftest import TINY
from rgt.deliver import command as deliver_command
from rgt.evidence import command as evidence_command

ACCURACIES = {
    ("baseline", 0): 0.951,
    ("baseline", 1): 0.962,
    ("dropout", 0): 0.973,
    ("dropout", 1): 0.9712345678901234,
    ("dropout", 2): 0.968,
}


def write_runs(runs: Path) -> None:
    for (variant, seed), accuracy in ACCURACIES.items():
        run_id = f"{variant}-{seed}"
        identity = {"run_id": run_id, "exp_id": "digits", "variant": variant, "seed": seed}
        (runs / run_id).mkdir(parents=True)
        (runs / run_id / "run.json").write_text(json.dumps({**identity, "status": "finished"}))
        metric = {
            "name": "accuracy",
            "split": "test",
            "value": accuracy,
            "n": 270,
            "direction": "higher",
        }
        (runs / run_id / "results.json").write_text(
            json.dumps({"schema": "rgt/results/v1", **identity, "metrics": [metric]})
        )


def rgt(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="rgt")
    subparsers = parser.add_subparsers()
    deliver_command.register(subparsers)
    evidence_command.register(subparsers)
    args = parser.parse_args(argv)
    return args.func(args)


def test_every_delivered_number_traces_back_to_the_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_runs(Path("runs"))
    Path("config").mkdir()
    shutil.copy(TINY, "config/config.yaml")  # declares (by default) the test_accuracy figure
    Path("verify").mkdir()
    Path("verify/report.json").write_text(
        json.dumps({"schema": "rgt/verify/v1", "comparisons": [], "findings": []})
    )
    assert rgt("aggregate", "--runs", "runs", "--out", "evidence/results.json") == 0
    assert (
        rgt(
            "source-data",
            "--aggregate",
            "evidence/results.json",
            "--fig",
            "test_accuracy",
            "--out",
            "figures/test_accuracy/source_data.csv",
        )
        == 0
    )
    assert (
        rgt(
            "figure",
            "--fig",
            "test_accuracy",
            "--source",
            "figures/test_accuracy/source_data.csv",
            "--verify",
            "verify/report.json",
            "--out-dir",
            "figures/test_accuracy",
        )
        == 0
    )
    assert (
        rgt(
            "evidence",
            "--aggregate",
            "evidence/results.json",
            "--verify",
            "verify/report.json",
            "--figures-dir",
            "figures",
            "--out",
            "evidence/EVIDENCE.json",
        )
        == 0
    )

    with open("figures/test_accuracy/source_data.csv", newline="") as handle:
        source = {
            (row["variant"], int(row["seed"])): float(row["value"])
            for row in csv.DictReader(handle)
        }
    assert source == ACCURACIES
    claims = json.loads(Path("evidence/EVIDENCE.json").read_text())["claims"]
    dropout = next(claim for claim in claims if claim["variant"] == "dropout")
    expected = math.fsum(v for (variant, _), v in ACCURACIES.items() if variant == "dropout") / 3
    assert dropout["value"] == expected
    assert dropout["figure"] == "figures/test_accuracy/figure.png"
    provenance = json.loads(Path("figures/test_accuracy/provenance.json").read_text())
    assert provenance["claims"] == [claim["id"] for claim in claims]
    assert provenance["pixel_gate"]["ok"] and provenance["source_matches_aggregate"]


def test_user_errors_reach_the_cli_as_a_message_and_a_fix(tmp_path, monkeypatch, capsys):
    from rgt import cli

    monkeypatch.chdir(tmp_path)
    assert cli.main(["source-data", "--fig", "nope"]) == 1
    assert cli.main(["aggregate", "--runs", "absent"]) == 1
    err = capsys.readouterr().err
    assert "error: unknown figure id 'nope'" in err and "fix: use one of: test_accuracy" in err
    assert "error: absent: no such runs directory" in err and "Traceback" not in err
