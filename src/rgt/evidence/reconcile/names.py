"""The project's vocabulary: the evidence's ids, the claims file's ``names:`` and aliases.

``names:`` in ``evidence/claims.yaml`` says how documents name what the evidence calls by id::

    names:
      variants: {mixup: ["Mixup (ours)", "with mixup"], erm: [ERM, "plain training"]}
      metrics: {accuracy: ["Acc."], ece: [ECE]}
      experiments: {cifar10_aug: [CIFAR-10]}
      splits: {test: [held-out]}
      others: [ResNet-50, "linear probe"]      # systems that are not yours: left alone

Each claim's ``aliases`` name that claim (or, shared, several): an alias names the facets its
claims share (metric, variant, experiment; a comparison's alias names a difference), plus the
split its own words name. A name for an id the evidence does not have is an error, not a
silent no-op.
"""

from __future__ import annotations

import re
from functools import cache

from rgt.deliver.inputs import DeliveryError
from rgt.evidence.reconcile.latex import plain
from rgt.evidence.reconcile.mdinline import inline
from rgt.evidence.reconcile.rst import rst_inline
from rgt.evidence.reconcile.statistics import measure
from rgt.evidence.reconcile.text import fold
from rgt.evidence.reconcile.vocabulary import (
    OTHER,
    SPLITS,
    SYNONYMS,
    Vocabulary,
    base_vocabulary,
    phrase_key,
)

TARGETS = {"variants": "variant", "metrics": "metric", "experiments": "exp_id"}
FACET_OF = {"variants": "variant", "metrics": "metric", "experiments": "exp", "splits": "split"}


def metric_unit(metric: str) -> str:
    """The unit a metric id says it is measured in: ``latency_ms`` → ``ms`` (else "")."""
    return measure(metric.replace("-", "_").split("_")[-1]) if "_" in metric else ""


# a unit a metric's name gives in brackets: ``Runtime (s)``, ``Time (mins)``
BRACKETED_UNIT = re.compile(r"[(\[]\s*([^()\[\]]+?)\s*[)\]]\s*$")


def claim_units(claims: list[dict]) -> set[str]:
    """The units the claims are measured in, as their metric ids (``latency_ms``), the names
    the evidence gives them (``Runtime (s)``) or their own ``unit`` (``ms``) say."""
    units = {metric_unit(claim["metric"]) for claim in claims}
    units |= {measure(claim.get("unit") or "") for claim in claims}
    units |= {measure(match.group(1)) for claim in claims for alias in claim.get("aliases") or []
              if (match := BRACKETED_UNIT.search(alias))}
    return units - {""}


SPLIT_FIRST = re.compile(r"(?:test|val|valid|validation|dev)_(.+)")  # not ``training_collisions``


def metric_words(metric: str) -> list[str]:
    """How documents name a metric by its id: ``latency_ms`` is also ``latency``, and
    ``test_error`` is also ``error`` (its split said apart, or not at all)."""
    unit = metric_unit(metric)
    words = [metric, metric.rsplit("_", 1)[0]] if unit else [metric]
    split_first = SPLIT_FIRST.fullmatch(metric)
    return words + ([split_first.group(1)] if split_first else [])


def claim_variants(claim: dict) -> set[str]:
    """The variants a claim is about: its own, or a comparison's candidate and baseline."""
    if claim.get("candidate") and claim.get("baseline"):
        return {claim["candidate"], claim["baseline"]}
    return {claim["variant"]}


def is_comparison(claim: dict) -> bool:
    """A verify comparison (its value is a difference) rather than a variant's mean."""
    return bool(claim.get("candidate") and claim.get("baseline"))


def known(claims: list[dict], section: str) -> set[str]:
    """The ids ``names.<section>`` may name: variants, metrics or experiments of the evidence."""
    if section == "variants":
        return set().union(*(claim_variants(claim) for claim in claims))
    return {claim[TARGETS[section]] for claim in claims}


def check_names(claims: list[dict], names: dict, source: str) -> None:
    """Every ``names:`` entry names an id the evidence has, with words in every phrase."""
    for section, table in names.items():
        phrases = table if section == "others" else [p for ps in table.values() for p in ps]
        for phrase in phrases:
            if not fold(phrase).strip(" .,;:()[]"):
                raise DeliveryError(f"{source}: names/{section}: {phrase!r} has no words",
                                    fix="write the name as documents spell it")
        if section in TARGETS:
            unknown = sorted(set(table) - known(claims, section))
            if unknown:
                raise DeliveryError(
                    f"{source}: names/{section}/{unknown[0]}: no claim has this "
                    f"{section[:-1]}, so its names would match nothing",
                    fix=f"use one of: {', '.join(sorted(known(claims, section)))}")


def alias_facets(claims: list[dict], worded: dict[str, set[str]]) -> dict[str, set[str]]:
    """What an alias names: the facets its claims share, and the split its words name
    (``worded``: the facets of the names inside the alias) when its claims are of that split
    (``Vanilla DINO training`` names a run, not the training split)."""
    facets: dict[str, set[str]] = {}
    for facet, key in (("metric", "metric"), ("exp", "exp_id")):
        values = {claim[key] for claim in claims}
        if len(values) == 1:
            facets[facet] = values
    if all(is_comparison(claim) for claim in claims):
        facets["kind"] = {"difference"}
        facets["variant"] = set().union(*(claim_variants(claim) for claim in claims))
    elif len({claim["variant"] for claim in claims}) == 1 and not any(map(is_comparison, claims)):
        facets["variant"] = {claims[0]["variant"]}
    words, splits = set(worded.get("split", ())), {claim.get("split") for claim in claims}
    if words & splits:
        facets["split"] = words & splits
    elif _refines(words, splits):
        # ``test-standard``, an alias of the ``test-std`` claims: their split, which its word
        # (test) only begins
        facets["split"] = splits
    return facets


def _refines(words: set[str], splits: set[str | None]) -> bool:
    """Whether the claims share one split of their own that the alias's split word opens
    (``test`` of ``test-std``)."""
    split = str(next(iter(splits))).lower() if len(splits) == 1 and None not in splits else ""
    return bool(split) and any(split.startswith((f"{word}-", f"{word}_")) for word in words)


def _add_ids(vocabulary: Vocabulary, claims: list[dict]) -> None:
    """The evidence's ids as names (``no_dropout`` reads "no dropout"); ``latency_ms`` is also
    "latency"; common metrics have their usual synonyms."""
    for section in ("variants", "metrics", "experiments"):
        for identity in known(claims, section):
            vocabulary.add(identity, FACET_OF[section], identity)
    # a split of the evidence's own (``test-dev``, ``test-std``) by its id, as the usual
    # splits are by their words
    for split in {claim.get("split") for claim in claims} - set(SPLITS) - {None, ""}:
        vocabulary.add(split, "split", split)
    for variant in known(claims, "variants"):
        # a table row named by the variant's id (``LSTM embedding``) pins its claims as an
        # alias would, over the names a caption gives other runs
        vocabulary.add(variant, "ids", {claim["id"] for claim in claims
                                        if claim.get("variant") == variant})
    metrics = known(claims, "metrics")
    for metric in metrics:
        for word in metric_words(metric)[1:] + SYNONYMS.get(metric, []):
            if not _a_family(word, metric, metrics):
                vocabulary.add(word, "metric", metric)


def _a_family(stem: str, metric: str, metrics: set[str]) -> bool:
    """Whether a metric's name without its unit is other metrics' stem too (``ls`` of
    ``ls_w`` and ``ls_z``: linear separability in W and in Z, no watts)."""
    return any(other != metric and other.startswith(f"{stem}_") for other in metrics)


def _add_names(vocabulary: Vocabulary, names: dict) -> None:
    """The claims file's ``names:``; ``others`` name systems that are not the evidence's."""
    for section, table in names.items():
        if section == "others":
            for phrase in table:
                vocabulary.add(phrase, "variant", OTHER)
            continue
        for identity, phrases in table.items():
            for phrase in phrases:
                vocabulary.add(phrase, FACET_OF[section], identity)


def project_vocabulary(claims: list[dict], names: dict, source: str) -> Vocabulary:
    """The base vocabulary plus the evidence's ids, ``names:`` and the claims' aliases: an
    alias names the variant its claims share as a name does, their metric and experiment
    only by implication (one named outright wins), and the claims that carry it
    (``claims``: what a table's aliases pin down)."""
    check_names(claims, names, source)
    vocabulary = base_vocabulary()
    _add_ids(vocabulary, claims)
    _add_names(vocabulary, names)
    aliases = alias_index(claims)
    _own_words_first(vocabulary, aliases)
    worded = {alias: vocabulary.facets_in(alias) for alias in aliases}
    # an alias that is a metric's name (``Accuracy``, a column header) names that metric, not
    # the variant or experiment of the claims that happen to carry it
    metric_names = {alias for alias in aliases if vocabulary.only(alias, "metric", "split")
                    and not _a_setting_s_value(alias, vocabulary)}
    for alias, aliased in aliases.items():
        shared = alias_facets(aliased, worded[alias])
        if "metric" not in shared and _each_metric_s_word(alias, aliased):
            vocabulary.add(alias, "metric", {claim["metric"] for claim in aliased}, implied=True)
        for facet, values in shared.items():
            if facet in ("variant", "exp") and alias in metric_names:
                continue
            if facet == "metric" and _renames(worded[alias], values):
                # a common name (``top-1 accuracy``, a synonym of accuracy) the evidence gives
                # claims of another metric (``top1_accuracy``) names theirs
                vocabulary.forget(alias, "metric")
            # an alias names its variant as a name would; a metric or an experiment it only
            # implies (its claims share it) gives way to one named outright
            vocabulary.add(alias, facet, values,
                           implied=facet in ("exp", "metric") and facet not in worded[alias])
        if "dispersion" in worded[alias]:  # ``Std f_calls to min``: a spread's header still
            vocabulary.add(alias, "dispersion", worded[alias]["dispersion"])
        own = {claim["id"] for claim in aliased}
        # ``Ap .5`` (AP at IoU 0.5) is no name of the plain AP claims its first word names
        renamed = _renames(worded[alias], {claim["metric"] for claim in aliased})
        vocabulary.add(alias, "claims", own | (set() if renamed else worded_claims(
            claims, worded[alias])))
        if alias not in metric_names:  # a name of its own: the claims that carry it first
            vocabulary.add(alias, "own", own)
        variants = {claim["variant"] for claim in aliased if not is_comparison(claim)}
        if len(variants) > 1 and vocabulary.only(alias, "variant"):
            # an id's name (``yolox_s``) shared as an alias by several variants (YOLOX-s and
            # its legacy run) names every one of them
            vocabulary.add(alias, "variant", variants)
        if not any(_has_interval(claim) for claim in aliased):
            vocabulary.forget(alias, "role")  # ``High`` (RACE's) names a claim, no CI bound
    return vocabulary


# a setting given its value: ``-lr 1.0``, ``lr=1.0``, ``dropout 0.1``
SETTING_VALUE = re.compile(r"\W*([^\W\d][^=:\d]*?)\s*[=:]?\s*[-+]?\d+(?:\.\d+)?\s*")


def _a_setting_s_value(alias: str, vocabulary: Vocabulary) -> bool:
    """Whether an alias is a setting the evidence has no metric of, with its value (``-lr
    1.0``): it names the run trained so, not the setting."""
    setting = SETTING_VALUE.fullmatch(alias)
    return setting is not None and _foreign_only(vocabulary.facets_in(setting.group(1)))


def _each_metric_s_word(alias: str, claims: list[dict]) -> bool:
    """Whether an alias is a word of each of its claims' several metrics, one metric an
    experiment (``Error`` of ``total_error`` in one and ``rel_l2_error`` in another): it names
    those metrics, and the experiment around it says which."""
    words = alias.lower().split()
    metrics = {claim["metric"] for claim in claims}
    per_experiment = {(claim["exp_id"], claim["metric"]) for claim in claims}
    return len(metrics) > 1 and bool(words) and all(
        set(words) <= set(metric.lower().replace("-", "_").split("_")) for metric in metrics
    ) and len(per_experiment) == len({experiment for experiment, _ in per_experiment})


def _renames(worded: dict[str, set[str]], metrics: set[str]) -> bool:
    """Whether an alias's words name only other metrics than its claims' one."""
    named = {value for value in worded.get("metric", ()) if not value.startswith("@")}
    return bool(named) and len(metrics) == 1 and not named & metrics


def _own_words_first(vocabulary: Vocabulary, aliases: dict[str, list[dict]]) -> None:
    """The evidence's own name (``LR``, a logistic regression) over the common word for a
    setting or a metric the evidence lacks (the learning rate)."""
    for alias in aliases:
        if _foreign_only(vocabulary.facets_in(alias)):
            vocabulary.forget(alias, "metric")


def _foreign_only(worded: dict[str, set[str]]) -> bool:
    """Whether words name nothing but a metric the evidence lacks (or a setting)."""
    metrics = worded.get("metric", set())
    return set(worded) == {"metric"} and bool(metrics) and all(
        value.startswith("@") for value in metrics)


def _has_interval(claim: dict) -> bool:
    return str((claim.get("variance") or {}).get("type", "")).startswith("ci")


def worded_claims(claims: list[dict], worded: dict[str, set[str]]) -> set[str]:
    """The claims the words of an alias name by id (``test accuracy``: every test accuracy
    claim, differences too); none when its words name no id, or two of one facet (``Baseline
    + CoLES`` is a variant of its own)."""
    keys = {facet: {value for value in values if not value.startswith("@")}
            for facet, values in worded.items() if facet in ("metric", "variant", "exp", "split")}
    keys = {facet: values for facet, values in keys.items() if values}
    if not keys or any(len(values) > 1 for values in keys.values()):
        return set()

    def named(claim: dict) -> bool:
        return all((claim_variants(claim) & values) if facet == "variant" else
                   claim.get("exp_id" if facet == "exp" else facet) in values
                   for facet, values in keys.items())

    return {claim["id"] for claim in claims if named(claim)}


def alias_index(claims: list[dict]) -> dict[str, list[dict]]:
    """Folded alias -> the claims that carry it; an alias written in LaTeX
    (``\\Cref{alg:full}``, ``4K, $k=2$``) or Markdown (`` `roberta.base` ``, ``**Ours**``) as the
    text it renders to, as a document's is read."""
    index: dict[str, list[dict]] = {}
    for claim in claims:
        baseline = alias_key(claim["baseline"]) if is_comparison(claim) else None
        for alias in claim.get("aliases") or []:
            if alias_key(alias) != baseline:  # the baseline's own name names the baseline
                index.setdefault(alias_key(alias), []).append(claim)
    return index


RST_MARKUP = re.compile(r":\w+:`|\\ ")  # a role (``:sub:`1```) or an escaped space


@cache  # read for every candidate of every ambiguous number: rendering is not free
def alias_key(alias: str) -> str:
    """An alias as the vocabulary keys it: rendered, folded, its spaces collapsed."""
    return phrase_key(_rendered(alias))


def _rendered(alias: str) -> str:
    if RST_MARKUP.search(alias):
        return rst_inline(alias, names=True)
    # LaTeX: a command, math, or a tie between words (``ranked~1``: ``ranked 1``)
    latex = "\\" in alias or "$" in alias or re.search(r"\w~\w", alias)
    lone = re.fullmatch(r"\\([A-Za-z]+)(?:\{\})?", alias)
    if lone:  # a macro of the document's own names what it stands for: ``\dds``, ``\varMFWarm``
        return lone.group(1)
    if latex and not re.fullmatch(r"[^$\\]*(?:\\\|[^$\\]*)+", alias):
        return plain(alias)
    # Markdown's marks, and a pipe table's escaped bar (``Acceptance\|B``: Acceptance|B)
    return inline(alias, names=True) if re.search(r"`|\*\*|__|<\w|\\\|", alias) else alias
