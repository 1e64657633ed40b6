"""Compare regenerated evidence with the committed reference, claim by claim.

``make repro`` rebuilds the delivery and calls this: every claim of the reference must come
back with the same ``n``, and no claim may appear or vanish. How close a value must land
depends on where the two were made (``made_on``: the platform fingerprints of the runs behind
the evidence, ``rgt.train.platform``):

- **the same fingerprint**: bit-identity is promised, so within the claim's declared
  ``tolerance`` (from the claims file; default 1e-9);
- **another fingerprint** (another CPU, BLAS, thread count or device): the float rounding
  differs and training may amplify it, so a value is judged against the seed spread — a
  variant's mean must lie inside the reference's 95% t interval of that mean (t · std / √n),
  a comparison's difference inside the reference's 95% interval of the difference. A single
  seed has no spread: it is held to the tolerance. Both values are reported either way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from scipy import stats

from rgt.evidence.userclaims import DEFAULT_TOLERANCE

CONFIDENCE = 0.95


@dataclass
class Reproduction:
    """The outcome: whether both sides were made on one platform, every claim's comparison
    (``{"claim", "expected", "found", "diff", "rule", "ok"}``) and the mismatches."""

    same_platform: bool
    reference_platforms: list[dict]
    current_platforms: list[dict]
    compared: list[dict] = field(default_factory=list)
    mismatches: list[dict] = field(default_factory=list)


def _by_id(evidence: dict) -> dict[str, dict]:
    return {claim["id"]: claim for claim in evidence.get("claims") or []}


def fingerprints(evidence: dict) -> set[str]:
    """The platform fingerprints ``evidence`` says its runs were made on."""
    return {entry.get("fingerprint") for entry in evidence.get("made_on") or []}


def same_platform(reference: dict, current: dict) -> bool:
    """Whether both were made on the same platforms (evidence from before fingerprints were
    recorded counts as the same: it was held to the tolerance then)."""
    ref, cur = fingerprints(reference), fingerprints(current)
    return not ref or not cur or ref == cur


def spread_bound(claim: dict) -> tuple[float, float, str] | None:
    """(low, high, rule) a value made elsewhere must land in, from the reference's seed
    spread; None where the claim has none (one seed, no variance)."""
    variance, n, value = claim.get("variance") or {}, claim.get("n") or 0, claim.get("value")
    if variance.get("type") == "ci95" and variance.get("value"):
        low, high = variance["value"]
        return low, high, f"inside the reference's {CONFIDENCE:.0%} CI [{low:.6g}, {high:.6g}]"
    if variance.get("type") == "std" and variance.get("value") is not None and n >= 2:
        half = stats.t.ppf(1 - (1 - CONFIDENCE) / 2, n - 1) * variance["value"] / math.sqrt(n)
        return (value - half, value + half,
                f"within the reference mean's {CONFIDENCE:.0%} interval ±{half:.6g} "
                f"(t · seed std {variance['value']:.6g} / √{n})")
    return None


def value_check(reference: dict, current: dict, same: bool) -> tuple[str | None, str]:
    """(why ``current`` does not reproduce ``reference`` or None, the rule applied)."""
    if reference.get("n") != current.get("n"):
        return f"n is {current.get('n')}, reference {reference.get('n')}", "the same n"
    expected, found = reference.get("value"), current.get("value")
    if expected is None or found is None:
        problem = None if expected is found else f"value is {found!r}, reference {expected!r}"
        return problem, "both empty"
    tolerance = reference.get("tolerance", DEFAULT_TOLERANCE)
    bound = None if same else spread_bound(reference)
    if bound is None:
        rule = f"tolerance {tolerance!r}" + ("" if same else
                                            " (no seed spread to judge another platform by)")
        ok = math.isfinite(found) and abs(found - expected) <= tolerance
    else:
        low, high, rule = bound
        ok = math.isfinite(found) and (low <= found <= high or abs(found - expected) <= tolerance)
    return (None if ok else f"value is {found!r}, reference {expected!r} ({rule})"), rule


def reproduce(reference: dict, current: dict) -> Reproduction:
    """Compare every claim of both documents."""
    same = same_platform(reference, current)
    result = Reproduction(same, reference.get("made_on") or [], current.get("made_on") or [])
    ref, cur = _by_id(reference), _by_id(current)
    for claim_id in sorted(set(ref) | set(cur)):
        expected, found = ref.get(claim_id), cur.get(claim_id)
        rule = ""
        if found is None:
            problem = "missing from the regenerated evidence"
        elif expected is None:
            problem = "not in the reference evidence"
        else:
            problem, rule = value_check(expected, found, same)
        entry = _entry(claim_id, expected, found, rule, problem)
        result.compared.append(entry)
        if problem:
            result.mismatches.append({key: entry[key] for key in
                                      ("claim", "problem", "expected", "found")})
    return result


def _entry(claim_id: str, expected: dict | None, found: dict | None, rule: str,
           problem: str | None) -> dict:
    value, now = (expected or {}).get("value"), (found or {}).get("value")
    both = isinstance(value, (int, float)) and isinstance(now, (int, float))
    return {"claim": claim_id, "expected": value, "found": now,
            "diff": now - value if both else None, "rule": rule, "ok": problem is None,
            "problem": problem, "expected_claim": expected is not None}


def compare_evidence(reference: dict, current: dict) -> list[dict]:
    """Every mismatch as ``{"claim", "problem", "expected", "found"}``; empty when reproduced."""
    return reproduce(reference, current).mismatches
