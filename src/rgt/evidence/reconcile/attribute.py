"""Which claims a statement speaks of: the names around it, nearest first.

For each facet (metric, split, variant, experiment) the levels of a site are searched in order
(clause → sentence → earlier sentences → headings; cell → column → row → caption → headings)
and the first level naming the facet decides it, by the name nearest the number there (all of
that level's names for a header, caption or heading). A table's variant comes from its row or
column only: a row the evidence does not cover is left alone. The claims consistent with every
decided facet, and with the statement's kind (a mean, or a difference: signed, ``by``, ``pp``,
after a difference noun or a comparison's alias), are its candidates; a statement with no
metric named is no claim's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from rgt.evidence.reconcile.names import is_comparison
from rgt.evidence.reconcile.sites import Level, Site
from rgt.evidence.reconcile.statistics import Part, Statement, find_statements, only_filler
from rgt.evidence.reconcile.vocabulary import BASELINE, OTHER, Hit, Vocabulary

FACETS = ("metric", "split", "variant", "exp", "dispersion", "role", "kind")
CLAIM_KEYS = {"metric": "metric", "split": "split", "exp": "exp_id"}
PER_POINT = re.compile(
    r"\b(?:seed|run|fold|trial|epoch|step|iteration|checkpoint)\s*#?\s*\d+\b|"
    r"\b(?:best|worst|median|last|final|each|every|individual|per)(?:[\s-]+[\w-]+){0,2}?"
    r"[\s-]+(?:seed|run|checkpoint|epoch|fold)s?\b", re.IGNORECASE)
CITATION = re.compile(
    r"\[\d+(?:\s*[,\u2013-]\s*\d+)*\]|\[cite\]|\bet\s+al\b|"
    r"\([A-Z][\w\-]+(?:\s+(?:et\s+al\.?|and|&)\s*[A-Z]?[\w\-]*)?,?\s+\d{4}[a-z]?\)")


@dataclass(frozen=True)
class Facet:
    """A decided facet: its values, and whether a strong level (clause, cell, row) named it."""

    values: frozenset[str]
    strong: bool
    tier: str = ""
    named: frozenset[str] = frozenset()  # every value the deciding level names


@dataclass(frozen=True)
class Attribution:
    """The claims a statement may be about, and the looser set a weak reading allows."""

    claims: list[dict]
    loose: list[dict]
    strong: bool
    facets: dict


def _distance(hit: Hit, start: int, end: int) -> int:
    return max(0, start - hit.end, hit.start - end)


def _values(hits: list[Hit], facet: str) -> frozenset[str]:
    return frozenset().union(*(hit.facets[facet] for hit in hits))


def _pick(hits: list[Hit], facet: str, level: Level, width: int,
          implied: bool) -> Facet | None:
    relevant = [hit for hit in hits if facet in hit.facets
                and (facet in hit.implied) == implied]
    if facet == "dispersion" and level.tier in ("clause", "sentence"):
        # prose finds intervals by their form; a "CI" nearby says nothing about a ± spread
        relevant = [hit for hit in relevant if hit.facets[facet] - {"ci"}]
    if not relevant:
        return None
    nearest = relevant
    if level.anchor is not None:
        start, end = level.anchor, level.anchor + width
        closest = min(_distance(hit, start, end) for hit in relevant)
        nearest = [hit for hit in relevant if _distance(hit, start, end) == closest]
    return Facet(_values(nearest, facet), level.strong, level.tier, _values(relevant, facet))


def decide(site: Site, vocabulary: Vocabulary) -> dict[str, Facet]:
    """Each facet from the first level that names it; what an alias only implies (its claims'
    experiment, say) counts only where no level names the facet outright."""
    width = len(site.statement.parts[0].number.text)
    found: dict[str, Facet] = {}
    hits = [vocabulary.find(level.text) for level in site.levels]
    for implied in (False, True):
        for level, level_hits in zip(site.levels, hits, strict=True):
            for facet in FACETS:
                if facet in found or (facet == "variant" and not level.names_variants):
                    continue
                if facet in ("role", "kind", "dispersion") and not _reads(facet, level, site):
                    continue
                picked = _pick(level_hits, facet, level, width, implied)
                if picked:
                    found[facet] = picked
    return found


def _reads(facet: str, level: Level, site: Site) -> bool:
    """Headers say what a column's numbers are; prose says it next to the number."""
    if site.in_table:
        return level.tier in ("cell", "column", "row") or facet == "dispersion"
    return facet == "dispersion" and level.tier in ("clause", "sentence")


INTRO = 40  # "At epoch 100, …": a short opening phrase scopes its sentence


def excluded(site: Site) -> bool:
    """One seed's (or epoch's) number, or one quoted from a citation: not a claim's, which are
    means. Looked for in the clause (or cell and row), a short opening phrase before it, and a
    citation right after it (``95.3% (He et al., 2016)``)."""
    near = [level for level in site.levels if level.tier in ("clause", "cell", "row")]
    for level in near:
        intro = level.before if len(level.before) <= INTRO else ""
        if PER_POINT.search(level.text + " " + intro) or CITATION.search(level.text):
            return True
        if CITATION.match(level.after.lstrip(" (")) or CITATION.match(level.after.lstrip()):
            return True
    return False


def respectively(site: Site, vocabulary: Vocabulary) -> dict[str, Facet]:
    """``A and B reach x and y, respectively``: the k-th value goes with the k-th name."""
    sentence = next((level for level in site.levels if level.tier == "sentence"), None)
    if sentence is None or "respectively" not in sentence.text.lower():
        return {}
    end = sentence.text.lower().index("respectively")
    values = [s.anchor for s in find_statements(sentence.text[:end]) if s.part("value")]
    if sentence.anchor not in values or len(values) < 2:
        return {}
    position = values.index(sentence.anchor)
    paired = {}
    for facet in ("variant", "metric"):
        named = _distinct([hit for hit in vocabulary.find(sentence.text) if facet in hit.facets],
                          facet)
        if len(named) == len(values):
            paired[facet] = Facet(frozenset(named[position]), True)
    return paired


def _distinct(hits: list[Hit], facet: str) -> list[frozenset[str]]:
    seen: list[frozenset[str]] = []
    for hit in hits:
        values = frozenset(hit.facets[facet])
        if values not in seen:
            seen.append(values)
    return seen


def named_difference(site: Site, vocabulary: Vocabulary) -> bool:
    """A comparison's alias (or a difference noun) right before the value, only filler between
    (``effect of dropout: 0.0062``)."""
    clause = site.levels[0]
    if site.in_table or clause.anchor is None:
        return False
    before = clause.text[:clause.anchor]
    return any("kind" in hit.facets and only_filler(before[hit.end:])
               for hit in vocabulary.find(before))


def kinds(site: Site, statement: Statement, facets: dict[str, Facet],
          vocabulary: Vocabulary) -> set[str]:
    """``{"difference"}`` or ``{"level"}`` (a ``−`` alone: either, if a mean is negative)."""
    form = statement.form
    if "difference" in form or "kind" in facets or named_difference(site, vocabulary):
        return {"difference"}
    if "signed" in form and statement.parts[0].number.sign == "-":
        return {"difference", "negative level"}
    return {"level"}


def _plain_names(values: frozenset[str], comparisons: list[dict]) -> frozenset[str]:
    """Variant names with the word ``baseline`` read as the comparisons' baselines."""
    if BASELINE not in values:
        return values
    return (values - {BASELINE}) | {c["baseline"] for c in comparisons}


def _role_variants(variant: Facet, comparisons: list[dict], role: str) -> frozenset[str]:
    """The variant a level number is about: the nearest name, except in ``from X to Y``
    where X is the baseline and Y the candidate of the comparison the sentence names."""
    named = _plain_names(variant.named, comparisons)
    if role == "from":
        found = {c["baseline"] for c in comparisons
                 if c["candidate"] in named or c["baseline"] in named}
        return frozenset(found) or _plain_names(variant.values, comparisons)
    if role == "to":
        found = {c["candidate"] for c in comparisons if c["candidate"] in named}
        return frozenset(found) or _plain_names(variant.values, comparisons)
    return _plain_names(variant.values, comparisons)


def _variant_ok(claim: dict, variant: Facet, comparisons: list[dict], role: str) -> bool:
    """A mean: its variant is the one named; a difference: its candidate is among the names
    (or, none being a candidate, its baseline is)."""
    if not is_comparison(claim):
        return claim["variant"] in _role_variants(variant, comparisons, role)
    named = _plain_names(variant.named, comparisons)
    if any(c["candidate"] in named for c in comparisons):
        return claim["candidate"] in named
    return claim["baseline"] in named


def _of_kind(claims: list[dict], wanted: set[str]) -> list[dict]:
    keep = []
    for claim in claims:
        if is_comparison(claim):
            keep += [claim] if "difference" in wanted else []
        elif "level" in wanted or ("negative level" in wanted and (claim.get("value") or 0) < 0):
            keep.append(claim)
    return keep


def consistent(claims: list[dict], facets: dict[str, Facet], wanted: set[str] | None,
               role: str = "") -> list[dict]:
    """The claims every decided facet allows, of the kinds ``wanted`` (None: any)."""
    comparisons = [claim for claim in claims if is_comparison(claim)]
    keep = []
    for claim in claims:
        if "variant" in facets and not _variant_ok(claim, facets["variant"], comparisons, role):
            continue
        if all(claim.get(key) in facets[facet].values for facet, key in CLAIM_KEYS.items()
               if facet in facets):
            keep.append(claim)
    return keep if wanted is None else _of_kind(keep, wanted)


def _widened(variant: Facet, claims: list[dict], site: Site, vocabulary: Vocabulary) -> Facet:
    """A difference whose clause names only a baseline (``its gain over ERM``) takes the
    candidates its sentence names."""
    candidates = {claim["candidate"] for claim in claims if is_comparison(claim)}
    if variant.named & candidates:
        return variant
    sentence = next((level for level in site.levels if level.tier == "sentence"), None)
    hits = vocabulary.find(sentence.text) if sentence else []
    named = _values([hit for hit in hits if "variant" in hit.facets], "variant")
    return replace(variant, named=variant.named | named)


def loosened(site: Site, facets: dict[str, Facet], vocabulary: Vocabulary) -> dict[str, Facet]:
    """Facets with every metric and variant the sentence names (a weak reading's alternatives)."""
    sentence = next((level for level in site.levels if level.tier == "sentence"), None)
    if sentence is None:
        return facets
    hits = vocabulary.find(sentence.text)
    wider = dict(facets)
    for facet in ("metric", "variant"):
        named = set().union(*(hit.facets[facet] for hit in hits if facet in hit.facets))
        if facet in facets and named:
            wider[facet] = Facet(facets[facet].values | frozenset(named), False, "sentence",
                                 facets[facet].named | frozenset(named))
    return wider


SPREAD_COLUMN = re.compile(r"mean|avg|average", re.IGNORECASE)


def retype(site: Site, facets: dict[str, Facet]) -> Statement | None:
    """A lone number under a ``std``, ``CI low`` or ``seeds`` header is that, not a mean; a
    bare integer anywhere else is no result (None)."""
    statement, value = site.statement, site.statement.part("value")
    if value is None:
        return statement
    header = next((level.text for level in site.levels if level.tier == "column"), "")
    role = facets["role"].values if "role" in facets else frozenset()
    dispersion = facets.get("dispersion")
    as_role = None
    if len(statement.parts) == 1 and not site.in_table:
        named_spread = dispersion and dispersion.tier == "clause" and "ci" not in dispersion.values
        metric = facets.get("metric")
        if named_spread and not (metric and metric.tier == "clause"):
            as_role = "spread"  # "(std 0.16)", "the standard deviation of ERM is 0.16 pp"
    elif len(statement.parts) == 1:
        if value.number.integer and "seeds" in role:
            as_role = "seeds"
        elif role & {"low", "high"}:
            as_role = "low" if "low" in role else "high"
        elif (dispersion and dispersion.tier in ("cell", "column") and "ci" not in
              dispersion.values and not SPREAD_COLUMN.search(header)):
            as_role = "spread"
    if as_role:
        return replace(statement, parts=(Part(as_role, value.number),), form=frozenset())
    return None if value.number.integer else statement


def attribute(site: Site, claims: list[dict],
              vocabulary: Vocabulary) -> tuple[Statement, Attribution] | None:
    """The statement (retyped by its header) and its candidate claims; None when it is no
    claim's number."""
    if excluded(site):
        return None
    paired = respectively(site, vocabulary)
    facets = {**decide(site, vocabulary), **paired}
    statement = retype(site, facets)
    if statement is None or not {"metric", "variant"} & set(facets):
        return None
    if OTHER in facets.get("variant", Facet(frozenset(), False)).values:
        return None  # a row or clause about another system (``ERM+RandAugment``, ``[12]``)
    if (statement.part("seeds") is None and "metric" not in facets) or (
            site.in_table and "variant" not in facets):
        return None
    if statement.part("seeds") and not any(facet.strong for name, facet in facets.items()
                                           if name in ("metric", "variant")):
        return None  # "over 3 seeds" binds to names in its own clause, cell or row only
    wanted = kinds(site, statement, facets, vocabulary) if statement.part("value") else None
    if wanted == {"difference"} and "variant" in facets:
        facets["variant"] = _widened(facets["variant"], claims, site, vocabulary)
    role = next((word for word in ("from", "to") if word in statement.form), "")
    strong = all(facets[f].strong for f in ("metric", "variant") if f in facets) or (
        "variant" in paired)
    return statement, Attribution(
        consistent(claims, facets, wanted, role),
        consistent(claims, loosened(site, facets, vocabulary), wanted, role), strong, facets)
