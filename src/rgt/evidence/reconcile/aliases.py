"""What a table's aliases pin down: each alias names the claims that carry it, and a cell is
about the claims every alias around it names.

In ``EVIDENCE.json`` an alias is a claim's name for documents (``CoLES``, ``CIFAR-10``,
``SWA 1.5 Budgets``); shared by several claims, it names them all. A cell's column, row (all
its label's aliases: ``PyramidNet-200 + CutMix``) and cell text narrow the claims to those
every alias there names; each alias of the caption and the headings narrows them further
where that leaves any. Where the strong levels contradict each other (``ResNet-50 +
DropBlock`` when only the CIFAR-100 run has DropBlock), no claim is meant and the number is
left alone.

A row naming an experiment and no variant (``ResNet50`` above ``ResNet50+Mixup``) is that
experiment's baseline, when its comparisons have one.
"""

from __future__ import annotations

import re

from rgt.evidence.reconcile.blocks import Table
from rgt.evidence.reconcile.facets import Facet
from rgt.evidence.reconcile.names import is_comparison
from rgt.evidence.reconcile.sites import Site
from rgt.evidence.reconcile.tables import label_columns, table_sites
from rgt.evidence.reconcile.text import fold
from rgt.evidence.reconcile.vocabulary import BASELINE, Vocabulary

STRONG = ("cell", "column", "row", "corner")
WEAK = ("caption", "scope")
SHARED = {"metric": "metric", "exp": "exp_id", "variant": "variant", "split": "split"}


def alias_sets(text: str, vocabulary: Vocabulary, key: str = "claims") -> list[frozenset[str]]:
    """The claims each alias in ``text`` names (``own``: only the claims that carry it, not
    those its words name; an alias that is a metric's name has none of its own)."""
    return [frozenset(hit.facets[key]) for hit in vocabulary.find(text) if key in hit.facets]


def level_claims(text: str, vocabulary: Vocabulary, key: str = "claims") -> frozenset[str] | None:
    """The claims every alias in ``text`` names (None: it holds no alias)."""
    sets = alias_sets(text, vocabulary, key)
    return frozenset.intersection(*sets) if sets else None


def aliased(site: Site, vocabulary: Vocabulary) -> frozenset[str] | None:
    """The claims a table cell's aliases pin down; None when they pin nothing, empty when
    its column, row and cell name no claim in common."""
    if not site.in_table:
        return None
    pinned = None
    for level in site.levels:
        if level.tier in STRONG:
            named = level_claims(level.text, vocabulary)
            if named is None:
                continue  # a level without an alias (a row of hyperparameters) pins nothing
            # the claims that carry its aliases first (``reference ImageNet accuracy``: the
            # checkpoints' top-1, not every ImageNet claim its words name), if any is left
            own = level_claims(level.text, vocabulary, "own") or frozenset()
            narrow = own if pinned is None else pinned & own
            pinned = narrow or (named if pinned is None else pinned & named)
            if pinned is not None and not pinned:
                return frozenset()
        elif level.tier in WEAK and pinned:
            for named in alias_sets(level.text, vocabulary):
                pinned = pinned & named if pinned & named else pinned
    return pinned


def _says_nothing(text: str, claims: list[dict], vocabulary: Vocabulary) -> bool:
    """No name in ``text`` (the word *baseline* counts as none where no claim is a
    comparison)."""
    compared = any(map(is_comparison, claims))
    return all(hit.facets == {"variant": frozenset({BASELINE})} and not compared
               for hit in vocabulary.find(text))


def foreign_columns(table: Table, claims: list[dict], vocabulary: Vocabulary) -> set[int]:
    """The columns of other systems (``Baseline``, ``Cutout``, ``AutoAugment`` beside ``Fast
    AutoAugment``): numeric columns whose header names nothing, in a table where another
    column's header names claims by their aliases."""
    labels = label_columns(table)
    numeric = [j for j in range(len(table.header)) if j not in labels]
    named = {j for j in numeric if alias_sets(table.header[j], vocabulary)}
    return {j for j in numeric if j not in named
            and _says_nothing(table.header[j], claims, vocabulary)} if named else set()


def foreign_rows(sites: list[Site], claims: list[dict], vocabulary: Vocabulary) -> set[str]:
    """The row labels of other systems (``BERT-Large`` above ``XLNet-Large``, ``Paper (RA)``
    above ``This code``): labels that name nothing, in a table where another row's label
    names claims by their aliases."""
    rows = {level.text for site in sites for level in site.levels if level.tier == "row"}
    named = {row for row in rows if alias_sets(row, vocabulary)}
    return {row for row in rows - named if row.strip()
            and _says_nothing(row, claims, vocabulary)} if named else set()


# words that say which aggregate or point a row is, not which system: no rival's name
POINT_WORDS = {"seed", "run", "trial", "fold", "mean", "avg", "average", "median", "std", "best"}


def _leftover(text: str, vocabulary: Vocabulary) -> int:
    """How many words of ``text`` no name covers (``Fine-tune`` in ``RoBERTa base Fine-tune``)."""
    rest, end = "", 0
    for hit in vocabulary.find(text):
        rest, end = rest + " " + fold(text)[end:hit.start], hit.end
    words = re.findall(r"[^\W\d_]{2,}", rest + " " + fold(text)[end:])
    return sum(word not in POINT_WORDS for word in words)


def _named_claims(text: str, claims: list[dict], vocabulary: Vocabulary) -> frozenset[str]:
    """The claims every name in ``text`` names: an alias its claims, a variant's id (``RoBERTa
    base LoRA`` for ``roberta_base_lora``) that variant's."""
    sets = []
    for hit in vocabulary.find(text):
        if "claims" in hit.facets:
            sets.append(frozenset(hit.facets["claims"]))
        elif "variant" in hit.facets:
            sets.append(frozenset(claim["id"] for claim in claims
                                  if claim["variant"] in hit.facets["variant"]))
    return frozenset.intersection(*sets) if sets else frozenset()


def outnamed(headers: dict, claims: list[dict], vocabulary: Vocabulary) -> set:
    """Of headers whose aliases pin the same claims (``RoBERTa base Fine-tune`` and ``RoBERTa
    base LoRA``; ``GPT-2 M (Fine-Tune)`` and ``GPT-2 M (LoRA)``), those with words no name
    covers when another has fewer: another system's, which the project's aliases only
    partly name."""
    groups: dict[frozenset, list] = {}
    for key, text in headers.items():
        pinned = _named_claims(text, claims, vocabulary)
        qualifies = any({"dispersion", "role"} & set(hit.facets) for hit in vocabulary.find(text))
        if pinned and not qualifies:  # a spread or seed column is no rival of its values
            groups.setdefault(pinned, []).append(key)
    dropped = set()
    for keys in groups.values():
        fewest = min(_leftover(headers[key], vocabulary) for key in keys)
        dropped |= {key for key in keys if _leftover(headers[key], vocabulary) > fewest}
    return dropped


def own_sites(table: Table, claims: list[dict], vocabulary: Vocabulary) -> list[Site]:
    """The sites of ``table`` outside other systems' columns and rows."""
    sites = table_sites(table)
    columns = foreign_columns(table, claims, vocabulary) | outnamed(
        dict(enumerate(table.header)), claims, vocabulary)
    labels = {level.text for site in sites for level in site.levels if level.tier == "row"}
    rows = foreign_rows(sites, claims, vocabulary) | outnamed(
        {label: label for label in labels}, claims, vocabulary)
    return [site for site in sites if site.column not in columns and not any(
        level.tier == "row" and level.text in rows for level in site.levels)]


def only_names(text: str, vocabulary: Vocabulary) -> bool:
    """Whether ``text`` holds nothing but names (and punctuation, brackets, numbers)."""
    rest, end = "", 0
    for hit in vocabulary.find(text):
        rest, end = rest + text[end:hit.start], hit.end
    return not re.search(r"[^\W\d_]{2,}", rest + text[end:])


def baseline_row(site: Site, pinned: frozenset[str], claims: list[dict],
                 vocabulary: Vocabulary) -> frozenset[str]:
    """``pinned`` narrowed to the baseline when the cell's row is nothing but the names of
    one experiment (no variant named), and that experiment's comparisons share one
    baseline."""
    row = next((level for level in site.levels if level.tier == "row"), None)
    if row is None or not only_names(row.text, vocabulary):
        return pinned
    named = level_claims(row.text, vocabulary)
    by_id = {claim["id"]: claim for claim in claims}
    if not named or len({by_id[i]["exp_id"] for i in named}) != 1:
        return pinned
    if len({by_id[i]["variant"] for i in pinned}) == 1:
        return pinned
    exp = by_id[next(iter(named))]["exp_id"]
    baselines = {c["baseline"] for c in claims if is_comparison(c) and c["exp_id"] == exp}
    if len(baselines) != 1:
        return pinned
    return frozenset(i for i in pinned if by_id[i]["variant"] in baselines) or pinned


def pinned_facets(pinned: frozenset[str], claims: list[dict]) -> dict[str, Facet]:
    """The facets every pinned claim shares, as strongly named ones."""
    chosen = [claim for claim in claims if claim["id"] in pinned]
    found = {}
    for facet, key in SHARED.items():
        if facet == "variant" and any(map(is_comparison, chosen)):
            continue  # a comparison's variant is read from its candidate and baseline
        values = {claim.get(key) for claim in chosen}
        if len(values) == 1 and None not in values:
            found[facet] = Facet(frozenset(values), True, "alias", frozenset(values))
    return found
