"""``rgt verify`` end to end on synthetic run directories: verdicts, findings, determinism."""

from __future__ import annotations

import json

import pytest
from test_verify_support import write_run, write_variant

from rgt.base.errors import RunStateError
from rgt.verify.audit import audit_runs
from rgt.verify.compare import Settings
from rgt.verify.report import write_report

DROPOUT = {"model": {"dropout": 0.3}}


def comparison(audit, metric="accuracy", candidate="dropout"):
    matches = [c for c in audit.comparisons if c.metric == metric and c.candidate == candidate]
    assert len(matches) == 1
    return matches[0]


def checks(audit, name):
    return [f for f in audit.findings if f.check == name]


def two_variants(runs, base, cand, **cand_kwargs):
    write_variant(runs, "baseline", base)
    write_variant(runs, "dropout", cand, overrides=DROPOUT, **cand_kwargs)


def test_clearly_separated_seeds_are_an_effect(tmp_path):
    two_variants(tmp_path, [0.80, 0.81, 0.79], [0.90, 0.91, 0.89])
    result = comparison(audit_runs(tmp_path))
    assert result.verdict == "effect"
    assert result.variable == ("model.dropout",)
    assert result.diff == pytest.approx(0.10)
    assert 0 < result.ci_low <= result.diff <= result.ci_high
    assert (result.base.n, result.cand.n) == (3, 3)
    assert result.base.std == pytest.approx(0.01)


def test_lower_is_better_metric_is_oriented_so_positive_is_better(tmp_path):
    two_variants(tmp_path, [0.80, 0.81, 0.79], [0.90, 0.91, 0.89])
    loss = comparison(audit_runs(tmp_path), metric="loss")
    # The synthetic loss falls as accuracy rises: the candidate is better, so diff > 0.
    assert loss.direction == "lower"
    assert loss.cand.mean < loss.base.mean
    assert loss.diff == pytest.approx(loss.base.mean - loss.cand.mean)
    assert loss.diff > 0 and loss.ci_low > 0


def test_difference_inside_seed_noise_is_noise(tmp_path):
    two_variants(tmp_path, [0.800, 0.801, 0.799], [0.800, 0.799, 0.801])
    result = comparison(audit_runs(tmp_path))
    assert result.ci_low <= 0 <= result.ci_high
    assert result.mde < 0.01
    assert result.verdict == "noise"
    assert not checks(audit_runs(tmp_path), "underpowered")


def test_wide_seed_spread_is_underpowered(tmp_path):
    two_variants(tmp_path, [0.80, 0.85, 0.75], [0.82, 0.76, 0.86])
    audit = audit_runs(tmp_path)
    result = comparison(audit)
    assert result.verdict == "underpowered"
    assert result.mde > 0.01
    [finding] = [f for f in checks(audit, "underpowered") if f.subject == result.claim_id]
    assert finding.claims == (result.claim_id,)


def test_min_effect_decides_between_underpowered_and_noise(tmp_path):
    two_variants(tmp_path, [0.80, 0.85, 0.75], [0.82, 0.76, 0.86])
    result = comparison(audit_runs(tmp_path, Settings(min_effect=0.5)))
    assert result.verdict == "noise"


def test_undeclared_config_difference_is_confounded(tmp_path):
    two_variants(tmp_path, [0.80, 0.81, 0.79], [0.90, 0.91, 0.89],
                 extra_config={"optim": {"lr": 0.1}})
    audit = audit_runs(tmp_path)
    assert comparison(audit).verdict == "confounded"
    [finding] = checks(audit, "confounded")
    undeclared = finding.detail.split("declared variable")[0]
    assert "optim.lr" in undeclared and "model.dropout" not in undeclared
    assert finding.claims == ("exp/dropout-vs-baseline/accuracy/test",
                              "exp/dropout-vs-baseline/loss/test")


def test_rederive_mismatch_makes_the_comparison_a_suspect_bug(tmp_path):
    write_variant(tmp_path, "baseline", [0.80, 0.81, 0.79])
    write_variant(tmp_path, "dropout", [0.90, 0.91], overrides=DROPOUT)
    write_run(tmp_path, "tampered", test_accuracy=0.89, variant="dropout", seed=2,
              overrides=DROPOUT, tamper={("accuracy", "test"): 0.95})
    audit = audit_runs(tmp_path)
    assert {c.verdict for c in audit.comparisons} == {"suspect-bug"}
    [finding] = checks(audit, "rederive-mismatch")
    assert finding.subject == "tampered" and finding.severity == "error"
    assert "exp/dropout-vs-baseline/accuracy/test" in finding.claims
    assert "exp/dropout/accuracy/test" in finding.claims
    assert "exp/dropout/loss/test" not in finding.claims


def test_collapsed_run_makes_the_comparison_a_suspect_bug(tmp_path):
    write_variant(tmp_path, "baseline", [0.80, 0.81, 0.79])
    write_variant(tmp_path, "dropout", [0.90, 0.91, 0.89], overrides=DROPOUT, collapse=True)
    audit = audit_runs(tmp_path)
    assert comparison(audit).verdict == "suspect-bug"
    assert len(checks(audit, "collapse")) == 3


def test_single_seed_is_disclosed_once_per_variant_and_underpowered(tmp_path):
    write_variant(tmp_path, "baseline", [0.80, 0.81, 0.79])
    write_variant(tmp_path, "dropout", [0.95], overrides=DROPOUT)
    audit = audit_runs(tmp_path)
    [finding] = checks(audit, "single-seed")
    assert finding.subject == "exp/dropout"
    assert "exp/dropout-vs-baseline/accuracy/test" in finding.claims
    result = comparison(audit)
    assert result.verdict == "underpowered" and result.ci_low is None and result.cand.std is None
    # Only the baseline has spread (sd 0.01): mde = (1.95996 + 0.84162) * 0.01 * sqrt(1/3 + 1).
    assert result.mde == pytest.approx(2.801585 * 0.01 * (4 / 3) ** 0.5, rel=1e-5)


def test_selection_on_test_and_stale_checkpoint_are_findings(tmp_path):
    write_run(tmp_path, "a", test_accuracy=0.8, seed=0, selection_split="test")
    write_run(tmp_path, "b", test_accuracy=0.8, seed=1, selected_step=10, evaluated_step=4)
    audit = audit_runs(tmp_path)
    assert [f.subject for f in checks(audit, "selection-on-test")] == ["a"]
    [stale] = checks(audit, "stale-checkpoint")
    assert stale.subject == "b" and "selected_step=10" in stale.detail
    assert "exp/baseline/accuracy/test" in stale.claims


def test_missing_direction_is_a_finding(tmp_path):
    two_variants(tmp_path, [0.80, 0.81, 0.79], [0.90, 0.91, 0.89], direction=None)
    audit = audit_runs(tmp_path)
    [finding] = checks(audit, "direction-missing")
    assert finding.subject == "exp/accuracy"
    assert "exp/dropout-vs-baseline/accuracy/test" in finding.claims
    assert comparison(audit).direction is None


def test_unfinished_runs_are_skipped_and_reported(tmp_path):
    two_variants(tmp_path, [0.80, 0.81, 0.79], [0.90, 0.91, 0.89])
    write_run(tmp_path, "running", test_accuracy=0.1, variant="dropout", seed=9,
              overrides=DROPOUT, status="running")
    audit = audit_runs(tmp_path)
    assert comparison(audit).cand.n == 3
    [skipped] = checks(audit, "skipped-run")
    assert skipped.subject == "running" and skipped.severity == "info"


def test_no_runs_is_unusable_input(tmp_path):
    with pytest.raises(RunStateError, match="no finished"):
        audit_runs(tmp_path)
    with pytest.raises(RunStateError, match="no runs directory"):
        audit_runs(tmp_path / "absent")


def test_corrupt_results_json_names_the_file(tmp_path):
    run_dir = write_run(tmp_path, "a", test_accuracy=0.8)
    (run_dir / "results.json").write_text("{not json")
    with pytest.raises(RunStateError, match=r"results\.json"):
        audit_runs(tmp_path)


def test_same_inputs_give_byte_identical_json(tmp_path):
    runs = tmp_path / "runs"
    two_variants(runs, [0.80, 0.85, 0.75], [0.82, 0.76, 0.86])
    write_run(runs, "one-off", test_accuracy=0.5, exp_id="other")
    for name in ("first", "second"):
        write_report(audit_runs(runs), tmp_path / name / "report.json",
                     tmp_path / name / "report.md")
    first = (tmp_path / "first" / "report.json").read_bytes()
    assert first == (tmp_path / "second" / "report.json").read_bytes()
    assert (tmp_path / "first" / "report.md").read_bytes() == \
        (tmp_path / "second" / "report.md").read_bytes()
    report = json.loads(first)
    assert report["schema"] == "rgt/verify/v1"
    assert first.decode() == json.dumps(report, indent=2, sort_keys=True) + "\n"
