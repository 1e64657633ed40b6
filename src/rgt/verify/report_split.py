"""A metric delivered on a split other than ``test``: ``job.metrics.<metric>.split`` (``val``)
in a project that has no test split. It is compared and delivered there, and every claim it
makes says so: a validation number is no held-out estimate."""

from __future__ import annotations

from rgt.config.model import REPORT_SPLIT
from rgt.verify.experiments import Experiment
from rgt.verify.findings import ClaimIndex, Finding

CHECK = "report-split"


def report_split_findings(experiments: list[Experiment], claims: ClaimIndex) -> list[Finding]:
    """One warning per experiment and metric reported off the test split, naming every claim
    (variants and comparisons) of that metric on that split."""
    findings = []
    for experiment in experiments:
        for metric in experiment.metric_names():
            split = experiment.report_split(metric)
            if split != REPORT_SPLIT:
                affected = tuple(claim for variant in experiment.variants for claim in
                                 claims.claims_for(experiment.exp_id, variant, metric, split))
                findings.append(Finding(CHECK, "warning", experiment.exp_id,
                                        disclosure(metric, split), affected))
    return findings


def disclosure(metric: str, split: str) -> str:
    """What a number on ``split`` is, and is not."""
    return (f"{metric} is delivered on the {split} split, as job.metrics.{metric}.split "
            f"declares, not on a held-out test split: if the {split} split also chose the "
            "checkpoint or the hyper-parameters, the number is optimistic; confirm it on data "
            "no choice has seen before claiming it generalises")
