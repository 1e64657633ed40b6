"""Claim ids and the disclosure lines verify findings attach to them.

A claim id is ``<exp_id>/<variant>/<metric>/<split>``; figures (their provenance) and the
evidence document both name claims this way, so the ids live in DELIVER, below EVIDENCE.
"""

from __future__ import annotations

SINGLE_SEED = "single seed"


def claim_id(exp_id: str, variant: str, metric: str, split: str) -> str:
    """The id of the claim about ``variant``'s mean ``metric`` on ``split``."""
    return f"{exp_id}/{variant}/{metric}/{split}"


def finding_text(finding: dict) -> str:
    """A finding as one disclosure line: ``<severity>: <check>: <detail>``."""
    return f"{finding.get('severity')}: {finding.get('check')}: {finding.get('detail')}"


def finding_disclosures(claim: str, findings: list[dict]) -> list[str]:
    """Disclosure lines of the findings that list ``claim``, in report order, without repeats."""
    texts = [finding_text(item) for item in findings if claim in (item.get("claims") or [])]
    return list(dict.fromkeys(texts))


def variant_disclosures(claim: str, n_seeds: int, findings: list[dict]) -> list[str]:
    """Findings attached to a variant claim, plus ``single seed`` when only one seed ran."""
    single = [SINGLE_SEED] if n_seeds == 1 else []
    return finding_disclosures(claim, findings) + single
