"""A project with no test split declares where its metric is reported
(``job.metrics.loss: {direction: lower, split: val}``): the job contract checks that split,
verify compares there and discloses it on every claim, and delivery claims and draws it there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import test_job_contract
import yaml
from test_job_contract import job_config, sealed
from test_verify_support import write_variant

from rgt.base.errors import ConfigError, DataError
from rgt.cli import main
from rgt.config import load_config
from rgt.deliver.registry import figure_specs
from rgt.plan.runplan import plan_runs
from rgt.train.job import check_sealed_run
from rgt.verify.audit import audit_runs

job_project = test_job_contract.job_project  # the fixture: a project of one's own
ON_VAL = {"accuracy": {"direction": "higher", "split": "val"},
          "loss": {"direction": "lower", "split": "val"}}


def test_the_split_is_part_of_the_identity_only_when_declared(job_project):
    plain = plan_runs(load_config(job_config()))
    declared = plan_runs(load_config(job_config(
        metrics={"perplexity": {"direction": "lower", "split": "val"}})))
    assert "split" not in plain[0].config["job"]["metrics"]["perplexity"]
    assert {run.run_id for run in plain}.isdisjoint(run.run_id for run in declared)
    with pytest.raises(ConfigError, match=r"job\.metrics\.perplexity\.split"):
        load_config(job_config(metrics={"perplexity": {"direction": "lower", "split": "v al"}}))


def test_the_job_contract_checks_the_declared_split(job_project):
    config = job_config(metrics={"perplexity": {"direction": "lower", "split": "val"}})
    spec = plan_runs(load_config(config))[0]
    run_dir = job_project / "runs" / spec.run_id
    sealed(run_dir, [{"name": "perplexity", "split": "val", "value": 9.0, "direction": "lower"}])
    check_sealed_run(spec, run_dir)
    (run_dir / "results.json").write_text(json.dumps({"metrics": [
        {"name": "perplexity", "split": "test", "value": 9.0, "direction": "lower"}]}))
    with pytest.raises(DataError, match="no 'perplexity' on the 'val' split") as error:
        check_sealed_run(spec, run_dir)
    assert "'split': 'val'" in error.value.fix


def test_without_a_test_split_the_fix_names_the_declaration(job_project):
    spec = plan_runs(load_config(job_config()))[0]
    run_dir = job_project / "runs" / spec.run_id
    sealed(run_dir, [{"name": "perplexity", "split": "val", "value": 9.0, "direction": "lower"}])
    with pytest.raises(DataError) as error:
        check_sealed_run(spec, run_dir)
    assert "job.metrics.perplexity.split: val" in error.value.fix


def test_verify_compares_on_the_declared_split_and_discloses_it_on_every_claim(tmp_path):
    job = {"job": {"metrics": ON_VAL}}
    write_variant(tmp_path, "baseline", [0.80, 0.81, 0.79], extra_config=job)
    write_variant(tmp_path, "dropout", [0.90, 0.91, 0.89], extra_config=job,
                  overrides={"model": {"dropout": 0.3}})
    audit = audit_runs(tmp_path)
    assert {(c.metric, c.split) for c in audit.comparisons} == {("accuracy", "val"),
                                                                 ("loss", "val")}
    disclosed = {f.subject: f for f in audit.findings if f.check == "report-split"}
    assert set(disclosed) == {"exp"}
    claims = {claim for f in audit.findings if f.check == "report-split" for claim in f.claims}
    assert {"exp/baseline/loss/val", "exp/dropout/accuracy/val",
            "exp/dropout-vs-baseline/loss/val"} <= claims
    assert not any(claim.endswith("/test") for claim in claims)
    assert all("not on a held-out test split" in f.detail for f in audit.findings
               if f.check == "report-split")


def test_without_a_declaration_nothing_changes(tmp_path):
    write_variant(tmp_path, "baseline", [0.80, 0.81, 0.79])
    write_variant(tmp_path, "dropout", [0.90, 0.91, 0.89], overrides={"model": {"dropout": 0.3}})
    audit = audit_runs(tmp_path)
    assert {c.split for c in audit.comparisons} == {"test"}
    assert not [f for f in audit.findings if f.check == "report-split"]


def test_delivery_claims_and_draws_the_declared_split_with_the_disclosure(
        job_project, monkeypatch):
    config = job_config(metrics=ON_VAL)
    (job_project / "config").mkdir()
    (job_project / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    assert list(figure_specs(load_config(config))) == ["val_accuracy", "val_loss"]
    job = {"job": {"metrics": ON_VAL}}
    write_variant(job_project / "runs", "baseline", [0.80, 0.81], extra_config=job)
    write_variant(job_project / "runs", "dropout", [0.90, 0.91], extra_config=job,
                  overrides={"model": {"dropout": 0.3}})
    assert main(["verify", "--runs", "runs", "--json", "verify/report.json",
                 "--md", "verify/report.md"]) == 0
    assert main(["aggregate", "--runs", "runs", "--out", "evidence/results.json"]) == 0
    assert main(["evidence", "--aggregate", "evidence/results.json", "--verify",
                 "verify/report.json", "--figures-dir", "figures",
                 "--out", "evidence/EVIDENCE.json"]) == 0
    evidence = json.loads(Path("evidence/EVIDENCE.json").read_text())
    claims = {claim["id"]: claim for claim in evidence["claims"]}
    assert "exp/baseline/loss/val" in claims and "exp/dropout-vs-baseline/loss/val" in claims
    assert not [claim for claim in claims if claim.endswith("/test")]
    for claim in ("exp/baseline/loss/val", "exp/dropout-vs-baseline/loss/val"):
        assert any("report-split" in line and "not on a held-out test split" in line
                   for line in claims[claim]["disclosures"]), claims[claim]["disclosures"]
