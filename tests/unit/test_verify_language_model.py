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
