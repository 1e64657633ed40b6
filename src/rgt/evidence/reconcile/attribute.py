"""Which claims a statement speaks of, given what the text around it names (``facets``).

The claims consistent with every decided facet, and with the statement's kind — a mean, or a
difference (signed, ``by``, ``pp``, after a difference noun or a comparison's alias) — are its
candidates. A number no metric is named for, one of another system, one seed's, or a cited
one is no claim's and is left alone.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from rgt.evidence.reconcile.aliases import (
    SHARED,
    a_setting_of,
    aliased,
    baseline_row,
    level_claims,
    named_inside,
    not_the_baselines,
    pinned_facets,
    plainly_named,
)
from rgt.evidence.reconcile.exclusions import CITATION, excluded
from rgt.evidence.reconcile.facets import (
    Facet,
    anothers_number,
    cited_subject,
    decide,
    named_values,
    respectively,
)
from rgt.evidence.reconcile.names import alias_key, claim_units, is_comparison
from rgt.evidence.reconcile.numbers import Number, find_numbers, scales
from rgt.evidence.reconcile.prose import carried_by_clause, compared_with, named_by_aliases
from rgt.evidence.reconcile.quantities import inside_a_name
from rgt.evidence.reconcile.runs import (
    about_all,
    aggregated,
    counts_named_runs,
    in_scope,
    single_runs,
)
from rgt.evidence.reconcile.sites import Site
from rgt.evidence.reconcile.statistics import END, Part, Statement, only_filler
from rgt.evidence.reconcile.vocabulary import BASELINE, OTHER, Vocabulary

CLAIM_KEYS = {"metric": "metric", "split": "split", "exp": "exp_id"}


@dataclass(frozen=True)
class Attribution:
    """The claims a statement may be about, and the looser set a weak reading allows."""

    claims: list[dict]
    loose: list[dict]
    strong: bool
    facets: dict
    unnamed: bool = False  # a table row no name tells apart: resolved with its siblings


def named_difference(site: Site, vocabulary: Vocabulary) -> bool:
    """A comparison's alias (or a difference noun) right before the value, only filler between
    (``effect of dropout: 0.0062``), or a difference noun right after it, only the metric's
    name between (``an 8% test-accuracy improvement``)."""
    clause = site.levels[0]
    if site.in_table or clause.anchor is None:
        return False
    before = clause.text[:clause.anchor]
    if any("kind" in hit.facets and only_filler(before[hit.end:])
           for hit in vocabulary.find(before)):
        return True
    end = clause.anchor + len(site.statement.parts[0].number.text)
    after = clause.text[end:]
    gap = list(after)
    for hit in vocabulary.find(after):
        if "kind" in hit.facets:
            return NOUN_GAP.fullmatch("".join(gap[:hit.start])) is not None
        if {"metric", "split"} & set(hit.facets):
            gap[hit.start:hit.end] = " " * (hit.end - hit.start)
    return False


NOUN_GAP = re.compile(r"[\s-]*(?:\b(?:pp|points?|percentage\s+points?)\b[\s-]*)?")


def kinds(site: Site, statement: Statement, facets: dict[str, Facet],
          vocabulary: Vocabulary) -> set[str]:
    """``{"difference"}`` or ``{"level"}`` (a ``−`` alone: either, if a mean is negative);
    ``{"ratio"}`` for ``3× fewer``, which only a relative change may state."""
    form = statement.form
    if "ratio" in form:
        return {"ratio"}
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
    """A mean: its variant is the one named; a difference: its candidate is among the names,
    and its baseline among the nearest where they name one of that candidate's baselines
    (``17.91% lower than the approach ranked one``: not the comparison with the last ranked);
    none being a candidate, its baseline is."""
    if not is_comparison(claim):
        return claim["variant"] in _role_variants(variant, comparisons, role)
    named = _plain_names(variant.named, comparisons)
    if any(c["candidate"] in named for c in comparisons):
        nearest = _plain_names(variant.values, comparisons)
        baselines = {c["baseline"] for c in comparisons if c["candidate"] == claim["candidate"]}
        return claim["candidate"] in named and (
            claim["baseline"] in nearest or not baselines & nearest)
    return claim["baseline"] in named


def _of_kind(claims: list[dict], wanted: set[str]) -> list[dict]:
    keep = []
    for claim in claims:
        if claim.get("value") is None:
            continue  # a comparison verify could not compute states no number
        if is_comparison(claim):
            relative_only = "ratio" in wanted
            keep += [claim] if "difference" in wanted or (
                relative_only and claim.get("relative")) else []
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
    sentence = site.level("sentence")
    hits = vocabulary.find(sentence.text) if sentence else []
    named = named_values([hit for hit in hits if "variant" in hit.facets], "variant")
    return replace(variant, named=variant.named | named)


def loosened(site: Site, facets: dict[str, Facet], vocabulary: Vocabulary) -> dict[str, Facet]:
    """Facets with every metric and variant the sentence names (a weak reading's
    alternatives); the metric kept where it keys the number (``MRR: 0.28``, printed)."""
    sentence = site.level("sentence")
    if sentence is None:
        return facets
    hits = vocabulary.find(sentence.text)
    wider = dict(facets)
    for facet in ("variant",) if _keyed_by_a_metric(site, vocabulary) else ("metric", "variant"):
        named = set().union(*(hit.facets[facet] for hit in hits if facet in hit.facets))
        if facet in facets and named:
            wider[facet] = Facet(facets[facet].values | frozenset(named), False, "sentence",
                                 facets[facet].named | frozenset(named))
    return wider


KEY = re.compile(r"([^\W\d_][^:=\n]{0,30}?)\s*[:=]\s*$")  # ``Hits@10: `` before the number


def _keyed_by_a_metric(site: Site, vocabulary: Vocabulary) -> bool:
    """Whether the number's clause writes it as a metric's key and value (``MRR: 0.28``)."""
    clause = site.level("clause")
    key = KEY.search(clause.text[:clause.anchor]) if clause and clause.anchor else None
    return key is not None and any("metric" in hit.facets for hit in vocabulary.find(
        key.group(1)))


# a header naming a mean with its spread (``Acc. (mean ± std)``), not a spread column beside a
# mean's (``Mean`` then ``Std``, read as ``Mean Std``)
SPREAD_COLUMN = re.compile(r"(?:mean|avg|average)\s*(?:\u00b1|\+/?-|\(|/|and\b|&)",
                           re.IGNORECASE)
MEASURED_TIERS = ("cell", "column", "row", "caption")  # where a table names its integers' metric


def _prose_role(facets: dict[str, Facet]) -> str | None:
    """``(std 0.16)``, ``the standard deviation of ERM is 0.16 pp``: a spread named in the
    number's own clause, no metric named there."""
    dispersion, metric = facets.get("dispersion"), facets.get("metric")
    named = dispersion and dispersion.tier == "clause" and "ci" not in dispersion.values
    return "spread" if named and not (metric and metric.tier == "clause") else None


def _table_role(site: Site, facets: dict[str, Facet], integer: bool) -> str | None:
    """A header's role for a lone number: ``seeds``, ``CI low``/``high``, or a spread column
    (``acc_std``, ``± s.e.m.``; not ``Acc. (mean ± std)``)."""
    role = facets["role"].values if "role" in facets else frozenset()
    dispersion = facets.get("dispersion")
    header = next((level.text for level in site.levels if level.tier == "column"), "")
    if integer and "seeds" in role:
        return "seeds"
    if role & {"low", "high"}:
        return "low" if "low" in role else "high"
    if (dispersion and dispersion.tier in ("cell", "column") and "ci" not in dispersion.values
            and not SPREAD_COLUMN.search(header)):
        return "spread"
    return None


def retype(site: Site, facets: dict[str, Facet], measured: bool = False) -> Statement | None:
    """The statement as its words or header say: a lone number may be a spread, a bound or
    a seed count, not a mean; a bare integer that is none of these is no result (None),
    unless a header names its metric, or ``measured`` (the table names it, and the cell's
    column and row pin one claim)."""
    statement, value = site.statement, site.statement.part("value")
    if value is None or len(statement.parts) > 1:
        return statement
    integer = value.number.integer
    role = _table_role(site, facets, integer) if site.in_table else _prose_role(facets)
    if role:
        return replace(statement, parts=(Part(role, value.number),), form=frozenset())
    measured = measured or _measured(site, facets, ("cell", "column"))
    return None if integer and "ratio" not in statement.form and not measured else statement


def _measured(site: Site, facets: dict[str, Facet], tiers: tuple[str, ...],
              pinned_metrics: frozenset[str] = frozenset()) -> bool:
    """A table cell under a header naming one of the claims' metrics: an integer there is a
    value (``segm AP`` over ``33``); a caption naming other things too may name the pinned
    claim's metric (``Runtime is … Test cross-entropies correspond to …``)."""
    metric = facets.get("metric")
    return site.in_table and metric is not None and metric.tier in tiers and (not any(
        value.startswith("@") for value in metric.values) or bool(pinned_metrics & metric.values))


UNKNOWN_WORD = re.compile(r"[A-Za-z]{3,}")  # a word no name of the evidence's holds


def _credits_ours(site: Site, vocabulary: Vocabulary) -> bool:
    """Whether a table cell's row label is one of the evidence's own names with a citation
    (the name's origin) beside it, or in it (``TCN(Shaojie Bai, et al.)``, ``NetMF (Qiu et
    al, WSDM'18)``); not a label that holds an unknown name too (``WavTokenizer
    (Speech)[7]``: another system's, ``Speech`` only its variant)."""
    row = site.level("row")
    return site.in_table and row is not None and \
        level_claims(row.text, vocabulary, "own") is not None and \
        not all(UNKNOWN_WORD.search(text) for text in (
            CITATION.sub(" ", vocabulary.blanked(row.text)),  # a name that holds the citation
            vocabulary.blanked(CITATION.sub(" ", row.text))))  # one beside a whole citation


def _citation_names_no_other(facets: dict[str, Facet]) -> dict[str, Facet]:
    """The facets of a cell whose row credits a name of ours with a citation, the citation's
    ``et al`` naming no other system (``NetMF (Qiu et al, WSDM'18)`` in a leaderboard the
    project ran itself)."""
    variant = facets.get("variant")
    if variant is None or variant.tier != "row" or not variant.values - {OTHER}:
        return facets
    return {**facets, "variant": replace(variant, values=variant.values - {OTHER})}


def _column_pins(site: Site, pinned: frozenset[str] | None, vocabulary: Vocabulary) -> bool:
    """Whether the cell's column header is one of the evidence's names and, with its row,
    pins a single claim (``kNN`` over ``44`` in the ``Chroma`` row of a table of accuracies;
    not a ``dim.`` column beside it), or is empty and the row alone pins one (``Alien`` and
    its score, in a grid of games)."""
    column = site.level("column")
    return bool(pinned) and len(pinned) == 1 and column is not None and (
        level_claims(column.text, vocabulary) is not None
        or not column.text.strip() and site.column > 0)  # (not a row index's column)


def _as_named(pinned: frozenset[str] | None, claims: list[dict],
              facets: dict[str, Facet]) -> frozenset[str] | None:
    """The pinned claims of the metric, experiment and variant the table names, when some
    are (a caption ``Epochs needed to achieve REBAR's best validation score`` over a REBAR
    column that has an ELBO claim too; a row ``Omniglot Nonlinear`` whose ``Nonlinear`` MNIST's
    claims share); all of them otherwise."""
    if not pinned:
        return pinned
    kept = frozenset(claim["id"] for claim in claims if claim["id"] in pinned and all(
        claim[field] in facets[name].values for name, field in NAMED_FIELDS if name in facets))
    return kept or pinned


NAMED_FIELDS = (("metric", "metric"), ("exp", "exp_id"), ("variant", "variant"))


def unit_of(statement: Statement) -> str:
    """The unit a value is written in (``18.7 ms`` → ``ms``), or ""."""
    return next((word[5:] for word in statement.form if word.startswith("unit:")), "")


def _measured_in(statement: Statement, candidates: list[dict]) -> list[dict]:
    """The candidates measured in the unit the value is written in (``11.5°``: the error in
    degrees, not the same error in radians), where some are."""
    unit = unit_of(statement)
    return [claim for claim in candidates if unit and unit in claim_units([claim])] \
        or candidates


def _no_claims(site: Site, statement: Statement, facets: dict[str, Facet],
               evidence: list[dict]) -> bool:
    """No metric (nor, for a seed count, variant) named; another system; a seed count not
    named in its own clause, cell or row; a quantity (``2.5 h``) whose metric is not measured
    in its unit (as its id or a name the evidence gives it says: ``Runtime (s)``)."""
    seeds = statement.part("seeds") is not None
    variant, metric = facets.get("variant"), facets.get("metric")
    strong = any(facets[name].strong for name in ("metric", "variant") if name in facets)
    unit = unit_of(statement)
    wrong_unit = unit and unit not in claim_units(
        [claim for claim in evidence if metric and claim["metric"] in metric.values])
    return ((not seeds and metric is None) or not {"metric", "variant"} & set(facets)
            or (variant is not None and OTHER in variant.values)
            or (seeds and not strong) or bool(wrong_unit))


def _own_names(claim: dict, others: list[dict]) -> set[str]:
    """The aliases of ``claim`` no other of ``others`` carries."""
    shared = {alias.lower() for other in others if other is not claim
              for alias in other.get("aliases") or []}
    return {alias.lower() for alias in claim.get("aliases") or []} - shared


def unnamed_row(statement: Statement, facets: dict[str, Facet],
                candidates: list[dict]) -> tuple[Statement, Attribution] | None:
    """A table cell whose row names no variant its aliases tell apart (``SimplePatch (Ours)``
    on three rows differing only in a numeric column): its candidates are the claims with no
    name of their own (one that has would have been named), to be resolved against the other
    such rows of its column (``siblings``). One candidate left (the heading names its
    experiment: ``ImageNet-1K trained models (isotropic)``) is the cell's claim."""
    if statement.part("value") is None or not candidates:
        return None
    if len(candidates) == 1:
        return statement, Attribution(candidates, [], False, facets)
    nameless = [claim for claim in candidates if not _own_names(claim, candidates)]
    return statement, Attribution(nameless or candidates, [], False, facets, unnamed=True)


def with_pinned(facets: dict[str, Facet], pinned: dict[str, Facet],
                chosen: list[dict], row_metrics: frozenset[str] = frozenset(),
                carried: frozenset[str] = frozenset()) -> dict[str, Facet]:
    """The facets a table cell's aliases pin down, under those the text around names; but the
    experiment and metric they pin beat ones only the caption or headings name (``ImageNet``
    above a row ``ResNet-101 + CutMix``, an experiment of its own; ``accuracies`` above a
    ``Top5`` column), and so do the ``chosen`` claims they pin when they all differ from those
    (a column ``3D-Speaker`` under a caption that lists ``VoxCeleb, CNCeleb and 3D-Speaker``).
    Another metric named there still wins: it says what the table's numbers are (``Fooling
    rates``) — in the caption, not in a heading (``Fine-tuning Pre-trained MAE``: a method's
    name that reads as a metric). A column's metric the evidence does not hold yields to the
    one the row's aliases pin when that one refines it or the row names it outright
    (``row_metrics``): a classification report's ``Macro average`` and ``Accuracy`` rows
    under ``F1-score``, a macro F1 and an accuracy. The row's run yields to a setting of it
    that a heading names (``SchNet | All`` under ``… optimized for force only``), and the
    table's dataset to a setting of it that a column names. A column's metric yields to the
    one the pinned claims share when they carry its header as an alias of their own
    (``carried``: ``GM`` over the human ratings' geometric mean, which a caption's alias
    pinned, not the automatic ``gm`` the word names)."""
    def yields(name: str, facet: Facet) -> bool:
        ours = not any(value.startswith("@") for value in facet.values)
        if name == "metric" and facet.tier == "column" and "metric" in pinned and \
                pinned["metric"].values <= carried and facet.values != pinned["metric"].values:
            return True
        if name == "metric" and not ours and "metric" in pinned and (
                _refined_by(facet, chosen) or pinned["metric"].values <= row_metrics):
            return True
        if name == "variant" and "variant" in pinned and all(any(
                a_setting_of(value, run) for run in facet.values)
                for value in pinned["variant"].values):
            return True  # the row's run, in the setting a heading names (``…_forceonly``)
        if name == "exp" and "exp" in pinned and all(any(
                exp.startswith((f"{value}_", f"{value}-")) for value in facet.values)
                for exp in pinned["exp"].values):
            return True  # the table's dataset, in the setting a column names (``Flickr``
            # over ``90%``: ``flickr_90pct``)
        return name in ("exp", "metric") and not facet.strong and (
            ours or facet.tier == "scope") and (name in pinned or bool(chosen) and not any(
                claim.get(SHARED[name]) in facet.values for claim in chosen))
    return {**pinned, **{name: facet for name, facet in facets.items()
                         if not yields(name, facet)}}


def _metric_by_percent(site: Site, facets: dict[str, Facet],
                       pinned: list[dict]) -> dict[str, Facet]:
    """A cell whose aliases pin one run's two claims, one in percent and one not (``0.6808
    (96.2%)``: an accuracy and its percentage of the baseline's): a number written with
    ``%`` is the percent one's, one without it the other's."""
    percent = site.statement.parts[0].number.percent or site.unit == "%"
    metrics = {claim["metric"] for claim in pinned
               if (claim.get("unit") == "%") == percent}
    if len(metrics) != 1 or len(pinned) != 2 or pinned[0]["metric"] == pinned[1]["metric"]:
        return facets
    return {**facets, "metric": Facet(frozenset(metrics), True, "alias", frozenset(metrics))}


def _metrics_named_by_row(site: Site, vocabulary: Vocabulary) -> frozenset[str]:
    """The metric a table cell's row is labelled with outright and nothing else
    (``Accuracy``); none for a row that also names a run, or only implies a metric."""
    row = site.level("row")
    label = row.text.strip() if row is not None else ""
    hits = vocabulary.find(label)
    if len(hits) != 1 or hits[0].end - hits[0].start != len(label) \
            or "metric" not in hits[0].facets or "metric" in hits[0].implied:
        return frozenset()
    return frozenset(hits[0].facets["metric"])


def _metrics_carrying_the_column(site: Site, named: frozenset[str],
                                 claims: list[dict]) -> frozenset[str]:
    """The metrics of the named claims that carry a table cell's column header as an alias
    of their own (``GM``, given the human ratings' geometric mean as well)."""
    column = site.level("column")
    header = alias_key(column.text) if column is not None and column.text.strip() else None
    return frozenset(claim["metric"] for claim in claims if claim["id"] in named and header
                     in {alias_key(alias) for alias in claim.get("aliases") or []})


def _refined_by(facet: Facet, chosen: list[dict]) -> bool:
    """Whether every chosen claim's metric is a kind of the facet's one metric, which the
    evidence does not hold: ``macro_f1`` of ``F1-score`` (its first word, then more)."""
    words = [re.findall(r"[a-z0-9]+", value.lower()) for value in facet.values]
    if len(words) != 1 or not words[0] or not chosen:
        return False
    return all(words[0][0] in (own := re.findall(r"[a-z0-9]+", claim["metric"].lower()))
               and len(own) > 1 for claim in chosen)


def attribute(site: Site, claims: list[dict],
              vocabulary: Vocabulary) -> tuple[Statement, Attribution] | None:
    """The statement (retyped by its words or header) and its candidate claims; None when
    it is no claim's number."""
    credited = _credits_ours(site, vocabulary)
    if excluded(site, credited, vocabulary) or inside_a_name(site, vocabulary):
        return None
    evidence, claims = claims, single_runs(site, claims)
    pinned = not_the_baselines(site, aliased(site, vocabulary), claims)
    if pinned is not None and not pinned:
        return None  # a table's aliases that name no claim in common
    paired = respectively(site, vocabulary)
    facets = {**decide(site, vocabulary), **paired}
    if credited:
        facets = _citation_names_no_other(facets)
    measured = _column_pins(site, _as_named(pinned, claims, facets), vocabulary) and _measured(
        site, facets, MEASURED_TIERS,
        frozenset(claim["metric"] for claim in claims if claim["id"] in pinned))
    if pinned:
        if "variant" not in facets:
            pinned = baseline_row(site, pinned, claims, vocabulary)
        named = _as_named(pinned, claims, facets)
        facets = with_pinned(facets, pinned_facets(named, claims),
                             [claim for claim in claims if claim["id"] in named],
                             _metrics_named_by_row(site, vocabulary),
                             _metrics_carrying_the_column(site, named, claims))
        claims = [claim for claim in claims if claim["id"] in pinned]
        if "metric" not in facets:
            facets = _metric_by_percent(site, facets, claims)
    statement = retype(site, facets, measured)
    if statement is not None and (counts_named_runs(statement, vocabulary)
                                  or anothers_number(site, facets)):
        return None
    if statement is not None and about_all(site, statement, facets):
        facets = {name: facet for name, facet in facets.items()
                  if name in ("split", "exp") and facet.tier in ("clause", "sentence")}
        claims = in_scope(site, consistent(claims, facets, None), vocabulary)
        return statement, Attribution(aggregated(claims, statement), [], True, facets)
    if statement is None or _no_claims(site, statement, facets, evidence) or cited_subject(
            site, facets):
        return None
    wanted = kinds(site, statement, facets, vocabulary) if statement.part("value") else None
    if site.in_table and "variant" not in facets:
        return unnamed_row(statement, facets, plainly_named(
            site, consistent(claims, facets, wanted), vocabulary)) if pinned else None
    if wanted == {"difference"} and "variant" in facets:
        facets["variant"] = _widened(facets["variant"], claims, site, vocabulary)
    role = next((word for word in ("from", "to") if word in statement.form), "")
    strong = "variant" in paired or all(
        facets[name].strong for name in ("metric", "variant") if name in facets)
    candidates = _measured_in(statement, compared_with(site, named_by_aliases(
        site, _candidates(site, claims, facets, wanted, role, vocabulary), facets, vocabulary),
        vocabulary))
    return statement, Attribution(
        plainly_named(site, named_inside(site, candidates, vocabulary), vocabulary),
        consistent(claims, loosened(site, facets, vocabulary), wanted, role), strong, facets,
        unnamed=site.nameless)  # rows nothing names: any row's, resolved with its column


ENDS = rf"{END}(?:\s*/\s*{END})*"  # one end, or slashed ends of several (``8.426%/0.487``)
FROM_TO = re.compile(rf"\bfrom\s+(?P<low>{ENDS})\s+to\s+(?P<high>{ENDS})", re.IGNORECASE)
TO_FROM = re.compile(rf"\bto\s+(?P<high>{ENDS})\s+from\s+(?P<low>{ENDS})", re.IGNORECASE)


def _not_the_other_end(site: Site, claims: list[dict], role: str) -> list[dict]:
    """``from 7.15 to 6.09`` (or ``to 0.98 from 0.94``, ``from 8.426%/0.487 to
    6.492%/0.354``, each slashed number with its own): two runs' means (the plain GPTQ,
    then with two new tricks), so a claim the other end is nearer to is not this end's; a
    comparison's claims are left as they are."""
    sentence = site.level("sentence") or site.levels[0]
    if not role or sentence.anchor is None:
        return claims
    mine, other = ("low", "high") if role == "from" else ("high", "low")
    for pattern in (FROM_TO, TO_FROM):
        for match in pattern.finditer(sentence.text):
            # each end's digits, at either scale: which end is nearer counts, not its unit
            ends = {name: [replace(number.shifted(match.start(name)), percent=False)
                           for number in find_numbers(match.group(name))]
                    for name in (mine, other)}
            here = next((k for k, number in enumerate(ends[mine])
                         if number.start == sentence.anchor), None)
            if here is not None and here < len(ends[other]):
                there = ends[other][here]
                return [claim for claim in claims if is_comparison(claim) or _distance(
                    ends[mine][here], claim.get("value")) <= _distance(there, claim.get("value"))]
    return claims


def _distance(number: Number, value: float | None) -> float:
    """How far ``number`` is from ``value`` at the nearest scale it may be written at."""
    if value is None:
        return math.inf
    return min(abs(number.value - value * scale) for scale in scales(number, number.percent))


def _candidates(site: Site, claims: list[dict], facets: dict[str, Facet], wanted: set[str] | None,
                role: str, vocabulary: Vocabulary) -> list[dict]:
    """The claims the facets allow; in prose, the claims an alias of the number's clause
    carries, when only its sentence names a variant (``a QRNN model that … with finetuning
    achieves 59.1``: the finetuned run, not the QRNN the sentence names first), of that
    variant where it has some (``37.6 AP``, an alias every run's test-dev AP carries)."""
    found = _not_the_other_end(site, consistent(claims, facets, wanted, role), role)
    variant = facets.get("variant")
    if site.in_table or variant is None or variant.tier in ("clause", ""):
        return found  # named in its clause, or paired with it (``respectively``)
    free = {name: facet for name, facet in facets.items() if name != "variant"}
    carried = carried_by_clause(site, consistent(claims, free, wanted, role), vocabulary)
    carried = [claim for claim in carried if claim in found] or carried
    return _not_the_other_end(site, carried, role) if carried else found
