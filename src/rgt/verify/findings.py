"""Findings and the claim ids they attach to."""

from __future__ import annotations

from dataclasses import dataclass, field

SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Finding:
    """One integrity finding: what was checked, how bad, about what, and which claims it taints."""

    check: str
    severity: str
    subject: str
    detail: str
    claims: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict:
        """The report form: claims sorted and unique."""
        return {
            "check": self.check,
            "severity": self.severity,
            "subject": self.subject,
            "detail": self.detail,
            "claims": sorted(set(self.claims)),
        }

    def sort_key(self) -> tuple:
        """Errors first, then by check, subject and detail, so the report order is stable."""
        return (SEVERITY_RANK.get(self.severity, 9), self.check, self.subject, self.detail)


def variant_claim(exp_id: str, variant: str, metric: str, split: str) -> str:
    """Claim id of one variant's number: ``<exp_id>/<variant>/<metric>/<split>``."""
    return f"{exp_id}/{variant}/{metric}/{split}"


def comparison_claim(exp_id: str, candidate: str, baseline: str, metric: str, split: str) -> str:
    """Claim id of a comparison: ``<exp_id>/<candidate>-vs-<baseline>/<metric>/<split>``."""
    return f"{exp_id}/{candidate}-vs-{baseline}/{metric}/{split}"


class ClaimIndex:
    """Which claims exist, so a finding about a variant can name every claim it affects."""

    def __init__(self) -> None:
        self._variant: dict[tuple[str, str], set[tuple[str, str]]] = {}
        self._comparisons: dict[tuple[str, str], set[tuple[str, str, str, str]]] = {}

    def add_variant_metric(self, exp_id: str, variant: str, metric: str, split: str) -> None:
        """Register the claim ``<exp_id>/<variant>/<metric>/<split>``."""
        self._variant.setdefault((exp_id, variant), set()).add((metric, split))

    def add_comparison(self, exp_id: str, candidate: str, baseline: str, metric: str,
                       split: str) -> None:
        """Register a comparison claim under both of its variants."""
        for variant in (candidate, baseline):
            key = (exp_id, variant)
            self._comparisons.setdefault(key, set()).add((candidate, baseline, metric, split))

    def claims_for(self, exp_id: str, variant: str, metric: str | None = None,
                   split: str | None = None) -> tuple[str, ...]:
        """Claims of ``variant`` (and comparisons it is part of), optionally one metric/split."""
        def wanted(m: str, s: str) -> bool:
            return (metric is None or m == metric) and (split is None or s == split)

        claims = [variant_claim(exp_id, variant, m, s)
                  for m, s in self._variant.get((exp_id, variant), ()) if wanted(m, s)]
        claims += [comparison_claim(exp_id, cand, base, m, s)
                   for cand, base, m, s in self._comparisons.get((exp_id, variant), ())
                   if wanted(m, s)]
        return tuple(sorted(claims))
