"""Which claims the aliases around a prose number name: the evidence's aliases count in prose
as a table's do, narrowing the candidates the facets leave (``Evaluate ViT-Base …: Acc@1
83.664``: ViT-Base names three runs, Acc@1 the checkpoints')."""

from __future__ import annotations

import re

from rgt.evidence.reconcile.aliases import alias_sets
from rgt.evidence.reconcile.direction import AFTER
from rgt.evidence.reconcile.facets import Facet, named_values, without_asides
from rgt.evidence.reconcile.sites import Site
from rgt.evidence.reconcile.vocabulary import Vocabulary


def carried_by_clause(site: Site, candidates: list[dict], vocabulary: Vocabulary) -> list[dict]:
    """The candidates every alias of the number's clause is carried by, when that narrows
    them; empty when it does not (no alias, or none left)."""
    narrowed = candidates
    for named in alias_sets(site.levels[0].text, vocabulary, "own"):
        narrowed = [claim for claim in narrowed if claim["id"] in named]
    return narrowed if len(narrowed) < len(candidates) else []


def named_by_aliases(site: Site, candidates: list[dict], facets: dict[str, Facet],
                     vocabulary: Vocabulary) -> list[dict]:
    """Prose candidates narrowed by the aliases of the number's clause, then of its sentence
    before it when the clause names no variant, then of the headings above, each where some
    candidate carries it (``### … (PTB) with LSTM`` above ``trains a PTB model``)."""
    if site.in_table:
        return candidates
    variant = facets.get("variant")
    # a clause naming one run keeps the sentence's other names out; one whose alias names
    # several (``Δ``, every comparison's) does not
    tiers = ("clause", "scope") if variant is not None and variant.tier == "clause" and len(
        variant.values) == 1 else ("clause", "sentence", "scope")
    for level in site.levels:
        if level.tier not in tiers:
            continue
        # in the sentence, only what comes before the number (a later clause is its own),
        # the nearest name first (``63.2% on random samples (…) and 76.2% with Top-K 40
        # samples (drop of 5.6%)``: the Top-K run's drop)
        sentence = level.tier == "sentence"
        text = without_asides(level)[:level.anchor] if sentence else level.text
        sets = alias_sets(text, vocabulary, "own")
        for named in reversed(sets) if sentence else sets:
            candidates = [claim for claim in candidates if claim["id"] in named] or candidates
    return candidates


# what a difference is measured against, right after it: ``12.9% points lower than``,
# ``2.5% better than``, ``12.7% behind``, ``3.1 points ahead of``
COMPARED_WITH = re.compile(AFTER.pattern + r"(?:\s+(?:than|of))?\s+", re.IGNORECASE)
ARTICLE = re.compile(r"(?:(?:the|a|an)\s+)?", re.IGNORECASE)


def compared_with(site: Site, candidates: list[dict], vocabulary: Vocabulary) -> list[dict]:
    """A difference's candidates narrowed to those whose baseline is the run named right
    after its comparative (``17.9% lower than the approach ranked one and 2.5% better than
    the last ranked``: each number its own team's), where that narrows them."""
    sentence = site.level("sentence")
    if site.in_table or sentence is None or sentence.anchor is None:
        return candidates
    end = sentence.anchor + len(site.statement.parts[0].number.text)
    match = COMPARED_WITH.match(sentence.text, end)
    if match is None:
        return candidates
    hits = [hit for hit in vocabulary.find(sentence.text) if hit.start >= match.end()
            and ARTICLE.fullmatch(sentence.text[match.end():hit.start]) and "variant" in hit.facets]
    baselines = named_values(hits, "variant")
    narrowed = [claim for claim in candidates if claim.get("baseline") in baselines]
    return narrowed if narrowed and len(narrowed) < len(candidates) else candidates
