"""The audit: load runs, run every check, compare variants, and collect the findings."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from rgt.verify.checks import BUG_CHECKS, run_findings
from rgt.verify.compare import Comparison, compare_experiment
from rgt.verify.experiments import Experiment, build_claim_index, group_experiments
from rgt.verify.findings import ClaimIndex, Finding
from rgt.verify.leakage import leakage_findings
from rgt.verify.predictions import load_predictions
from rgt.verify.report_split import report_split_findings
from rgt.verify.runs import RunSet, load_runs
from rgt.verify.settings import Settings
from rgt.verify.smoke_records import probe_findings
from rgt.verify.stats import WELCH

SCHEMA = "rgt/verify/v1"


@dataclass(frozen=True)
class Audit:
    """Everything ``rgt verify`` found: comparisons, findings, and the inputs' shape."""

    comparisons: tuple[Comparison, ...]
    findings: tuple[Finding, ...]
    runset: RunSet
    settings: Settings

    def to_report(self) -> dict:
        """The ``rgt/verify/v1`` report object (write it key-sorted)."""
        return {
            "schema": SCHEMA,
            "settings": self.settings.to_dict(),
            "comparisons": [comparison.to_dict() for comparison in self.comparisons],
            "findings": [finding.to_dict() for finding in self.findings],
        }


def audit_runs(runs_dir: str | Path, settings: Settings | None = None,
               only: Collection[str] | None = None,
               smoke_dir: str | Path | None = None) -> Audit:
    """Audit the runs under ``runs_dir`` (only those ids when given), reading the smoke records
    under ``smoke_dir`` when given; raises ``RunStateError`` on unusable input only."""
    settings = settings or Settings()
    runset = load_runs(runs_dir, only)
    experiments, findings = group_experiments(runset.runs)
    claims = build_claim_index(experiments)
    findings += skipped_findings(runset)
    findings += report_split_findings(experiments, claims)
    for run in runset.runs:
        findings += run_findings(run, load_predictions(run.predictions_path), claims)
    findings += leakage_findings(runset.runs, claims)
    findings += probe_findings(runset.runs, smoke_dir, claims)
    suspects = suspect_claims(findings)
    comparisons = [c for exp in experiments for c in compare_experiment(exp, suspects, settings)]
    for experiment in experiments:
        findings += variant_findings(experiment, claims)
    findings += comparison_findings(comparisons, settings)
    return Audit(tuple(comparisons), tuple(sorted(findings, key=Finding.sort_key)), runset,
                 settings)


def suspect_claims(findings: list[Finding]) -> dict[str, list[str]]:
    """Claim id -> the runs whose failed bug checks (errors) name that claim."""
    suspects: dict[str, list[str]] = {}
    for finding in findings:
        if finding.check in BUG_CHECKS and finding.severity == "error":
            for claim in finding.claims:
                suspects.setdefault(claim, []).append(finding.subject)
    return suspects


def skipped_findings(runset: RunSet) -> list[Finding]:
    """One ``skipped-run`` finding per run directory that was not audited."""
    return [Finding("skipped-run", skipped.severity, skipped.run_id, skipped.reason)
            for skipped in runset.skipped]


def variant_findings(experiment: Experiment, claims: ClaimIndex) -> list[Finding]:
    """``single-seed`` per one-run variant and ``direction-missing`` per undirected metric."""
    exp_id = experiment.exp_id
    findings = [Finding("single-seed", "warning", f"{exp_id}/{variant}",
                        f"{exp_id}/{variant} has a single seed (run {runs[0].run_id}); its "
                        f"numbers carry no variance estimate", claims.claims_for(exp_id, variant))
                for variant, runs in sorted(experiment.variants.items()) if len(runs) == 1]
    findings += missing_metric_findings(experiment, claims)
    for metric in experiment.metric_names():
        if experiment.direction(metric) is None:
            affected = [c for v in sorted(experiment.variants)
                        for c in claims.claims_for(exp_id, v, metric)]
            findings.append(Finding("direction-missing", "error", f"{exp_id}/{metric}",
                                    f"metric {metric!r} has no consistent direction "
                                    f"('higher' or 'lower'); diffs are left unoriented",
                                    tuple(affected)))
    return findings


def missing_metric_findings(experiment: Experiment, claims: ClaimIndex) -> list[Finding]:
    """``missing-metric`` per run whose results.json lacks a metric (on a split) that other runs
    of its experiment report: its variant's number is over fewer seeds, and this says which
    run and why, instead of the run dropping out silently."""
    exp_id, findings = experiment.exp_id, []
    reported = sorted({(str(e.get("name")), str(e.get("split")))
                       for runs in experiment.variants.values() for run in runs
                       for e in run.metrics() if e.get("value") is not None})
    for variant, runs in sorted(experiment.variants.items()):
        for name, split in reported:
            lacking = [run for run in runs if run.metric_value(name, split) is None]
            for run in lacking:
                findings.append(Finding(
                    "missing-metric", "warning", run.run_id,
                    f"run {run.run_id} ({exp_id}/{variant}, seed {run.seed}) has no {split} "
                    f"{name} in its results.json: {exp_id}/{variant}'s {split} {name} is over "
                    f"n = {len(runs) - len(lacking)}/{len(runs)} seeds",
                    claims.claims_for(exp_id, variant, name, split)))
    return findings


def comparison_findings(comparisons: list[Comparison], settings: Settings) -> list[Finding]:
    """``confounded`` once per variant pair; per comparison ``underpowered``, ``zero-spread``
    and ``pairing-unavailable`` where they apply."""
    findings, seen_pairs = [], set()
    for comparison in comparisons:
        pair = (comparison.exp_id, comparison.candidate, comparison.baseline)
        if comparison.confounders and pair not in seen_pairs:
            seen_pairs.add(pair)
            findings.append(_confounded(comparison, comparisons))
        if comparison.verdict == "underpowered":
            findings.append(_underpowered(comparison))
        findings += _zero_spread(comparison)
        if settings.pairing == "paired" and comparison.method == WELCH:
            findings.append(Finding(
                "pairing-unavailable", "info", comparison.claim_id,
                "verify.pairing is 'paired' but fewer than two seeds (with differing "
                "differences) are shared by both variants: Welch's unpaired t was used",
                (comparison.claim_id,)))
    return findings


def _zero_spread(comparison: Comparison) -> list[Finding]:
    """A warning per side whose seeds (two or more) all gave the same value."""
    sides = ((comparison.baseline, comparison.base), (comparison.candidate, comparison.cand))
    return [Finding("zero-spread", "warning", f"{comparison.exp_id}/{variant}/{comparison.metric}",
                    f"all {side.n} seeds of {comparison.exp_id}/{variant} gave "
                    f"{comparison.metric} = {side.values[0]!r}: does the seed reach training? "
                    f"Seed noise cannot be estimated from this variant", (comparison.claim_id,))
            for variant, side in sides if side.constant]


def _confounded(comparison: Comparison, comparisons: list[Comparison]) -> Finding:
    claims = tuple(c.claim_id for c in comparisons
                   if (c.exp_id, c.candidate, c.baseline) ==
                   (comparison.exp_id, comparison.candidate, comparison.baseline))
    subject = f"{comparison.exp_id}/{comparison.candidate}-vs-{comparison.baseline}"
    detail = (f"resolved configs differ in undeclared keys {list(comparison.confounders)} "
              f"(declared variable: {list(comparison.variable)})")
    return Finding("confounded", "warning", subject, detail, claims)


def _underpowered(comparison: Comparison) -> Finding:
    return Finding("underpowered", "warning", comparison.claim_id, comparison.reason,
                   (comparison.claim_id,))
