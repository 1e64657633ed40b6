"""Which runs a number speaks of, as the text around it says: every result (``All numbers are
means over 3 seeds``), or one released model (a table of checkpoints to download).

A seed count in a sentence about how results are aggregated is every claim's that its
sentence, paragraph and headings leave (``mean of 5 runs`` under ``### ResNet18``); a count of
several runs is never a single run's claim. A table whose caption or headers offer models to
download (``download``, ``ckpt``, ``weights``) states each released checkpoint's number: one
run's, so not a claim that averages several runs (``n`` > 1) — it may differ from the mean.
Where the evidence names its configurations ``Run 1`` … ``Run 5`` (a shared task's
submissions), ``over five runs`` counts them, not the seeds of each.
"""

from __future__ import annotations

import re

from rgt.evidence.reconcile.aliases import alias_sets
from rgt.evidence.reconcile.facets import Facet
from rgt.evidence.reconcile.sites import Site
from rgt.evidence.reconcile.statistics import Statement
from rgt.evidence.reconcile.vocabulary import Vocabulary

# how results are aggregated, or that the sentence speaks of the results (``Results on the
# PyBullet benchmark using 6 seeds``)
AVERAGE_WORDS = r"means?|medians?|averages?|averaged"
AGGREGATE = re.compile(rf"\b(?:{AVERAGE_WORDS}|std|standard deviation|"
                       r"results|scores\s+are\s+based\s+on)\b|"
                       r"\u00b1", re.IGNORECASE)
RELEASED = re.compile(r"\b(?:download\w*|checkpoints?|ckpts?|weights)\b", re.IGNORECASE)
# a caption that says its numbers average several runs offers no checkpoint to download
# (``Selected-checkpoint means (20 seeds):``)
AVERAGED = re.compile(rf"\b(?:{AVERAGE_WORDS})\b|\b\d+\s+(?:seeds|runs)\b", re.IGNORECASE)


def about_all(site: Site, statement: Statement, facets: dict[str, Facet]) -> bool:
    """``All numbers are means over 3 seeds``: a seed count naming no variant or metric, in a
    clause about how the results are aggregated, is every (still consistent) claim's."""
    sentence = site.levels[1].text if len(site.levels) > 1 else ""
    named = any(facets[name].strong for name in ("metric", "variant") if name in facets)
    return (statement.part("seeds") is not None and not named and not site.in_table
            and AGGREGATE.search(sentence) is not None)


def in_scope(site: Site, claims: list[dict], vocabulary: Vocabulary) -> list[dict]:
    """``claims`` narrowed by each alias of the text around (sentence, paragraph, headings)
    where that leaves any: ``mean of 5 runs`` under ``### ResNet18`` is about ResNet18's."""
    kept = {claim["id"] for claim in claims}
    for level in site.levels[1:]:
        for named in alias_sets(level.text, vocabulary):
            kept = kept & named if kept & named else kept
    return [claim for claim in claims if claim["id"] in kept]


def _runs(claim: dict) -> int:
    return claim.get("n") or 1


def aggregated(claims: list[dict], statement: Statement) -> list[dict]:
    """A count of several runs (``median of 5 runs``) is about the claims of several runs,
    where there are any: a single run's claim aggregates nothing."""
    seeds = statement.part("seeds")
    several = [claim for claim in claims if _runs(claim) > 1]
    return several if seeds and seeds.number.magnitude > 1 and several else claims


NUMBERED_RUN = re.compile(r"(?:run|trial|submission)\s*#?\s*(\d+)")
COUNTED_RUNS = re.compile(r"\b(?:runs?|trials?|submissions?)\b", re.IGNORECASE)


def counts_named_runs(statement: Statement, vocabulary: Vocabulary) -> bool:
    """A count of runs (``over five runs``) where the evidence's own names number its runs
    ``Run 1`` up to that count: the configurations the document compares, no seed count."""
    seeds = statement.part("seeds")
    if seeds is None or not COUNTED_RUNS.search(seeds.number.text):
        return False
    numbered = {int(match.group(1)) for phrase in vocabulary.phrases
                if (match := NUMBERED_RUN.fullmatch(phrase))}
    return set(range(1, int(seeds.number.magnitude) + 1)) <= numbered


def released(site: Site) -> bool:
    """A cell of a table offering models to download: its caption or a column header says so
    (``Our pre-trained models can be downloaded as following:``, ``pre-train ckpt``), and
    does not say they average several runs."""
    return site.in_table and any(
        RELEASED.search(level.text) and not AVERAGED.search(level.text)
        for level in site.levels if level.tier in ("caption", "column"))


def single_runs(site: Site, claims: list[dict]) -> list[dict]:
    """The claims a released checkpoint's number may state: a single run's (or one whose
    evidence does not say how many runs it averages)."""
    return [claim for claim in claims if _runs(claim) <= 1] if released(site) else claims
