"""Numbers in prose or a cell that are no result: part of a name (``GPT-2 (124M)``), a run's
setting (``a 90% sparse GNMT model``), a share of something (``the 1% random actions``) or a
count of things (``200k-top words``)."""

from __future__ import annotations

import re

from rgt.evidence.reconcile.direction import AFTER_WORDS
from rgt.evidence.reconcile.numbers import NUMBER
from rgt.evidence.reconcile.sites import Site
from rgt.evidence.reconcile.vocabulary import Vocabulary


def inside_a_name(site: Site, vocabulary: Vocabulary) -> bool:
    """A number that is part of a name (``GPT-2 (124M)``, ``SWA 1.5 Budgets``): looked for in
    its cell, or its sentence (a clause ends at the name's parenthesis)."""
    level = next((level for level in site.levels if level.tier in ("cell", "sentence")), None)
    if level is None or level.anchor is None:
        return False
    hits = vocabulary.find(level.text)
    return any(hit.start <= level.anchor < hit.end for hit in hits) or (
        level.tier == "sentence" and (_sets_a_name(level.text, level.anchor, hits)
                                      or _a_share_of(level.text, level.anchor, hits)
                                      or _a_count_of(level.text, level.anchor, hits)))


def _sets_a_name(text: str, anchor: int, hits: list) -> bool:
    """``a 90% sparse GNMT model``: a number right before a run's name (no metric's) is the
    run's setting, not its result; not before a name that opens with a preposition (``53% in
    japanese``: the result in that setting)."""
    written = NUMBER.match(text, anchor)
    gap = re.match(r"[\s-]*", text[written.end():]).end() if written else -1
    return written is not None and any(
        hit.start == written.end() + gap and "variant" in hit.facets
        and "metric" not in set(hit.facets) - hit.implied
        and text[hit.start:hit.end].split()[0].lower() not in NOT_A_THING for hit in hits)


ARTICLE_BEFORE = re.compile(r"\b(?:the|a|an)\s+$", re.IGNORECASE)
# what follows a result's percentage without naming a thing it is a share of
# (or a comparative that says which way it differs: ``12.7% behind the approach ranked 1``),
# or a result's unit, even where the evidence lists it among a run's names (``0.28 dB``)
NOT_A_THING = {"of", "on", "in", "for", "with", "at", "and", "or", "to", "than", "from", "by",
               "vs", "over", "across", "relative", "absolute", "average", "mean", "median",
               "overall", "top", "points", "point", "pp", "db"} | set(AFTER_WORDS)


def _a_share_of(text: str, anchor: int, hits: list) -> bool:
    """``the 1% random actions of epsilon-greedy exploration``: a percentage between an article
    and a plain noun no name covers is a share of that thing, not a result."""
    written = NUMBER.match(text, anchor)
    if written is None or "%" not in text[anchor:written.end() + 1] or not ARTICLE_BEFORE.search(
            text[:anchor]):
        return False
    word, start = _word_after(text, written.end(), SHARED_WORD)
    return word is not None and word.lower() not in NOT_A_THING and not any(
        hit.start <= start < hit.end for hit in hits)


def _a_count_of(text: str, anchor: int, hits: list) -> bool:
    """``200k-top words``, ``200k common crawl lexicon``: a number in thousands (millions,
    billions) right before a word that names no metric counts those things, not a result."""
    written = NUMBER.match(text, anchor)
    if written is None or (written.group("suffix") or "").strip() not in ("k", "K", "M", "B"):
        return False
    word, start = _word_after(text, written.end(), COUNTED_WORD)
    return word is not None and not any(
        hit.start <= start < hit.end and "metric" in set(hit.facets) - hit.implied
        for hit in hits)


SHARED_WORD = re.compile(r"\s*%?\s*([^\W\d_]+)\b")  # ``1% random``: the word after the sign
COUNTED_WORD = re.compile(r"[\s-]*([^\W\d_]+)")  # ``200k-top``, ``200k common``


def _word_after(text: str, end: int, pattern: re.Pattern) -> tuple[str | None, int]:
    """The word ``pattern`` finds right after a number ending at ``end``, and where it starts."""
    after = pattern.match(text, end)
    return (after.group(1), after.start(1)) if after else (None, -1)
