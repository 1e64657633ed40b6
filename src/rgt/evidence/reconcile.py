"""``rgt reconcile``: every number a document states next to a claim's alias must be the claim's.

A number is read only near an alias (``test accuracy``, ``accuracy difference`` or the user's own
aliases). It is bound to the claims of the nearest alias, narrowed by the variant and experiment
the line names nearest to it. It is *matched* when it states one of those claims' values (any
rounding or percent form, see ``rgt.evidence.numbers``), *drift* when it is bound to exactly one
claim and states another value, and *unmapped* when several claims remain and it states none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rgt.deliver.inputs import DeliveryError
from rgt.evidence.documents import document_lines
from rgt.evidence.numbers import Number, find_numbers, states_value

NEAR_CHARS = 120  # how far (in characters, same line) a number may sit from its alias


@dataclass(frozen=True)
class Span:
    """Where an alias occurs in a line."""

    alias: str
    start: int
    end: int


def _word(text: str) -> re.Pattern:
    return re.compile(rf"(?<!\w){re.escape(text)}(?!\w)", re.IGNORECASE)


def alias_index(claims: list[dict]) -> dict[str, list[dict]]:
    """Lower-cased alias -> the claims that carry it."""
    index: dict[str, list[dict]] = {}
    for claim in claims:
        for alias in claim.get("aliases") or []:
            index.setdefault(alias.lower(), []).append(claim)
    return index


def alias_spans(line: str, aliases: list[str]) -> list[Span]:
    """Alias occurrences in ``line``; one inside a longer one (``accuracy`` in
    ``test accuracy``) is dropped."""
    spans = [Span(alias, m.start(), m.end()) for alias in aliases
             for m in _word(alias).finditer(line)]
    return [s for s in spans if not any(_inside(s, other) for other in spans)]


def _inside(span: Span, other: Span) -> bool:
    """``span`` lies within the longer ``other``."""
    longer = (other.end - other.start) > (span.end - span.start)
    return longer and other.start <= span.start and span.end <= other.end


def gap(a_start: int, a_end: int, b_start: int, b_end: int) -> int:
    """Characters between two spans (0 when they touch or overlap)."""
    return max(0, max(a_start, b_start) - min(a_end, b_end))


def mention_distance(line: str, number: Number, names: list[str]) -> int | None:
    """How close the farthest of ``names`` is to ``number`` in ``line``; None if one is absent."""
    distances = []
    for name in names:
        found = [gap(m.start(), m.end(), number.start, number.end)
                 for m in _word(name).finditer(line)]
        if not found:
            return None
        distances.append(min(found))
    return max(distances)


def narrow(line: str, number: Number, claims: list[dict], names_of) -> list[dict]:
    """Keep the claims whose names (``names_of(claim)``) the line mentions nearest the number."""
    scored = [(mention_distance(line, number, names_of(c)), c) for c in claims]
    mentioned = [(d, c) for d, c in scored if d is not None]
    if not mentioned:
        return claims
    best = min(d for d, _ in mentioned)
    return [c for d, c in mentioned if d == best]


def variant_names(claim: dict) -> list[str]:
    """A comparison is named by both its variants; a variant claim by its variant."""
    if claim.get("candidate") and claim.get("baseline"):
        return [claim["candidate"], claim["baseline"]]
    return [claim["variant"]]


def bind(line: str, number: Number, spans: list[Span], index: dict) -> list[dict]:
    """The claims ``number`` speaks of: those of the nearest alias, narrowed by names."""
    near = [s for s in spans if gap(s.start, s.end, number.start, number.end) <= NEAR_CHARS]
    if not near:
        return []
    nearest = min(near, key=lambda s: gap(s.start, s.end, number.start, number.end))
    claims = narrow(line, number, index[nearest.alias], variant_names)
    return narrow(line, number, claims, lambda claim: [claim["exp_id"]])


def classify(number: Number, claims: list[dict]) -> tuple[str, dict | None]:
    """``matched`` (with the claim), ``drift`` (with the one claim) or ``unmapped``."""
    for claim in claims:
        if states_value(number, claim.get("value")):
            return "matched", claim
    if len(claims) == 1:
        return "drift", claims[0]
    return "unmapped", None


def reconcile_line(line: str, where: dict, index: dict, report: dict) -> None:
    """Check every number of one line and add what it found to ``report``."""
    spans = alias_spans(line, list(index))
    if not spans:
        return
    for number in find_numbers(line):
        claims = bind(line, number, spans, index)
        if not claims:
            continue
        outcome, claim = classify(number, claims)
        if outcome == "unmapped":
            report["unmapped"].append({**where, "text": line.strip()})
        else:
            report[outcome].append({"claim": claim["id"], **where, "found": number.text,
                                    "expected": claim["value"]})


def reconcile(claims: list[dict], documents: list[Path]) -> dict:
    """``{"ok", "drift", "unmapped", "matched", "files"}`` over every line of ``documents``."""
    index = alias_index(claims)
    report: dict = {"drift": [], "unmapped": [], "matched": [],
                    "files": [path.as_posix() for path in documents]}
    for path in documents:
        for number, text in document_lines(path):
            reconcile_line(text, {"file": path.as_posix(), "line": number}, index, report)
    for key in ("drift", "matched"):
        for item in report[key]:
            item.pop("text", None)
    report["ok"] = not report["drift"]
    return report


def require_claims(evidence: dict, source: str) -> list[dict]:
    """The evidence's claims; an evidence file without any is a user error."""
    claims = evidence.get("claims") or []
    if not claims:
        raise DeliveryError(f"{source}: no claims", fix="rebuild it with `rgt evidence`")
    return claims
