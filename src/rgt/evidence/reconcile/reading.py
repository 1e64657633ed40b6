"""How a statement states a comparison: what number it must be, signed or not, and the word
that must say which way it went (``rgt.evidence.reconcile.direction``).

A sign counts as written — against the change (candidate − baseline in the metric's own
direction), or against the positive-is-better value after a ``better``/``worse`` word or
where the document declares positive = better. Unsigned, only the magnitude counts, and a word
must agree with the value (``improves``) or the change (``lowers``). A ratio (``3× fewer``)
states a relative change r as 1 / (1 + r), ``2× more`` as 1 + r.
"""

from __future__ import annotations

from dataclasses import dataclass

from rgt.evidence.reconcile.statistics import Statement
from rgt.verify.wording import change


def claim_change(claim: dict) -> float | None:
    """A comparison's candidate − baseline in the metric's own direction: its ``difference``,
    or its positive-is-better ``value`` turned back."""
    if claim.get("difference") is not None:
        return claim["difference"]
    return change(claim.get("value"), claim.get("direction"))


@dataclass(frozen=True)
class Reading:
    """What a comparison's value must state: ``target`` (signed when ``signed``), the direction
    word that must agree with it (``better``…, with its text), and how its CI is oriented."""

    target: float | None
    signed: bool
    name: str | None = None
    word: str = ""
    orientation: str = "magnitude"  # "change", "better" (positive = better) or "magnitude"
    moved: float | None = None  # what the word's direction is read from (default: target)

    @property
    def agrees(self) -> bool:
        """Whether the direction word says the way the target goes (no word: it does)."""
        moved = self.target if self.moved is None else self.moved
        if self.name is None or not moved:
            return True
        return (moved > 0) == (self.name in ("better", "up"))


def reading(statement: Statement, claim: dict, oriented: bool) -> Reading:
    """How ``statement`` states comparison ``claim``. A sign counts as written: against the
    positive-is-better value after a ``better``/``worse`` word (``a gain of −0.6``) or where
    the document declares positive = better, else against the change. Unsigned, a
    ``better``/``worse`` word must agree with the value, an ``up``/``down`` word with the
    change; no word, only the magnitude counts."""
    form = statement.form
    name = next((word for word in ("better", "worse", "up", "down") if word in form), None)
    word = next((item[5:] for item in form if item.startswith("word:")), "")
    goodness = name in ("better", "worse")
    if "ratio" in form:
        return ratio_reading(claim, name, word)
    if statement.part("value").number.sign:
        if goodness or (name is None and oriented):
            return Reading(claim.get("value"), True, orientation="better")
        return Reading(claim_change(claim), True, orientation="change")
    if name is None:
        return Reading(claim_change(claim), False)
    return Reading(claim.get("value") if goodness else claim_change(claim), False, name, word)


def ratio_reading(claim: dict, name: str, word: str) -> Reading:
    """``3× fewer`` states a relative change r as 1 / (1 + r); ``2× more`` as 1 + r."""
    moved = claim_change(claim)
    if moved is None or moved <= -1:
        return Reading(None, False, name, word, moved=moved)
    ratio = 1 + moved if name == "up" else 1 / (1 + moved)
    return Reading(ratio, False, name, word, moved=moved)


def relative_fits(statement: Statement, claim: dict, unit: str = "") -> bool:
    """A relative change is stated as a ratio or a percentage (not in points: its ``%``
    written, or its column's ``unit``); an absolute one never as a ratio."""
    value = statement.part("value")
    if not claim.get("relative"):
        return "ratio" not in statement.form
    return "ratio" in statement.form or (value.number.percent or unit == "%") and \
        not value.number.text.endswith("pp")
