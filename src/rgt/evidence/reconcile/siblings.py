"""Rows no name tells apart (``SimplePatch (Ours)`` three times, differing only in ``|D|`` or
a ✓): the cells of a document whose aliases leave the same candidate claims are resolved
together, across its tables. A cell whose value states one of them is matched; when exactly
one cell and exactly one claim are left, the cell states that claim, wrongly: drift. Anything
more ambiguous is left alone.
"""

from __future__ import annotations

from dataclasses import replace

from rgt.evidence.reconcile.attribute import Attribution
from rgt.evidence.reconcile.check import Outcome, judge
from rgt.evidence.reconcile.sites import Site
from rgt.evidence.reconcile.statistics import Statement

Pending = tuple[Site, Statement, Attribution, bool]  # bool: positive = better there


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
    if len(open_cells) == len(left) == 1:
        decided[open_cells[0]] = (left[0], _against(items[open_cells[0]], left[0]))
    return [(items[index][0], outcome) for index, (_, outcomes) in sorted(decided.items())
            for outcome in outcomes]


def resolve_rows(pending: list[Pending]) -> list[tuple[Site, Outcome]]:
    """The outcomes of a document's unnamed rows, resolved among the cells sharing the same
    candidates."""
    groups: dict[tuple, list[Pending]] = {}
    for item in pending:
        groups.setdefault(tuple(sorted(claim["id"] for claim in item[2].claims)), []).append(item)
    return [found for items in groups.values() for found in _resolve(items)]
