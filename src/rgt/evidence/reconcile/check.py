"""Whether a statement states its claim: the value, and what qualifies it.

The value is the claim's mean (a variant) or difference (a comparison). A signed difference is
candidate − baseline in the metric's own direction (``rgt.verify.wording``), or positive =
better where the document says so (``direction``); an unsigned one is compared by magnitude,
and the word that gives it a direction (``lowers … by``, ``improves … by``) must say the right
way — a wrong sign or a wrong word is drift, and its fix corrects the sign or the word.
A spread (``± s``) is the claim's std (or s.e.m. = std/√n when the text says so; the CI's
half-width for a comparison); CI bounds (oriented like the value) and the confidence level
(95%) are the comparison's; a seed count is the claim's n. When the value matches no candidate
and exactly one claim is left, it is drift; several left is *unmapped* (a name is missing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from rgt.evidence.reconcile.attribute import Attribution
from rgt.evidence.reconcile.direction import OPPOSITE, opposite_word
from rgt.evidence.reconcile.names import is_comparison
from rgt.evidence.reconcile.numbers import (
    MULTIPLIERS,
    Number,
    matching_scale,
    rewrite,
    scales,
)
from rgt.evidence.reconcile.reading import ratio_reading, reading, relative_fits
from rgt.evidence.reconcile.statistics import Part, Statement
from rgt.evidence.reconcile.tables import declared_unit
from rgt.verify.wording import change_interval

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


def value_scale(part: Part, statement: Statement, claim: dict, unit: str,
                oriented: bool = False) -> float | None:
    """The scale at which the value part states ``claim``'s value, or None (also when its
    direction word says the wrong way)."""
    allowed = allowed_scales(part.number, statement, unit)
    if not is_comparison(claim) or claim.get("value") is None:
        return matching_scale(part.number, claim.get("value"), allowed)
    if not relative_fits(statement, claim, unit):
        return None
    if "ratio" in statement.form:
        allowed = (1.0,)
    read = reading(statement, claim, oriented)
    scale = matching_scale(part.number, read.target, allowed, signed=read.signed)
    return scale if read.agrees else None


def kept_bound(number: Number, statement: Statement, value: float | None,
               allowed: tuple[float, ...]) -> float | None:
    """The scale at which a bound (``more than 50%``, ``<1%``) holds for ``value``, or None:
    a bound states no value, only one the value keeps."""
    low, high = "bound:low" in statement.form, "bound:high" in statement.form
    if value is None or not (low or high):
        return None
    scale = _closest_scale(number, value, allowed)
    slack = 0.5 * 10 ** -number.decimals  # as written: ``more than 7%`` of a 7.4 read as 7
    kept = value * scale >= number.value - slack if low else value * scale <= number.value + slack
    near = 0.5 <= abs(number.value) / max(abs(value * scale), 1e-12) <= 2  # of this quantity
    return scale if kept and near else None


def _closest_scale(number: Number, value: float, allowed: tuple[float, ...]) -> float:
    def misfit(scale: float) -> float:
        return abs(math.log10(abs(number.value) + 1e-12) - math.log10(abs(value * scale) + 1e-12))
    return min(allowed, key=misfit)


def document_scale(number: Number, value: float, statement: Statement, unit: str) -> float:
    """The scale ``number`` writes ``value`` at (100 for a percent of a fraction)."""
    return _closest_scale(number, value, allowed_scales(number, statement, unit))


def fix_for(number: Number, value: float, statement: Statement, unit: str,
            magnitude: bool = False) -> str:
    """``value`` written as ``number`` is written: what to put in the document."""
    shown = abs(value) if magnitude else value
    return rewrite(shown, number, document_scale(number, shown, statement, unit))


def acceptable(part: Part, claim: dict, dispersion: frozenset[str],
               orientation: str = "magnitude") -> list[float] | None:
    """What a spread, bound, level or seed-count part of ``claim`` may state (None: this
    claim discloses nothing to check it against). A comparison's bounds follow its value's
    ``orientation``: the change's interval, the positive-is-better one, or either way round
    for a difference stated as a magnitude."""
    variance = claim.get("variance") or {}
    kind, spread = variance.get("type"), variance.get("value")
    if part.role == "seeds":
        return [n for n in (claim.get("n"), claim.get("n_baseline"), claim.get("n_candidate"))
                if n is not None] or None
    if kind == "ci95" and isinstance(spread, (int, float)):
        return _half_width(part, spread, dispersion)
    if kind != "ci95" or not isinstance(spread, list) or None in spread:
        return _std_spread(part, claim, dispersion) if kind == "std" else None
    low, high = spread
    if part.role in ("low", "high"):
        return _bounds(claim, low, high, orientation)[part.role]
    return {"level": [CONFIDENCE],
            "spread": None if dispersion & {"std", "sem"} else [(high - low) / 2]}[part.role]


def _half_width(part: Part, half: float, dispersion: frozenset[str]) -> list[float] | None:
    """What a part states of a 95% interval the evidence gives as one number, its
    half-width: a spread its words do not call a deviation or an error (``$91.3 \\pm 0.6$``
    under ``the 95% confidence interval``), or the level."""
    if part.role == "level":
        return [CONFIDENCE]
    return [half] if part.role == "spread" and not dispersion & {"std", "sem"} else None


def _bounds(claim: dict, low: float, high: float, orientation: str) -> dict[str, list[float]]:
    if orientation == "better":
        return {"low": [low], "high": [high]}
    change_low, change_high = change_interval(low, high, claim.get("direction"))
    if orientation == "change":
        return {"low": [change_low], "high": [change_high]}
    return {"low": [change_low, -change_high], "high": [change_high, -change_low]}


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


def _keeping(part: Part, statement: Statement, pools: list[list[dict]],
             unit: str) -> dict | None:
    """The first claim (no comparison) that keeps the bound the value part states, if any."""
    allowed = allowed_scales(part.number, statement, unit)
    return next((claim for pool in pools for claim in pool if not is_comparison(claim)
                 and kept_bound(part.number, statement, claim.get("value"), allowed)
                 is not None), None)


def _best_stated(stated: list[tuple[dict, float]], statement: Statement, unit: str,
                 dispersion: frozenset[str], oriented: bool) -> list[Outcome]:
    """The outcomes of a value several claims state (``83`` of both 82.5 and 83.0): with the
    first claim whose spread and bounds the statement states too (``83 ± 1.1``), else the
    first's."""
    first = None
    for claim, scale in stated:  # the satellites of the later claims only while needed
        outcomes = [_value_outcome("matched", statement.part("value"), statement, claim, unit,
                                   oriented)] + satellites(
            statement, claim, scale, unit, dispersion, _orientation(statement, claim, oriented))
        if all(outcome.status == "matched" for outcome in outcomes):
            return outcomes
        first = first or outcomes
    return first


def satellites(statement: Statement, claim: dict, scale: float | None, unit: str,
               dispersion: frozenset[str], orientation: str = "magnitude") -> list[Outcome]:
    """The spread, bounds and level of a statement checked against its value's claim."""
    outcomes = []
    for part in statement.parts:
        values = None if part.role == "value" else acceptable(part, claim, dispersion,
                                                              orientation)
        if values is None:
            continue
        allowed = (_own_scale(scale, statement, part),) if scale else allowed_scales(
            part.number, statement, unit)
        ok = part_states(part, values, allowed)
        fix = "" if ok or part.role in ("seeds", "level") else fix_for(
            part.number, values[0], statement, unit, magnitude=part.role == "spread")
        outcomes.append(Outcome("matched" if ok else "drift", part.role, claim, _found(part),
                                part.number.start, values[0], fix))
    return outcomes


def _own_scale(scale: float, statement: Statement, part: Part) -> float:
    """The value's scale for another part, each written with its own power of ten
    (``5.6e-6 ± 1.03e-5``)."""
    return scale * statement.part("value").number.multiplier / part.number.multiplier


def _value_outcome(status: str, part: Part, statement: Statement, claim: dict, unit: str,
                   oriented: bool) -> Outcome:
    """The value's outcome; a drift's fix corrects what is wrong: the number, its sign, or
    the word giving it a direction."""
    number = part.number
    if not is_comparison(claim):
        fix = "" if status == "matched" else fix_for(number, claim["value"], statement, unit)
        return Outcome(status, "value", claim, number.text, number.start, claim["value"], fix)
    read = reading(statement, claim, oriented)
    if status == "matched":
        return Outcome(status, "value", claim, number.text, number.start, read.target)
    allowed = (1.0,) if "ratio" in statement.form else allowed_scales(number, statement, unit)
    said = ratio_reading(claim, OPPOSITE[read.name], read.word) \
        if "ratio" in statement.form and not read.agrees else read
    if not read.agrees and matching_scale(number, said.target, allowed, signed=False):
        fix = f'"{opposite_word(read.word, read.name)}" for "{read.word}"'
        return Outcome(status, "direction", claim, f"{read.word} \u2026 {number.text}",
                       number.start, read.target, fix)
    fix = fix_for(number, read.target, statement, unit, magnitude=not read.signed)
    return Outcome(status, "value", claim, number.text, number.start, read.target, fix)


CLEARLY_CLOSER = 5.0


def closest_experiment(part: Part, statement: Statement, claims: list[dict],
                       unit: str) -> dict | None:
    """Among claims that differ only in experiment (a document naming the variant and metric
    but not the dataset), or in variant between a model and combinations built on it (``we
    achieve 54.1 mAP`` of ``yolo`` and ``fast_rcnn_plus_yolo``), the one the number is clearly
    closest to (5× closer than the rest)."""
    if len({(c["metric"], is_comparison(c)) for c in claims}) != 1 or not _one_model(claims):
        return None
    allowed = allowed_scales(part.number, statement, unit)

    def distance(claim: dict) -> float:
        return min(abs(part.number.magnitude - abs(claim["value"]) * scale)
                   for scale in allowed)

    ranked = sorted(claims, key=distance)
    if distance(ranked[1]) >= CLEARLY_CLOSER * distance(ranked[0]):
        return ranked[0]
    return None


def _one_model(claims: list[dict]) -> bool:
    """Whether the claims are of one variant, or of a model and combinations that name it as
    a part of theirs (``yolo``, ``fast_rcnn_plus_yolo``)."""
    variants = {claim.get("variant") or "" for claim in claims}
    return any(all(other == model or model in other.split("_plus_") for other in variants)
               for model in variants)


def judge_value(statement: Statement, attribution: Attribution, unit: str,
                oriented: bool = False) -> list[Outcome]:
    """The value against its candidates (then, weakly named, the sentence's), then the rest;
    ``oriented``: the document declares positive = better for this statement."""
    part = statement.part("value")
    dispersion = attribution.facets.get("dispersion")
    dispersion = dispersion.values if dispersion else frozenset()
    pools = [attribution.claims] + ([] if attribution.strong else [attribution.loose])
    for pool in pools:
        stated = [(claim, scale) for claim in pool
                  if (scale := value_scale(part, statement, claim, unit, oriented)) is not None]
        if stated:
            return _best_stated(stated, statement, unit, dispersion, oriented)
    kept = _keeping(part, statement, pools, unit)
    if kept is not None:  # a bound the claim keeps: no value stated, nothing to fix
        return [_value_outcome("matched", part, statement, kept, unit, oriented)]
    left = _absolute_or_relative(part, attribution.claims)
    claim = left[0] if len(left) == 1 else closest_experiment(part, statement, left, unit)
    if claim is not None and not attribution.strong and _far(part, statement, claim, unit):
        return []  # weakly named, and far from the claim: another quantity (a baseline's 53%)
    if claim is not None:
        return [_value_outcome("drift", part, statement, claim, unit, oriented)] + satellites(
            statement, claim, None, unit, dispersion, _orientation(statement, claim, oriented))
    return ([Outcome("unmapped", "value", None, part.number.text, part.number.start)]
            if _near_one(part, statement, attribution.claims, unit) else [])


def _absolute_or_relative(part: Part, claims: list[dict]) -> list[dict]:
    """Of a comparison stated both as a difference and as a relative change, the one the
    number is written as: with ``%``, the relative change (``1.71(3.89\\%)`` of a ROUGE
    difference); without, the difference."""
    if not (any(claim.get("relative") for claim in claims)
            and any(is_comparison(claim) and not claim.get("relative") for claim in claims)):
        return claims
    return [claim for claim in claims
            if bool(claim.get("relative")) == part.number.percent] or claims


NEAR = 0.10  # a misstated claim is near it (a stale run, a typo); further is another number
# weakly named (the metric only in an earlier sentence), a number off by half the claim and by
# more than ten units of its last digit is another quantity, no careless copy of it
FAR, FAR_DIGITS = 0.5, 10


def _far(part: Part, statement: Statement, claim: dict, unit: str) -> bool:
    """Whether a number is too far from a level claim to be a careless copy of it (53% for
    an FID of 0.86%); a difference may be off by twice itself (0.4 for 0.2)."""
    if is_comparison(claim) or not claim.get("value"):
        return False
    digit = 10.0 ** -part.number.decimals
    return all(abs(part.number.magnitude - abs(claim["value"]) * scale) >
               max(FAR * abs(claim["value"]) * scale, FAR_DIGITS * digit)
               for scale in allowed_scales(part.number, statement, unit))


def _near_one(part: Part, statement: Statement, claims: list[dict], unit: str) -> bool:
    """Whether the value is within ``NEAR`` (relative) of one of several claims it may state:
    worth an *unmapped* (a name is missing); near none (``person AP of 60.9``, the detector's,
    beside pose APs of 0.74-0.77) it is another quantity the metric's word happens to name."""
    allowed = allowed_scales(part.number, statement, unit)
    return any(abs(part.number.magnitude - abs(claim["value"]) * scale)
               <= NEAR * abs(claim["value"]) * scale
               for claim in claims for scale in allowed if claim.get("value"))


def _orientation(statement: Statement, claim: dict, oriented: bool) -> str:
    return reading(statement, claim, oriented).orientation if is_comparison(claim) \
        else "magnitude"


def judge_bare(statement: Statement, attribution: Attribution, unit: str,
               oriented: bool = False) -> list[Outcome]:
    """A seed count, interval or confidence level stated on its own: matched by any candidate,
    drift when every candidate that discloses it agrees on another number. Signed bounds are
    the change's interval (positive = better where the document says so)."""
    dispersion = attribution.facets.get("dispersion")
    named = dispersion.values if dispersion else frozenset()
    claims = attribution.claims
    if statement.part("seeds") and any(not is_comparison(claim) for claim in claims):
        claims = [claim for claim in claims if not is_comparison(claim)]  # a variant's count
    signed = any(part.number.sign for part in statement.parts if part.role in ("low", "high"))
    orientation = ("better" if oriented else "change") if signed else "magnitude"
    checkable = [claim for claim in claims
                 if all(acceptable(part, claim, named) is not None for part in statement.parts)]
    results = [satellites(statement, claim, None, unit, named, orientation)
               for claim in checkable]
    for outcomes in results:
        if all(outcome.status == "matched" for outcome in outcomes):
            return outcomes
    if len({tuple(outcome.expected for outcome in outcomes) for outcomes in results}) == 1:
        return results[0]
    first = statement.parts[0]
    return ([Outcome("unmapped", first.role, None, _found(first), first.number.start)]
            if results else [])


def judge(statement: Statement, attribution: Attribution, unit: str,
          oriented: bool = False) -> list[Outcome]:
    """Every number of ``statement``: matched, drift or unmapped (``oriented``: the document
    declares positive = better here)."""
    unit = "" if _in_the_unit(attribution.claims, unit) else unit
    statement = _in_their_multiple(statement, attribution.claims)
    if statement.part("value"):
        return judge_value(statement, attribution, unit, oriented)
    return judge_bare(statement, attribution, unit, oriented)


def _in_their_multiple(statement: Statement, claims: list[dict]) -> Statement:
    """A number written in the multiple its claims count in (``44.80M`` of a claim of 44.8
    with ``"unit": "M"``) read as that many of them, as a cell under ``Params (M)`` is."""
    multipliers = {part.number.multiplier for part in statement.parts} - {1.0}
    if len(multipliers) != 1 or not claims or not all(
            MULTIPLIERS.get(claim.get("unit") or "") in multipliers for claim in claims):
        return statement
    return replace(statement, parts=tuple(replace(part, number=replace(
        part.number, multiplier=1.0)) for part in statement.parts))


def _in_the_unit(claims: list[dict], unit: str) -> bool:
    """Whether claims already count in the column's multiple (``params_m`` under
    ``Params(M)``: 0.90 is 0.9 of them, not 0.9 of a unit)."""
    return unit in MULTIPLIERS and bool(claims) and all(
        unit in (declared_unit(claim["metric"]), claim.get("unit")) for claim in claims)
