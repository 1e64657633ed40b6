"""Compare regenerated evidence with the committed reference, claim by claim, within tolerance.

``make repro`` rebuilds everything from a clean clone and calls this: every claim of the
reference must come back with the same ``n`` and a value within the claim's declared
``tolerance`` (from the claims file; default 1e-9), and no claim may appear or vanish.
"""

from __future__ import annotations

import math

from rgt.evidence.userclaims import DEFAULT_TOLERANCE


def _by_id(evidence: dict) -> dict[str, dict]:
    return {claim["id"]: claim for claim in evidence.get("claims") or []}


def value_mismatch(reference: dict, current: dict) -> str | None:
    """Why ``current`` does not reproduce ``reference`` (value or n), or None."""
    if reference.get("n") != current.get("n"):
        return f"n is {current.get('n')}, reference {reference.get('n')}"
    expected, found = reference.get("value"), current.get("value")
    if expected is None or found is None:
        return None if expected is found else f"value is {found!r}, reference {expected!r}"
    tolerance = reference.get("tolerance", DEFAULT_TOLERANCE)
    if not math.isfinite(found) or abs(found - expected) > tolerance:
        return f"value is {found!r}, reference {expected!r} (tolerance {tolerance!r})"
    return None


def compare_evidence(reference: dict, current: dict) -> list[dict]:
    """Every mismatch as ``{"claim", "problem", "expected", "found"}``; empty when reproduced."""
    ref, cur = _by_id(reference), _by_id(current)
    mismatches = []
    for claim_id in sorted(set(ref) | set(cur)):
        expected, found = ref.get(claim_id), cur.get(claim_id)
        if found is None:
            problem = "missing from the regenerated evidence"
        elif expected is None:
            problem = "not in the reference evidence"
        else:
            problem = value_mismatch(expected, found)
        if problem:
            mismatches.append({
                "claim": claim_id,
                "problem": problem,
                "expected": (expected or {}).get("value"),
                "found": (found or {}).get("value"),
            })
    return mismatches
