"""A language model is not a broken classifier: its argmax sits on the most frequent token,
which must not fire `collapse` or the shuffled control on its loss and perplexity."""

from __future__ import annotations

from test_verify_support import write_lm_run

from rgt.verify.audit import audit_runs


def bug_findings(audit):
    return [f for f in audit.findings if f.severity == "error"]


def test_small_lm_with_frequent_token_argmax_is_not_collapse(tmp_path):
    for seed in range(3):
        write_lm_run(tmp_path, "baseline", seed, informative=0.20)
        write_lm_run(tmp_path, "dropout", seed, informative=0.25)
    audit = audit_runs(tmp_path)
    assert bug_findings(audit) == []
    assert {c.metric for c in audit.comparisons} == {"loss", "perplexity"}
    assert "suspect-bug" not in {c.verdict for c in audit.comparisons}


def test_an_lm_reporting_accuracy_has_only_its_accuracy_claims_called_collapse(tmp_path):
    for seed in range(3):
        write_lm_run(tmp_path, "baseline", seed, informative=0.20, with_accuracy=True)
        write_lm_run(tmp_path, "dropout", seed, informative=0.25, with_accuracy=True)
    audit = audit_runs(tmp_path)
    collapse = [f for f in audit.findings if f.check == "collapse"]
    assert collapse and all("majority-class rate" in f.detail for f in collapse)
    assert all("/accuracy/" in claim for f in collapse for claim in f.claims)
    verdicts = {c.metric: c.verdict for c in audit.comparisons}
    assert verdicts["accuracy"] == "suspect-bug"
    assert verdicts["loss"] != "suspect-bug" and verdicts["perplexity"] != "suspect-bug"


def test_an_lm_whose_probabilities_ignore_the_input_is_collapse(tmp_path):
    for seed in range(2):
        write_lm_run(tmp_path, "baseline", seed, informative=0.20)
        write_lm_run(tmp_path, "dropout", seed, informative=0.0)  # the unigram distribution
    audit = audit_runs(tmp_path)
    collapsed = {f.subject for f in audit.findings if f.check == "collapse"}
    assert collapsed == {"lm-dropout-0", "lm-dropout-1"}
    assert {c.verdict for c in audit.comparisons} == {"suspect-bug"}


def test_compact_records_rederive_loss_and_perplexity_and_say_what_was_not_run(tmp_path):
    for seed in range(2):
        write_lm_run(tmp_path, "baseline", seed, informative=0.20, records="compact")
        write_lm_run(tmp_path, "dropout", seed, informative=0.25, records="compact")
    audit = audit_runs(tmp_path)
    assert bug_findings(audit) == []
    assert not [f for f in audit.findings if f.check == "not-rederivable"]
    [note] = {f.detail.split(": ", 1)[1] for f in audit.findings
              if f.check == "checks-unavailable"}
    assert note == "not run: the label-shuffled control of loss, perplexity (no `label` + " \
                   "`scores` columns)"


def test_a_tampered_perplexity_is_caught_from_compact_records(tmp_path):
    import json

    run_dir = write_lm_run(tmp_path, "baseline", 0, informative=0.2, records="compact")
    results = json.loads((run_dir / "results.json").read_text())
    for entry in results["metrics"]:
        if entry["name"] == "perplexity" and entry["split"] == "test":
            entry["value"] *= 0.9
    (run_dir / "results.json").write_text(json.dumps(results))
    [mismatch] = [f for f in audit_runs(tmp_path).findings if f.check == "rederive-mismatch"]
    assert "perplexity/test" in mismatch.detail


def test_runs_without_per_sample_records_are_audited_and_say_so(tmp_path):
    for seed in range(2):
        write_lm_run(tmp_path, "baseline", seed, informative=0.20, records="none")
        write_lm_run(tmp_path, "dropout", seed, informative=0.25, records="none")
    audit = audit_runs(tmp_path)
    assert len(audit.runset.runs) == 4 and len(audit.comparisons) == 2
    notes = [f for f in audit.findings if f.check == "checks-unavailable"]
    assert len(notes) == 4 and all("wrote no predictions.parquet" in f.detail for f in notes)
