"""Other systems' numbers in a table, left alone: a column or row that names nothing beside
ones the evidence's aliases name (``Baseline``, ``Cutout`` beside ``Fast AutoAugment``;
``BERT-Large`` above ``XLNet-Large``), and a rival header those aliases only partly name
(``RoBERTa base Fine-tune`` beside ``RoBERTa base LoRA``).
"""

from __future__ import annotations

import re

from rgt.evidence.reconcile.aliases import alias_sets
from rgt.evidence.reconcile.blocks import Table
from rgt.evidence.reconcile.composed import composed_names
from rgt.evidence.reconcile.names import is_comparison
from rgt.evidence.reconcile.sites import Site
from rgt.evidence.reconcile.tables import label_columns, table_sites
from rgt.evidence.reconcile.vocabulary import BASELINE, OTHER, Hit, Vocabulary


def _says_nothing(text: str, claims: list[dict], vocabulary: Vocabulary) -> bool:
    """No name in ``text`` but another system's words (``Prev. SOTA``; the word *baseline* too,
    where no claim is a comparison)."""
    compared = any(map(is_comparison, claims))
    return all(_an_others_word(hit, compared) for hit in vocabulary.find(text))


def _an_others_word(hit: Hit, compared: bool) -> bool:
    return hit.facets == {"variant": {OTHER}} or (
        hit.facets == {"variant": {BASELINE}} and not compared)


# a header or row label quoting a paper's numbers, in words no alias covers: "TD3 paper (DDPG)"
PAPERS_WORDS = {"paper", "papers", "reported", "official", "original"}


def _the_papers(text: str, vocabulary: Vocabulary) -> bool:
    return bool(PAPERS_WORDS & set(vocabulary.uncovered(text)))


def foreign_columns(table: Table, claims: list[dict], vocabulary: Vocabulary) -> set[int]:
    """The columns of other systems (``Baseline``, ``Cutout``, ``AutoAugment`` beside ``Fast
    AutoAugment``; ``TD3 paper (DDPG)`` beside ``Tianshou (1M)``): numeric columns whose
    header names nothing, or quotes a paper, in a table where another column's header names
    claims by their aliases."""
    labels = label_columns(table)
    numeric = [j for j in range(len(table.header)) if j not in labels]
    named = {j for j in numeric if alias_sets(table.header[j], vocabulary)
             and not _the_papers(table.header[j], vocabulary)}
    return {j for j in numeric if j not in named and (
        _the_papers(table.header[j], vocabulary)
        or _says_nothing(table.header[j], claims, vocabulary))} if named else set()


def foreign_rows(rows: set[str], claims: list[dict], vocabulary: Vocabulary) -> set[str]:
    """The row labels of other systems (``BERT-Large`` above ``XLNet-Large``, ``Paper (RA)``
    above ``This code``): labels that name nothing, or quote a paper, in a table where another
    row's label names claims by their aliases."""
    named = {row for row in rows if alias_sets(row, vocabulary)
             and not _the_papers(row, vocabulary)}
    return {row for row in rows - named if row.strip() and (
        _the_papers(row, vocabulary) or _says_nothing(row, claims, vocabulary)
        or _a_metric_s_name_only(row, vocabulary))} if named else set()


def _a_metric_s_name_only(label: str, vocabulary: Vocabulary) -> bool:
    """A row label whose only names are a metric's, no alias (``FLOPs``, a baseline that
    ranks by the count): another ranking's row, not one of the evidence's runs."""
    hits = vocabulary.find(label)
    return bool(hits) and all(set(hit.facets) == {"metric"} for hit in hits)


# words that say which aggregate or point a row is, not which system, or that it is the
# project's own (``My replication``): no rival's name; nor is ``links``, a cell of download
# links as a pipe table reads it (a row with links beside one without is no other system)
POINT_WORDS = {"seed", "run", "trial", "fold", "mean", "avg", "average", "median", "std", "best",
               "my", "our", "ours", "replication", "reproduction", "reproduced", "replicated",
               "links"}


def _leftover(text: str, vocabulary: Vocabulary) -> int:
    """How many words of ``text`` no name covers (``Fine-tune`` in ``RoBERTa base Fine-tune``,
    the sentence's ``S`` in ``S.Err`` beside ``Err``)."""
    return sum(word not in POINT_WORDS for word in vocabulary.uncovered(text)) + len(
        PREFIX_LETTER.findall(text)) + len(_digit_split_names(vocabulary.blanked(text)))


def _digit_split_names(text: str) -> list[str]:
    """Names no two letters of which stand together (``V2A``, ``R2D2``): words all the same,
    which ``uncovered`` (two letters or more) does not see."""
    return [token for token in re.findall(r"[^\W_]+", text)
            if re.search(r"\d", token) and len(re.findall(r"[^\W\d_]", token)) >= 2
            and not re.search(r"[^\W\d_]{2}", token)]


# a capital glued to a name by a period: ``S.Err`` (sentence error rate) beside ``Err``
PREFIX_LETTER = re.compile(r"(?<![\w.])[A-Z]\.(?=[A-Za-z]{2})")


def _named_claims(text: str, claims: list[dict], vocabulary: Vocabulary) -> frozenset[str]:
    """The claims every name in ``text`` names: an alias its claims, a variant's id (``RoBERTa
    base LoRA`` for ``roberta_base_lora``) that variant's; another system's word names none."""
    sets = []
    for hit in vocabulary.find(text):
        if hit.facets.get("variant", set()) & {OTHER, BASELINE} and "claims" not in hit.facets:
            continue
        if "claims" in hit.facets:
            sets.append(frozenset(hit.facets["claims"]))
        elif "variant" in hit.facets:
            sets.append(frozenset(claim["id"] for claim in claims
                                  if claim["variant"] in hit.facets["variant"]))
    return frozenset.intersection(*sets) if sets else frozenset()


def outnamed(headers: dict, claims: list[dict], vocabulary: Vocabulary) -> set:
    """Headers with words no name covers when a rival naming some of the same claims (or all
    of them) has fewer (``RoBERTa base Fine-tune`` beside ``RoBERTa base LoRA``; ``PointNet
    (Official)`` beside ``PointNet (Pytorch)``): another system's, which the project's aliases
    only partly name."""
    pinned, leftover = {}, {}
    for key, text in headers.items():
        named = _named_claims(text, claims, vocabulary)
        qualifies = any({"dispersion", "role"} & set(hit.facets) for hit in vocabulary.find(text))
        if named and not qualifies:  # a spread or seed column is no rival of its values
            pinned[key], leftover[key] = named, _leftover(text, vocabulary)
    return {key for key in pinned if any(
        pinned[other] <= pinned[key] and leftover[other] < leftover[key] for other in pinned)}


def _others_word(text: str, claims: list[dict], vocabulary: Vocabulary) -> bool:
    compared = any(map(is_comparison, claims))
    return any(_an_others_word(hit, compared) for hit in vocabulary.find(text))


def beside_ours(headers: dict, claims: list[dict], vocabulary: Vocabulary) -> set:
    """Headers naming some of our claims with another system's word too (``Baselines PPO
    @10M`` beside ``RLlib PPO @10M``: OpenAI Baselines' PPO) when a header without one names
    some of the same claims: that other system's run."""
    named = {key: _named_claims(text, claims, vocabulary) for key, text in headers.items()}
    marked = {key for key, text in headers.items()
              if named[key] and _others_word(text, claims, vocabulary)}
    return {key for key in marked if any(
        named[key] & named[other] for other in headers if other not in marked)}


def _unnamed_beside_names(table: Table, vocabulary: Vocabulary) -> set[int]:
    """The rows whose cell in a column of short labels names nothing where other cells of
    that column name different claims by their aliases (a thesis's ``Type`` column: its
    baselines' graphs ``A``, ``OD``, ``P`` beside its own ``C`` and ``A'``): other runs, told
    apart there. A column of links, commands or descriptions tells no rows apart so."""
    rows: set[int] = set()
    for column in label_columns(table):
        cells = {index: row[column].text.strip() for index, row in enumerate(table.rows)
                 if column < len(row) and _a_word(row[column].text)}
        if not all(SHORT_LABEL.fullmatch(text) for text in cells.values()):
            continue
        named = {index: frozenset(alias_sets(text, vocabulary)) for index, text in cells.items()}
        if len({sets for sets in named.values() if sets}) >= 2:
            rows |= {index for index, sets in named.items() if not sets}
    return rows


# one short word of a label column (``A'``, ``COS``, ``DTW``): no link, command or sentence
SHORT_LABEL = re.compile(r"[^\W_][\w'’+-]{0,7}")


def _a_word(text: str) -> bool:
    """Whether a cell has a letter, and a word other than one saying which point a row is."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    return bool(words) and not set(words) <= POINT_WORDS


def own_sites(table: Table, claims: list[dict], vocabulary: Vocabulary) -> list[Site]:
    """The sites of ``table`` outside other systems' columns and rows."""
    table, naming = composed_names(table, vocabulary)
    sites = table_sites(table, naming)
    headers = dict(enumerate(table.header))
    columns = foreign_columns(table, claims, vocabulary) | outnamed(
        headers, claims, vocabulary) | beside_ours(headers, claims, vocabulary)
    labels = {level.text for site in sites for level in site.levels if level.tier == "row"}
    named = {label: label for label in labels}
    rows = foreign_rows(labels, claims, vocabulary) | outnamed(named, claims, vocabulary) | \
        beside_ours(named, claims, vocabulary)
    unnamed = _unnamed_beside_names(table, vocabulary)
    return [site for site in sites if site.column not in columns and site.row not in unnamed
            and not any(level.tier == "row" and level.text in rows for level in site.levels)]
