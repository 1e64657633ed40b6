"""Group finished runs into experiments: the baseline, the variants and the metrics they report."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from rgt.verify.findings import ClaimIndex, Finding
from rgt.verify.runs import Run

HEADLINE_SPLIT = "test"
DIRECTIONS = ("higher", "lower")


@dataclass(frozen=True)
class Experiment:
    """One exp_id: its baseline variant name and its runs per variant (sorted by seed)."""

    exp_id: str
    baseline: str
    variants: dict[str, tuple[Run, ...]]

    @property
    def candidates(self) -> list[str]:
        """Every variant compared with the baseline (none if the baseline has no runs)."""
        if self.baseline not in self.variants:
            return []
        return sorted(name for name in self.variants if name != self.baseline)

    def metric_names(self) -> list[str]:
        """Every metric name reported by any run of the experiment."""
        return sorted({str(e.get("name")) for runs in self.variants.values()
                       for run in runs for e in run.metrics()})

    def report_split(self, metric: str) -> str:
        """The split ``metric`` is compared and delivered on (``test`` unless the runs'
        ``job.metrics`` declare another)."""
        runs = [run for runs in self.variants.values() for run in runs]
        return runs[0].report_split(metric) if runs else HEADLINE_SPLIT

    def compared_metrics(self, candidate: str) -> list[str]:
        """Metrics with a value on their report split on both sides of ``candidate`` vs
        baseline."""
        def reported(variant: str, name: str) -> bool:
            return any(run.metric_value(name, self.report_split(name)) is not None
                       for run in self.variants[variant])

        return [name for name in self.metric_names()
                if reported(candidate, name) and reported(self.baseline, name)]

    def direction(self, metric: str) -> str | None:
        """The metric's declared direction; None if missing, invalid or inconsistent."""
        declared = {e.get("direction") for runs in self.variants.values() for run in runs
                    for e in run.metrics() if e.get("name") == metric}
        return declared.pop() if len(declared) == 1 and declared <= set(DIRECTIONS) else None


def group_experiments(runs: tuple[Run, ...]) -> tuple[list[Experiment], list[Finding]]:
    """Experiments sorted by exp_id, plus findings about inconsistent or missing baselines."""
    by_exp: dict[str, list[Run]] = {}
    for run in runs:
        by_exp.setdefault(run.exp_id, []).append(run)
    experiments, findings = [], []
    for exp_id in sorted(by_exp):
        experiment, problems = _build_experiment(exp_id, by_exp[exp_id])
        experiments.append(experiment)
        findings += problems
    return experiments, findings


def _build_experiment(exp_id: str, runs: list[Run]) -> tuple[Experiment, list[Finding]]:
    votes = Counter(run.baseline_variant for run in runs)
    # Most common wins; ties go to the first name so the choice is deterministic.
    baseline = min(votes, key=lambda name: (-votes[name], name))
    variants: dict[str, tuple[Run, ...]] = {}
    for run in runs:
        variants[run.variant] = (*variants.get(run.variant, ()), run)
    findings = []
    if len(votes) > 1:
        findings.append(Finding("baseline-inconsistent", "warning", exp_id,
                                f"runs name different baselines {sorted(votes)}; using "
                                f"{baseline!r}"))
    if baseline not in variants:
        findings.append(Finding("missing-baseline", "warning", exp_id,
                                f"no finished run of baseline variant {baseline!r}; "
                                f"nothing in {exp_id} is compared"))
    return Experiment(exp_id, baseline, variants), findings


def build_claim_index(experiments: list[Experiment]) -> ClaimIndex:
    """Every variant claim (metric x split) and every headline comparison claim."""
    index = ClaimIndex()
    for experiment in experiments:
        for variant, runs in experiment.variants.items():
            for entry in (e for run in runs for e in run.metrics()):
                index.add_variant_metric(experiment.exp_id, variant, str(entry.get("name")),
                                         str(entry.get("split")))
        for candidate in experiment.candidates:
            for metric in experiment.compared_metrics(candidate):
                index.add_comparison(experiment.exp_id, candidate, experiment.baseline, metric,
                                     experiment.report_split(metric))
    return index
