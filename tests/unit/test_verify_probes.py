"""Smoke records' probe results become no-grad-params / optimizer-coverage findings."""

from __future__ import annotations

import json

import yaml
from test_verify_support import write_run, write_variant

from rgt.config import load_config
from rgt.plan.runplan import plan_runs
from rgt.verify.audit import audit_runs
from rgt.verify.runs import load_runs
from rgt.verify.smoke_records import smoke_id_of

HASHES = {"code_sha256": "c" * 64, "data_sha256": "d" * 64, "split_sha256": "e" * 64}
DROPOUT = {"model": {"dropout": 0.3}}
CLEAN = {"no-grad-params": {"ok": True, "none": [], "zero": [], "nonfinite": []},
         "optimizer-coverage": {"ok": True, "missing": [], "frozen": []}}


def runs_and_records(tmp_path, dropout_probes: dict) -> tuple:
    runs, smoke = tmp_path / "runs", tmp_path / "smoke"
    write_variant(runs, "baseline", [0.80, 0.81, 0.79], meta=HASHES)
    write_variant(runs, "dropout", [0.90, 0.91, 0.89], overrides=DROPOUT, meta=HASHES)
    smoke.mkdir()
    for path in runs.glob("*/config.yaml"):  # the seed lives under `run`, as rgt writes it
        config = yaml.safe_load(path.read_text())
        config["run"] = {"seed": config.pop("seed")}
        path.write_text(yaml.safe_dump(config))
    for run in load_runs(runs).runs:
        probes = dropout_probes if run.variant == "dropout" else CLEAN
        (smoke / f"{smoke_id_of(run)}.json").write_text(json.dumps({"probes": probes}))
    return runs, smoke


def found(audit, check):
    return [f for f in audit.findings if f.check == check]


def test_zero_gradient_and_frozen_parameters_become_warnings_on_the_variant(tmp_path):
    probes = {"no-grad-params": {"ok": False, "none": [], "zero": ["side.weight"],
                                 "nonfinite": []},
              "optimizer-coverage": {"ok": False, "missing": [], "frozen": ["emb.weight"]}}
    runs, smoke = runs_and_records(tmp_path, probes)
    audit = audit_runs(runs, smoke_dir=smoke)
    [grads] = found(audit, "no-grad-params")
    assert (grads.severity, grads.subject) == ("warning", "exp/dropout")
    assert "all-zero gradient after one backward: side.weight" in grads.detail
    assert "exp/dropout/accuracy/test" in grads.claims
    assert "exp/dropout-vs-baseline/accuracy/test" in grads.claims
    [coverage] = found(audit, "optimizer-coverage")
    assert "frozen but inside an optimizer group: emb.weight" in coverage.detail


def test_missing_parameters_are_errors(tmp_path):
    probes = {"optimizer-coverage": {"ok": False, "missing": ["head.bias"], "frozen": []}}
    runs, smoke = runs_and_records(tmp_path, probes)
    [coverage] = found(audit_runs(runs, smoke_dir=smoke), "optimizer-coverage")
    assert coverage.severity == "error" and "head.bias" in coverage.detail


def test_clean_records_and_absent_records_raise_nothing(tmp_path):
    runs, smoke = runs_and_records(tmp_path, CLEAN)
    audit = audit_runs(runs, smoke_dir=smoke)
    assert not found(audit, "no-grad-params") + found(audit, "optimizer-coverage")
    assert audit_runs(runs, smoke_dir=tmp_path / "absent").findings == \
        audit_runs(runs).findings


def test_unreadable_record_is_a_finding_not_a_crash(tmp_path):
    runs, smoke = runs_and_records(tmp_path, CLEAN)
    next(smoke.iterdir()).write_text("{broken")
    [finding] = found(audit_runs(runs, smoke_dir=smoke), "smoke-unreadable")
    assert finding.severity == "warning"


def test_smoke_id_of_a_sealed_run_matches_the_plan(tmp_path, tiny_config):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(tiny_config))
    spec = plan_runs(load_config(path))[-1]
    run_dir = write_run(tmp_path / "runs", spec.run_id, test_accuracy=0.8,
                        meta={"code_sha256": spec.code_sha256, "data_sha256": spec.data_sha256,
                              "split_sha256": spec.split_sha256, "exp_id": spec.exp_id,
                              "variant": spec.variant, "seed": spec.seed})
    (run_dir / "config.yaml").write_text(yaml.safe_dump(spec.config, sort_keys=True))
    [run] = load_runs(tmp_path / "runs").runs
    assert smoke_id_of(run) == spec.smoke_id
