"""Rows no name tells apart (``SimplePatch (Ours)`` three times, differing only in ``|D|`` or
a ✓): the cells of a document whose aliases leave the same candidate claims are resolved
together, across its tables, column by column (a column of other systems' numbers is not
a column of the project's). A cell whose value states one of them is matched; when as many
cells as claims are left (at most ``MOST``), each cell states one of those claims, and none
of them rightly: each is drift, paired with the claims so that the values differ least.
Anything more ambiguous (more cells than claims) is left alone. The numbers of one cell that
no name tells apart (``91.3/91.1``, MNLI's matched and mismatched sets) are resolved so too,
and a number left unmapped beside numbers of one run (a script's line of metrics, a table
row) is that run's.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import permutations

from rgt.evidence.reconcile.aliases import alias_sets
from rgt.evidence.reconcile.attribute import Attribution
from rgt.evidence.reconcile.check import Outcome, document_scale, judge
from rgt.evidence.reconcile.sites import Site
from rgt.evidence.reconcile.statistics import Statement
from rgt.evidence.reconcile.vocabulary import Vocabulary

Pending = tuple[Site, Statement, Attribution, bool]  # bool: positive = better there
Judged = tuple[Site, Statement, Attribution, bool, list[Outcome]]
Found = tuple[Site, Outcome]
MOST = 6  # the most cells paired with claims at once (6! pairings)


def resolve_cells(judged: list[Judged], claims: list[dict],
                  vocabulary: Vocabulary) -> list[Found]:
    """Every outcome as judged, but a table cell's numbers that no name tells apart and that
    one left unmapped (``91.3/91.1``: MNLI's matched and mismatched sets, both named ``MNLI
    large``) resolved together, as unnamed rows are: the claims the others state are not its."""
    judged = _named_column(judged, claims)
    groups: dict[tuple, list[Judged]] = {}
    for item in judged:
        groups.setdefault(_cell_key(item) or (id(item),), []).append(item)
    found = []
    for items in groups.values():
        if len(items) > 1 and any(_unmapped(item) for item in items):
            found += _resolve([item[:4] for item in items])
        else:
            found += [(item[0], outcome) for item in items for outcome in item[4]]
    found = _rows_named_otherwise(_columns_named_otherwise(found, vocabulary), vocabulary)
    return _twin_rows(_stated_once(_one_runs(found, judged)))


def _columns_named_otherwise(found: list[Found], vocabulary: Vocabulary) -> list[Found]:
    """A claim two columns of one row are held against is stated under the head that says
    nothing but names: a drift of it, or a number left unmapped, under a head with a word no
    name covers (``Detectron mAP (box;mask)`` beside ``mAP (box;mask)``: the reference's
    numbers) is another's."""
    plain = {(site.row, outcome.claim["id"], outcome.part) for site, outcome in found
             if _in_a_row(site) and outcome.claim is not None
             and not _head_uncovered(site, vocabulary)}
    rows = {row for row, _, _ in plain}
    return [(site, outcome) for site, outcome in found if not (
        _in_a_row(site) and _head_uncovered(site, vocabulary) and (
            outcome.status == "drift" and (site.row, outcome.claim["id"], outcome.part) in plain
            or outcome.status == "unmapped" and site.row in rows))]


def _in_a_row(site: Site) -> bool:
    return site.in_table and site.row >= 0


def _head_uncovered(site: Site, vocabulary: Vocabulary) -> bool:
    """Whether a table cell's column head has a word no name covers."""
    column = site.level("column")
    return column is not None and bool(vocabulary.uncovered(column.text))


def _rows_named_otherwise(found: list[Found], vocabulary: Vocabulary) -> list[Found]:
    """A claim is stated in the row whose label names it most narrowly: a drift of it in the
    same column of a row whose label names it more broadly, names other claims or none (a
    confusion matrix's ``Exp 2 N(P)``, the class no claim is of, beside ``Exp 2 S(P)``;
    ``S(P)``'s recall, where ``M(P)`` names the claim of recall) is another thing's number."""
    labelled = [(site, outcome, _row_claims(site, vocabulary)) for site, outcome in found]
    naming: dict[tuple, list[frozenset[str]]] = {}
    for site, outcome, named in labelled:
        if named and outcome.claim is not None and outcome.claim["id"] in named:
            naming.setdefault((site.column, outcome.claim["id"]), []).append(named)
    return [(site, outcome) for site, outcome, named in labelled
            if outcome.status != "drift" or not _stated_elsewhere(
                site, named, naming.get((site.column, outcome.claim["id"]), []),
                outcome.claim["id"])]


def _stated_elsewhere(site: Site, named: frozenset[str] | None,
                      others: list[frozenset[str]], claim: str) -> bool:
    """Whether another row of the cell's column names ``claim`` more narrowly than the cell's
    row label (a label naming no claim names it most broadly)."""
    if not site.in_table or site.level("row") is None or not site.level("row").text.strip():
        return False
    return any(other != named and (named is None or claim not in named or other < named)
               for other in others)


def _row_claims(site: Site, vocabulary: Vocabulary) -> frozenset[str] | None:
    """The claims a table cell's row label names: those each of its names of claims names
    (``Exp 2 S(P)``: experiment 2's single-hit claims); ``None`` where it names none."""
    row = site.level("row")
    named = [claims for claims in alias_sets(row.text if row else "", vocabulary) if claims]
    return frozenset.intersection(*named) if named and site.in_table else None


def _named_column(judged: list[Judged], claims: list[dict]) -> list[Judged]:
    """A claim among the candidates of cells of two columns of one row (a combination's claim,
    named ``mAP`` and ``Combined``, beside the model's own ``mAP``): the column whose head
    fewer claims are named by states it, and the other column's cell is judged without it
    (the model's own claim, or nothing). Only when every such head is one of the claims'
    names."""
    heads: dict[tuple, dict[int, int]] = {}
    for site, _, attribution, _, _ in judged:
        for claim in attribution.claims if site.in_table and site.row >= 0 else []:
            heads.setdefault((site.row, claim["id"]), {})[site.column] = _named_by(site, claims)
    redone = []
    for item in judged:
        site, attribution = item[0], item[2]
        kept = [claim for claim in attribution.claims if not _named_elsewhere(
            heads.get((site.row, claim["id"]), {}), site.column)]
        if len(kept) == len(attribution.claims) or not site.in_table:
            redone.append(item)
        elif kept:
            again = replace(attribution, claims=kept)
            redone.append((*item[:2], again, item[3], judge(item[1], again, site.unit, item[3])))
    return redone


def _named_elsewhere(columns: dict[int, int], column: int) -> bool:
    """Whether another column's head names the claim whole, and fewer claims than this
    column's head."""
    return len(columns) > 1 and all(columns.values()) and min(columns.values()) < columns[column]


def _named_by(site: Site, claims: list[dict]) -> int:
    """How many claims the cell's column head names whole (one of their aliases)."""
    column = site.level("column")
    head = column.text.strip().casefold() if column else ""
    return sum(any(alias.casefold() == head for alias in claim.get("aliases") or [])
               for claim in claims) if head else 0


def _twin_rows(found: list[Found]) -> list[Found]:
    """Two rows of a table under one label (AlpacaEval's evaluators table names two
    configurations alike): the label names the row most of whose numbers agree with its
    claims; another row, most of whose numbers disagree, is another thing's, left alone."""
    rows: dict[str, dict[int, list[int]]] = {}
    for index, (site, outcome) in enumerate(found):
        row = site.level("row")
        if row is not None and row.text and site.row >= 0 and outcome.claim is not None:
            rows.setdefault(row.text, {}).setdefault(site.row, []).append(index)
    dropped: set[int] = set()
    for labelled in rows.values():
        drifts = {row: [i for i in indices if found[i][1].status == "drift"]
                  for row, indices in labelled.items()}
        if any(len(drifts[row]) * 2 < len(indices) for row, indices in labelled.items()):
            dropped.update(i for row, indices in labelled.items()
                           if len(drifts[row]) * 2 > len(indices) for i in drifts[row])
    return [pair for index, pair in enumerate(found) if index not in dropped]


def _stated_once(found: list[Found]) -> list[Found]:
    """A cell's numbers held against one claim (``2.22 (2.23)`` under ``IS``, the bracket
    another script's score): the claim is stated once, by the number that matches it, else by
    the first; the others are other numbers the cell gives, no drift of it."""
    keys = [_claim_in_cell(site, outcome) for site, outcome in found]
    stating: dict[tuple, int] = {}
    for index, key in enumerate(keys):
        if key is not None and found[index][1].status == "matched":
            stating.setdefault(key, index)
    for index, key in enumerate(keys):
        if key is not None:
            stating.setdefault(key, index)
    return [pair for index, (pair, key) in enumerate(zip(found, keys, strict=True))
            if key is None or stating[key] == index or pair[1].status == "matched"]


def _claim_in_cell(site: Site, outcome: Outcome) -> tuple | None:
    if not site.in_table or outcome.part != "value" or outcome.claim is None:
        return None
    return (*_cell(site), outcome.claim["id"])


def _cell(site: Site) -> tuple:
    """Where a table site is: its line and column."""
    return (site.starts, site.column)


def _unmapped(item: Judged) -> bool:
    return bool(item[4]) and item[4][0].status == "unmapped"


def _one_runs(found: list[Found], judged: list[Judged]) -> list[Found]:
    """A number left unmapped between runs beside numbers of one run: a prose sentence's
    numbers that no name gave a run but whose value states one (``{"f1": 88.41,
    "exact_match": 81.25}``, a script's line of one run's metrics), a table row's whose row
    named the same runs (``TSM ResNet50 | 8 | 45.6 | 47.6``: the 8-frame run's row). That
    run's, when it has one claim among the candidates."""
    runs: dict[str, set[str]] = {}
    for item in judged:
        if _tells_the_run(item):
            runs.setdefault(_one_run_key(item[0]), set()).update(
                outcome.claim.get("variant") for outcome in item[4]
                if outcome.status == "matched" and outcome.part == "value")
    redone = {}
    for item in judged:
        ran = runs.get(_one_run_key(item[0]), set()) if _unmapped(item) else set()
        theirs = [claim for claim in item[2].claims if claim.get("variant") in ran]
        if len(theirs) == 1:
            redone[id(item[0])] = _against(item[:4], theirs[0])
    again = []
    for site, outcome in found:
        again += [(site, new) for new in redone[id(site)]] if (
            id(site) in redone and outcome.status == "unmapped") else [(site, outcome)]
    return again


def _tells_the_run(item: Judged) -> bool:
    """Whether a number's matched claim tells its line's run: no name gave it one (prose),
    or only its row did (a table)."""
    variant = item[2].facets.get("variant")
    if item[0].in_table:
        return variant is not None and variant.tier == "row"
    return variant is None


def _one_run_key(site: Site) -> str:
    """A prose number's sentence, a table cell's row."""
    if site.in_table:
        return f"{site.starts}{site.level('row').text if site.level('row') else ''}"
    sentence = site.level("sentence")
    return f"{site.starts}{sentence.text if sentence else ''}"


def _cell_key(item: Judged) -> tuple | None:
    site, attribution = item[0], item[2]
    if not site.in_table or len(attribution.claims) < 2:
        return None
    return (*_cell(site), *sorted(claim["id"] for claim in attribution.claims))


def _against(item: Pending, claim: dict) -> list[Outcome]:
    site, statement, attribution, oriented = item
    only = replace(attribution, claims=[claim], loose=[], strong=True, unnamed=False)
    return judge(statement, only, site.unit, oriented)


def _resolve(items: list[Pending]) -> list[tuple[Site, Outcome]]:
    claims = items[0][2].claims
    decided: dict[int, tuple[dict, list[Outcome]]] = {}
    for index, item in enumerate(items):
        for claim in claims:
            outcomes = _against(item, claim)
            if outcomes and outcomes[0].status == "matched":
                decided[index] = (claim, outcomes)
                break
    stated = [claim for claim, _ in decided.values()]
    left = [claim for claim in claims if not any(claim is other for other in stated)]
    open_cells = [index for index in range(len(items)) if index not in decided]
    if 1 <= len(open_cells) == len(left) <= MOST:
        for index, claim in zip(open_cells, _closest(items, open_cells, left), strict=True):
            decided[index] = (claim, _against(items[index], claim))
    return [(items[index][0], outcome) for index, (_, outcomes) in sorted(decided.items())
            for outcome in outcomes]


def _closest(items: list[Pending], cells: list[int], claims: list[dict]) -> tuple[dict, ...]:
    """The claims in the order that pairs them with ``cells`` at the least total distance."""
    def value(index: int) -> float:
        return items[index][1].parts[0].number.value
    def cost(order: tuple[dict, ...]) -> float:
        return sum(abs(value(index) - _scaled(items[index], claim))
                   for index, claim in zip(cells, order, strict=True))
    return min(permutations(claims), key=cost)


def _scaled(item: Pending, claim: dict) -> float:
    """The claim's value in the cell's scale (a percent cell, a fraction claim)."""
    site, statement = item[0], item[1]
    return claim["value"] * document_scale(statement.parts[0].number, claim["value"], statement,
                                           site.unit)


def resolve_rows(pending: list[Pending]) -> list[tuple[Site, Outcome]]:
    """The outcomes of a document's unnamed rows, resolved among the cells sharing the same
    candidates, those with the fewest first: the claims they state are not the candidates of
    cells with more (``NNCLR*``'s rows state the starred runs' claims, so the one ``NNCLR``
    row left under the same column states the other)."""
    groups: dict[tuple, list[Pending]] = {}
    for item in pending:
        key = (_column(item[0]), *sorted(claim["id"] for claim in item[2].claims))
        groups.setdefault(key, []).append(item)
    found: list[tuple[Site, Outcome]] = []
    stated: set[tuple[str, str]] = set()
    for key in sorted(groups, key=len):
        items = [_without(item, {claim for column, claim in stated if column == key[0]})
                 for item in groups[key]]
        resolved = _resolve(items) if items[0][2].claims else []
        stated |= {(key[0], outcome.claim["id"]) for _, outcome in resolved if outcome.claim}
        found += resolved
    return found


def less_stated(pending: list[Pending], named: list[Found]) -> list[Pending]:
    """A table's unnamed rows' cells, less the candidates that a named row's cell under the
    same column of that table matches (``above w/ tta 1x``'s run, beside ``above w/ finetune``
    and ``1x``: the finetuned run without test-time augmentation)."""
    stated = {(_column(site), outcome.claim["id"]) for site, outcome in named
              if site.in_table and outcome.status == "matched" and outcome.claim is not None}
    return [_without(item, {claim for column, claim in stated if column == _column(item[0])})
            for item in pending]


def _column(site: Site) -> str:
    return next((level.text for level in site.levels if level.tier == "column"), "")


def _without(item: Pending, stated: set[str]) -> Pending:
    """An unnamed row's cell, less the candidates other rows state."""
    claims = [claim for claim in item[2].claims if claim["id"] not in stated]
    return (*item[:2], replace(item[2], claims=claims), item[3])
