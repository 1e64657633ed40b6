"""Whether a statement states its claim: the value, and what qualifies it.

The value is the claim's mean (a variant) or difference (a comparison; positive = better, as
``rgt verify`` orients it). A difference written without a sign is compared by magnitude, or
with the sign its words give (``improves by``, ``lowers … by`` for a lower-is-better metric); a
lower-is-better difference may be written either way round (``ECE −1.1 pp`` or ``+1.1 pp``).
A spread (``± s``) is the claim's std (or s.e.m. = std/√n when the text says so; the CI's
half-width for a comparison); CI bounds and the confidence level (95%) are the comparison's;
a seed count is the claim's n. When the value matches no candidate and exactly one claim is
left, it is drift; several left is *unmapped* (a name is missing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rgt.evidence.reconcile.attribute import Attribution
from rgt.evidence.reconcile.names import is_comparison
from rgt.evidence.reconcile.numbers import (
    MULTIPLIERS,
    Number,
    matching_scale,
    rewrite,
    scales,
)
from rgt.evidence.reconcile.statistics import Part, Statement

CONFIDENCE = 0.95  # the evidence's comparison intervals are 95% CIs


@dataclass(frozen=True)
class Outcome:
    """What one number of a statement turned out to be."""

    status: str  # "matched", "drift" or "unmapped"
    part: str  # "value", "spread", "low", "high", "level" or "seeds"
    claim: dict | None
    found: str
    start: int  # where the number is in its statement's text
    expected: float | None = None
    fix: str = ""


def allowed_scales(number: Number, statement: Statement, unit: str) -> tuple[float, ...]:
    """The scales ``number`` may be written at, given its statement and its column's unit."""
    if unit in MULTIPLIERS and number.multiplier == 1.0:
        return (1.0 / MULTIPLIERS[unit],)
    percent = unit == "%" or any(part.number.percent for part in statement.parts
                                 if part.role in ("value", "spread", "low", "high"))
    return scales(number, percent)


def oriented_sign(form: frozenset[str], claim: dict) -> int | None:
    """The sign a difference's words give it: ``better``/``worse``, or ``up``/``down`` read
    against the metric's direction."""
    higher = claim.get("direction") != "lower"
    for word, sign in (("better", 1), ("worse", -1), ("up", 1 if higher else -1),
                       ("down", -1 if higher else 1)):
        if word in form:
            return sign
    return None


def value_scale(part: Part, statement: Statement, claim: dict, unit: str) -> float | None:
    """The scale at which the value part states ``claim``'s value, or None."""
    number, allowed, value = part.number, allowed_scales(part.number, statement, unit), \
        claim.get("value")
    if not is_comparison(claim) or value is None:
        return matching_scale(number, value, allowed)
    if number.sign:
        targets = [value, -value] if claim.get("direction") == "lower" else [value]
        return next((s for t in targets if (s := matching_scale(number, t, allowed))), None)
    sign = oriented_sign(statement.form, claim)
    if sign is not None:
        return matching_scale(number, sign * value, allowed)
    return matching_scale(number, value, allowed, signed=False)


def _closest_scale(number: Number, value: float, allowed: tuple[float, ...]) -> float:
    def misfit(scale: float) -> float:
        return abs(math.log10(abs(number.value) + 1e-12) - math.log10(abs(value * scale) + 1e-12))
    return min(allowed, key=misfit)


def fix_for(number: Number, value: float, statement: Statement, unit: str,
            magnitude: bool = False) -> str:
    """``value`` written as ``number`` is written: what to put in the document."""
    allowed = allowed_scales(number, statement, unit)
    shown = abs(value) if magnitude else value
    return rewrite(shown, number, _closest_scale(number, shown, allowed))


def acceptable(part: Part, claim: dict, dispersion: frozenset[str],
               mirrored: bool = False) -> list[float] | None:
    """What a spread, bound, level or seed-count part of ``claim`` may state (None: this
    claim discloses nothing to check it against). ``mirrored``: the CI may be written the
    other way round (a lower-is-better metric, or a difference stated as a magnitude)."""
    variance = claim.get("variance") or {}
    kind, spread = variance.get("type"), variance.get("value")
    if part.role == "seeds":
        return [n for n in (claim.get("n"), claim.get("n_baseline"), claim.get("n_candidate"))
                if n is not None]
    if kind != "ci95" or not isinstance(spread, list) or None in spread:
        return _std_spread(part, claim, dispersion) if kind == "std" else None
    low, high = spread
    either = mirrored or claim.get("direction") == "lower"
    return {"level": [CONFIDENCE], "low": [low, -high] if either else [low],
            "high": [high, -low] if either else [high],
            "spread": None if dispersion & {"std", "sem"} else [(high - low) / 2]}[part.role]


def _std_spread(part: Part, claim: dict, dispersion: frozenset[str]) -> list[float] | None:
    std = (claim.get("variance") or {}).get("value")
    if part.role != "spread" or std is None or (dispersion and not dispersion & {"std", "sem"}):
        return None
    sem = std / math.sqrt(claim.get("n") or 1)
    if "sem" in dispersion:
        return [sem, std] if "std" in dispersion else [sem]
    return [std]


def part_states(part: Part, values: list[float], allowed: tuple[float, ...]) -> bool:
    """Whether the part states one of ``values`` (spreads by magnitude, counts exactly)."""
    if part.role == "seeds":
        return part.number.magnitude in values
    if part.role == "level":
        allowed = (100.0,)
    signed = part.role in ("low", "high")
    return any(matching_scale(part.number, v, allowed, signed=signed) is not None for v in values)


def _found(part: Part) -> str:
    return f"\u00b1 {part.number.text}" if part.role == "spread" else part.number.text


def satellites(statement: Statement, claim: dict, scale: float | None, unit: str,
               dispersion: frozenset[str]) -> list[Outcome]:
    """The spread, bounds and level of a statement checked against its value's claim."""
    outcomes = []
    value = statement.part("value")
    magnitude = value is not None and not value.number.sign and (claim.get("value") or 0) < 0
    for part in statement.parts:
        values = acceptable(part, claim, dispersion, magnitude) if part.role != "value" else None
        if values is None:
            continue
        allowed = (scale,) if scale else allowed_scales(part.number, statement, unit)
        ok = part_states(part, values, allowed)
        fix = "" if ok or part.role in ("seeds", "level") else fix_for(
            part.number, values[0], statement, unit, magnitude=part.role == "spread")
        outcomes.append(Outcome("matched" if ok else "drift", part.role, claim, _found(part),
                                part.number.start, values[0], fix))
    return outcomes


def _value_outcome(status: str, part: Part, statement: Statement, claim: dict,
                   unit: str) -> Outcome:
    magnitude = is_comparison(claim) and not part.number.sign
    fix = "" if status == "matched" else fix_for(part.number, claim["value"], statement, unit,
                                                 magnitude=magnitude)
    return Outcome(status, "value", claim, part.number.text, part.number.start,
                   claim.get("value"), fix)


CLEARLY_CLOSER = 5.0


def closest_experiment(part: Part, statement: Statement, claims: list[dict],
                       unit: str) -> dict | None:
    """Among claims that differ only in experiment (a document naming the variant and metric
    but not the dataset), the one the number is clearly closest to (5× closer than the rest)."""
    if len({(c.get("variant"), c["metric"], is_comparison(c)) for c in claims}) != 1:
        return None
    allowed = allowed_scales(part.number, statement, unit)

    def distance(claim: dict) -> float:
        return min(abs(part.number.value - claim["value"] * scale) for scale in allowed)

    ranked = sorted(claims, key=distance)
    if distance(ranked[1]) >= CLEARLY_CLOSER * distance(ranked[0]):
        return ranked[0]
    return None


def judge_value(statement: Statement, attribution: Attribution, unit: str) -> list[Outcome]:
    """The value against its candidates (then, weakly named, the sentence's), then the rest."""
    part = statement.part("value")
    dispersion = attribution.facets.get("dispersion")
    dispersion = dispersion.values if dispersion else frozenset()
    pools = [attribution.claims] + ([] if attribution.strong else [attribution.loose])
    for pool in pools:
        for claim in pool:
            scale = value_scale(part, statement, claim, unit)
            if scale is not None:
                return [_value_outcome("matched", part, statement, claim, unit)] + satellites(
                    statement, claim, scale, unit, dispersion)
    claim = attribution.claims[0] if len(attribution.claims) == 1 else closest_experiment(
        part, statement, attribution.claims, unit)
    if claim is not None:
        return [_value_outcome("drift", part, statement, claim, unit)] + satellites(
            statement, claim, None, unit, dispersion)
    return ([Outcome("unmapped", "value", None, part.number.text, part.number.start)]
            if attribution.claims else [])


def judge_bare(statement: Statement, attribution: Attribution, unit: str) -> list[Outcome]:
    """A seed count, interval or confidence level stated on its own: matched by any candidate,
    drift when every candidate that discloses it agrees on another number."""
    dispersion = attribution.facets.get("dispersion")
    named = dispersion.values if dispersion else frozenset()
    claims = attribution.claims
    if statement.part("seeds") and any(not is_comparison(claim) for claim in claims):
        claims = [claim for claim in claims if not is_comparison(claim)]  # a variant's count
    checkable = [claim for claim in claims
                 if all(acceptable(part, claim, named) is not None for part in statement.parts)]
    results = [satellites(statement, claim, None, unit, named) for claim in checkable]
    for outcomes in results:
        if all(outcome.status == "matched" for outcome in outcomes):
            return outcomes
    if len({tuple(outcome.expected for outcome in outcomes) for outcomes in results}) == 1:
        return results[0]
    first = statement.parts[0]
    return ([Outcome("unmapped", first.role, None, _found(first), first.number.start)]
            if results else [])


def judge(statement: Statement, attribution: Attribution, unit: str) -> list[Outcome]:
    """Every number of ``statement``: matched, drift or unmapped."""
    if statement.part("value"):
        return judge_value(statement, attribution, unit)
    return judge_bare(statement, attribution, unit)
