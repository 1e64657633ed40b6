"""``rgt verify`` end to end on synthetic run directories: verdicts, findings, determinism."""

from __future__ import annotations

import json

import pytest
from test_verify_support import write_run, write_variant

from rgt.base.errors import RunStateError
from rgt.verify.audit import audit_runs
from rgt.verify.report import write_report
from rgt.verify.settings import MinEffect, Settings
from rgt.verify.stats import Design

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
    result = comparison(audit_runs(tmp_path, Settings({"accuracy": MinEffect(0.5)})))
    assert result.verdict == "noise" and result.power > 0.99
    assert "power to detect 50.00 pp" in result.reason


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
    # The stored accuracy disagrees with the predictions; the loss re-derives: only the
    # accuracy comparison is suspect.
    assert comparison(audit).verdict == "suspect-bug"
    assert "tampered" in comparison(audit).reason
    assert comparison(audit, metric="loss").verdict != "suspect-bug"
    [finding] = checks(audit, "rederive-mismatch")
    assert finding.subject == "tampered" and finding.severity == "error"
    assert "exp/dropout-vs-baseline/accuracy/test" in finding.claims
    assert "exp/dropout/accuracy/test" in finding.claims
    assert "exp/dropout/loss/test" not in finding.claims


def test_collapsed_run_makes_the_comparison_a_suspect_bug(tmp_path):
    write_variant(tmp_path, "baseline", [0.80, 0.81, 0.79])
    write_variant(tmp_path, "dropout", [0.90, 0.91, 0.89], overrides=DROPOUT, collapse=True)
    audit = audit_runs(tmp_path)
    assert {c.verdict for c in audit.comparisons} == {"suspect-bug"}
    collapse = checks(audit, "collapse")
    # Each run collapses in both views: one argmax class, and probabilities worse than the
    # label frequencies.
    assert len(collapse) == 6 and {f.subject for f in collapse} == {
        "exp-dropout-0", "exp-dropout-1", "exp-dropout-2"}


def test_single_seed_is_disclosed_once_per_variant_and_underpowered(tmp_path):
    write_variant(tmp_path, "baseline", [0.80, 0.81, 0.79])
    write_variant(tmp_path, "dropout", [0.95], overrides=DROPOUT)
    audit = audit_runs(tmp_path)
    [finding] = checks(audit, "single-seed")
    assert finding.subject == "exp/dropout"
    assert "exp/dropout-vs-baseline/accuracy/test" in finding.claims
    result = comparison(audit)
    assert result.verdict == "underpowered" and result.ci_low is None and result.cand.std is None
    # Only the baseline has spread (sd 0.01): the MDE plans with it, at df = 3 + 1 - 2.
    assert result.mde == pytest.approx(Design(False, 0.01).mde(3, 1))
    assert "at least 2 seeds per variant" in result.reason


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


def test_all_equal_seeds_are_underpowered_with_a_zero_spread_finding(tmp_path):
    two_variants(tmp_path, [0.80, 0.80, 0.80], [0.90, 0.90, 0.90])
    audit = audit_runs(tmp_path)
    result = comparison(audit)
    assert result.verdict == "underpowered" and result.ci_low is None
    assert "every seed gave the same value" in result.reason
    spread = [f for f in checks(audit, "zero-spread") if "/accuracy" in f.subject]
    assert {f.subject for f in spread} == {"exp/baseline/accuracy", "exp/dropout/accuracy"}
    assert all("does the seed reach training?" in f.detail for f in spread)


def test_a_nan_metric_is_a_finding_and_a_suspect_comparison_not_a_traceback(tmp_path):
    from rgt.cli import main

    runs = tmp_path / "runs"
    write_variant(runs, "baseline", [0.80, 0.81, 0.79])
    write_variant(runs, "dropout", [0.90, 0.91], overrides=DROPOUT)
    write_run(runs, "diverged", test_accuracy=0.9, variant="dropout", seed=2,
              overrides=DROPOUT, tamper={("accuracy", "test"): float("nan")})
    report = tmp_path / "report.json"
    assert main(["verify", "--runs", str(runs), "--json", str(report), "--md",
                 str(tmp_path / "report.md")]) == 0
    written = json.loads(report.read_text())
    [nan] = [f for f in written["findings"] if f["check"] == "non-finite-metric"]
    assert nan["subject"] == "diverged" and "nan" in nan["detail"]
    accuracy = next(c for c in written["comparisons"] if c["metric"] == "accuracy")
    assert accuracy["verdict"] == "suspect-bug" and accuracy["n_candidate"] == 2


def test_every_seed_nan_on_one_side_still_gives_a_verdict(tmp_path):
    write_variant(tmp_path, "baseline", [0.80, 0.81, 0.79])
    for seed in range(2):
        write_run(tmp_path, f"nan{seed}", test_accuracy=0.9, variant="dropout", seed=seed,
                  overrides=DROPOUT, tamper={("accuracy", "test"): float("nan")})
    result = comparison(audit_runs(tmp_path))
    assert result.verdict == "suspect-bug" and result.diff is None and result.cand.n == 0


def test_a_variant_without_its_baseline_is_a_finding(tmp_path):
    write_variant(tmp_path, "dropout", [0.90, 0.91], overrides=DROPOUT)
    audit = audit_runs(tmp_path)
    assert audit.comparisons == ()
    [missing] = checks(audit, "missing-baseline")
    assert "no finished run of baseline variant 'baseline'" in missing.detail


def test_paired_analysis_is_used_when_asked_and_said_when_impossible(tmp_path):
    two_variants(tmp_path, [0.80, 0.85, 0.90], [0.81, 0.87, 0.905])
    paired = comparison(audit_runs(tmp_path, Settings(pairing="paired")))
    assert paired.method == "paired t" and paired.test.n_pairs == 3
    write_run(tmp_path, "extra", test_accuracy=0.5, variant="dropout", seed=7, overrides=DROPOUT)
    other = tmp_path / "unpaired"
    write_variant(other, "baseline", [0.80, 0.85, 0.90])
    for seed, value in zip((5, 6), (0.81, 0.87), strict=True):
        write_run(other, f"c{seed}", test_accuracy=value, variant="dropout", seed=seed,
                  overrides=DROPOUT)
    audit = audit_runs(other, Settings(pairing="paired"))
    assert comparison(audit).method == "Welch t"
    assert checks(audit, "pairing-unavailable")


def test_a_run_missing_a_metric_is_a_finding_naming_it_and_the_seed_count(tmp_path, capsys):
    two_variants(tmp_path, [0.80, 0.81, 0.79], [0.90, 0.91, 0.89])
    results_path = tmp_path / "exp-dropout-1" / "results.json"
    results = json.loads(results_path.read_text())
    results["metrics"] = [m for m in results["metrics"]
                          if (m["name"], m["split"]) != ("loss", "test")]
    results_path.write_text(json.dumps(results))
    audit = audit_runs(tmp_path)
    [finding] = checks(audit, "missing-metric")
    assert finding.subject == "exp-dropout-1" and finding.severity == "warning"
    assert finding.detail == ("run exp-dropout-1 (exp/dropout, seed 1) has no test loss in its "
                              "results.json: exp/dropout's test loss is over n = 2/3 seeds")
    assert "exp/dropout/loss/test" in finding.claims
    assert "exp/dropout-vs-baseline/loss/test" in finding.claims  # its comparison says why
    assert (comparison(audit, metric="loss").base.n, comparison(audit, "loss").cand.n) == (3, 2)

    from rgt.cli import main

    assert main(["aggregate", "--runs", str(tmp_path), "--out",
                 str(tmp_path.parent / "aggregate.json")]) == 0
    assert ("warning: exp/dropout loss/test is over n = 2/3 seeds: no loss/test in run(s) "
            "exp-dropout-1") in capsys.readouterr().err
