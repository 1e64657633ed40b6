"""rgt evidence: one claim per delivered number, disclosures wired from verify findings,
comparisons as claims, deterministic output."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from rgt.deliver.inputs import DeliveryError
from rgt.evidence import command

DROPOUT = "digits/dropout/accuracy/test"
COMPARISON_ID = "digits/dropout-vs-baseline/accuracy/test"


def cell(metric: str, split: str, values: list[float], std: float | None) -> dict:
    rows = [
        {"seed": seed, "run_id": f"{metric}{split}{seed}", "value": value, "n": 270}
        for seed, value in enumerate(values)
    ]
    return {
        "metric": metric,
        "split": split,
        "direction": "higher",
        "values": rows,
        "mean": sum(values) / len(values),
        "std": std,
        "n_seeds": len(values),
    }


def aggregate() -> dict:
    return {
        "schema": "rgt/aggregate/v1",
        "inputs": [],
        "skipped": [],
        "experiments": {
            "digits": {
                "dropout": {
                    "accuracy/test": cell("accuracy", "test", [0.97, 0.9724], 0.0017),
                    "accuracy/val": cell("accuracy", "val", [0.5, 0.6], 0.07),
                },
                "baseline": {"accuracy/test": cell("accuracy", "test", [0.9612345678901234], None)},
            }
        },
    }


def comparison(**changes) -> dict:
    base = {
        "exp_id": "digits",
        "baseline": "baseline",
        "candidate": "dropout",
        "variable": "model.dropout",
        "metric": "accuracy",
        "split": "test",
        "direction": "higher",
        "n_baseline": 1,
        "n_candidate": 2,
        "mean_baseline": 0.96,
        "mean_candidate": 0.97,
        "std_baseline": None,
        "std_candidate": 0.0017,
        "diff": 0.0100123,
        "ci_low": -0.004,
        "ci_high": 0.021,
        "mde": 0.03,
        "verdict": "underpowered",
    }
    return {**base, **changes}


def verify_report(comparisons: list[dict] | None = None) -> dict:
    findings = [
        {
            "check": "leakage",
            "severity": "warning",
            "subject": "digits",
            "detail": "2 duplicates across train/test",
            "claims": [DROPOUT, COMPARISON_ID],
        },
        {
            "check": "rederive",
            "severity": "error",
            "subject": "other",
            "detail": "mismatch",
            "claims": ["other/x/accuracy/test"],
        },
    ]
    return {
        "schema": "rgt/verify/v1",
        "findings": findings,
        "comparisons": [comparison()] if comparisons is None else comparisons,
    }


def make_project(root: Path, report: dict | None = None, with_figure: bool = True) -> None:
    (root / "evidence").mkdir(exist_ok=True)
    (root / "evidence/results.json").write_text(json.dumps(aggregate()))
    (root / "verify").mkdir(exist_ok=True)
    (root / "verify/report.json").write_text(json.dumps(report or verify_report()))
    if with_figure:
        (root / "figures/test_accuracy").mkdir(parents=True, exist_ok=True)
        (root / "figures/test_accuracy/figure.png").write_bytes(b"png")
        (root / "figures/test_accuracy/source_data.csv").write_text(
            "exp_id,variant,seed,run_id,metric,split,value,n,direction\n"
            "digits,dropout,0,r0,accuracy,test,0.97,270,higher\n")


def run(tmp_path: Path, monkeypatch, out: str = "evidence/EVIDENCE.json") -> dict:
    monkeypatch.chdir(tmp_path)
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(
        [
            "evidence",
            "--aggregate",
            "evidence/results.json",
            "--verify",
            "verify/report.json",
            "--figures-dir",
            "figures",
            "--out",
            out,
        ]
    )
    assert args.func(args) == 0
    return json.loads(Path(out).read_text())


def claims_by_id(evidence: dict) -> dict:
    return {claim["id"]: claim for claim in evidence["claims"]}


def test_one_claim_per_variant_metric_on_test_plus_one_per_comparison(tmp_path, monkeypatch):
    make_project(tmp_path)
    evidence = run(tmp_path, monkeypatch)
    assert evidence["schema"] == "rgt/evidence/v1"
    assert [claim["id"] for claim in evidence["claims"]] == [
        "digits/baseline/accuracy/test",
        COMPARISON_ID,
        DROPOUT,
    ]


def test_variant_claim_binds_value_variance_runs_source_and_figure(tmp_path, monkeypatch):
    make_project(tmp_path)
    claim = claims_by_id(run(tmp_path, monkeypatch))[DROPOUT]
    assert claim["value"] == (0.97 + 0.9724) / 2
    assert (claim["n"], claim["variance"]) == (2, {"type": "std", "value": 0.0017})
    assert (claim["metric"], claim["split"], claim["direction"]) == ("accuracy", "test", "higher")
    assert (claim["exp_id"], claim["variant"]) == ("digits", "dropout")
    assert claim["run_ids"] == ["accuracytest0", "accuracytest1"]
    assert claim["source"] == "evidence/results.json"
    assert claim["figure"] == "figures/test_accuracy/figure.png"
    assert claim["aliases"] == ["test accuracy", "accuracy"]
    assert (
        claim["statement"]
        == "dropout reaches a mean test accuracy of 0.9712 over 2 seeds on digits"
    )


def test_disclosures_come_from_findings_that_list_the_claim(tmp_path, monkeypatch):
    make_project(tmp_path)
    claims = claims_by_id(run(tmp_path, monkeypatch))
    assert claims[DROPOUT]["disclosures"] == ["warning: leakage: 2 duplicates across train/test"]
    assert claims["digits/baseline/accuracy/test"]["disclosures"] == ["single seed"]


def test_single_seed_claim_has_null_variance_and_full_precision_value(tmp_path, monkeypatch):
    make_project(tmp_path)
    claim = claims_by_id(run(tmp_path, monkeypatch))["digits/baseline/accuracy/test"]
    assert claim["variance"] == {"type": "std", "value": None}
    assert claim["value"] == 0.9612345678901234
    assert "(single seed)" in claim["statement"]


def test_comparison_claim_carries_diff_ci_and_verdict(tmp_path, monkeypatch):
    make_project(tmp_path)
    claim = claims_by_id(run(tmp_path, monkeypatch))[COMPARISON_ID]
    assert claim["value"] == 0.0100123
    assert claim["variance"] == {"type": "ci95", "value": [-0.004, 0.021]}
    assert (claim["verdict"], claim["n"], claim["source"]) == (
        "underpowered",
        1,
        "verify/report.json",
    )
    assert "verdict: underpowered" in claim["statement"] and "+0.0100" in claim["statement"]
    assert claim["disclosures"] == [
        "warning: leakage: 2 duplicates across train/test",
        "verdict: underpowered",
        "single seed",
    ]


def test_a_verdict_already_reported_as_a_finding_is_not_repeated(tmp_path, monkeypatch):
    report = verify_report()
    report["findings"].append(
        {
            "check": "underpowered",
            "severity": "warning",
            "subject": COMPARISON_ID,
            "detail": "MDE 0.03 > |diff|",
            "claims": [COMPARISON_ID],
        }
    )
    make_project(tmp_path, report)
    claim = claims_by_id(run(tmp_path, monkeypatch))[COMPARISON_ID]
    assert claim["disclosures"] == [
        "warning: leakage: 2 duplicates across train/test",
        "warning: underpowered: MDE 0.03 > |diff|",
        "single seed",
    ]


def test_an_effect_verdict_with_seeds_discloses_nothing(tmp_path, monkeypatch):
    report = verify_report(
        [comparison(verdict="effect", n_baseline=3, n_candidate=3, candidate="wide")]
    )
    make_project(tmp_path, report)
    claim = claims_by_id(run(tmp_path, monkeypatch))["digits/wide-vs-baseline/accuracy/test"]
    assert claim["disclosures"] == []


def test_figure_is_null_when_not_rendered(tmp_path, monkeypatch):
    make_project(tmp_path, with_figure=False)
    assert claims_by_id(run(tmp_path, monkeypatch))[DROPOUT]["figure"] is None


def test_output_is_deterministic_and_binds_its_inputs(tmp_path, monkeypatch):
    make_project(tmp_path)
    first = run(tmp_path, monkeypatch, "one.json")
    run(tmp_path, monkeypatch, "two.json")
    assert Path("one.json").read_bytes() == Path("two.json").read_bytes()
    assert [item["path"] for item in first["inputs"]] == [
        "evidence/results.json",
        "verify/report.json",
    ]


def test_verify_report_of_wrong_schema_is_refused(tmp_path, monkeypatch):
    make_project(tmp_path, {"schema": "rgt/verify/v0"})
    with pytest.raises(DeliveryError, match="rgt/verify/v1"):
        run(tmp_path, monkeypatch)


def test_comparison_missing_a_field_names_it(tmp_path, monkeypatch):
    broken = comparison()
    del broken["ci_high"]
    make_project(tmp_path, verify_report([broken]))
    with pytest.raises(DeliveryError, match="ci_high"):
        run(tmp_path, monkeypatch)


def test_missing_ci_is_stated_not_crashed_on(tmp_path, monkeypatch):
    make_project(tmp_path, verify_report([comparison(ci_low=None, ci_high=None, diff=None)]))
    claim = claims_by_id(run(tmp_path, monkeypatch))[COMPARISON_ID]
    assert "not available" in claim["statement"]
