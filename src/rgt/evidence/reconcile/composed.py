"""Columns of a table that name its rows though a reader would take them for numbers or
marks: numbers, not all the same, each of which the evidence names a run by (``1``, ``5``,
``15`` of a beam-size sweep; ``1 – 10%`` under ``Mask Area``); whole numbers under a header
of a word or three (``Split``: ``1``, ``2``; ``Shot``: ``5``) whose header and number compose
the evidence's names of runs (``split1``, ``5shot``); and a column of ``Y`` and ``N``
(``contrastive loss``), read as ✓ and ✗ marks unless the cells (``Yes``) or the header with
them (``MultiScale Testing No``) are names of their own.
"""

from __future__ import annotations

import re
from dataclasses import replace

from rgt.evidence.reconcile.blocks import Table
from rgt.evidence.reconcile.tables import is_numeric
from rgt.evidence.reconcile.vocabulary import Vocabulary

YES = re.compile(r"\s*(?:y|yes)\s*", re.I)
NO = re.compile(r"\s*(?:n|no)\s*", re.I)


def composed_names(table: Table, vocabulary: Vocabulary) -> tuple[Table, frozenset[int]]:
    """``table`` with the cells its headers name renamed, and the columns of numbers among
    them (they tell the rows apart, they hold no result)."""
    renamed: dict[int, dict[int, str]] = {}
    width = max((len(row) for row in table.rows), default=0)
    numbers = {column for column in range(width)
               if _each_a_run_s_name(_cells(table, column), vocabulary)}
    for column, head in enumerate(table.header):
        cells = _cells(table, column)
        names = _numbers_named(cells, head.strip(), vocabulary)
        numbers |= {column} if names else set()
        names = names or _yes_or_no_named(cells, head.strip(), vocabulary)
        if names:
            renamed[column] = names
    rows = [[replace(cell, text=renamed[j][i]) if i in renamed.get(j, {}) else cell
             for j, cell in enumerate(row)] for i, row in enumerate(table.rows)]
    return replace(table, rows=rows), frozenset(numbers)


def _cells(table: Table, column: int) -> dict[int, str]:
    return {index: row[column].text.strip() if column < len(row) else ""
            for index, row in enumerate(table.rows)}


def _each_a_run_s_name(cells: dict[int, str], vocabulary: Vocabulary) -> bool:
    """Numbers, not all the same, each a name the evidence gives a run."""
    filled = [text for text in cells.values() if text]
    return len(set(filled)) > 1 and all(map(is_numeric, filled)) and all(
        _names_a_run(text, vocabulary) for text in filled)


def _numbers_named(cells: dict[int, str], head: str, vocabulary: Vocabulary) -> dict[int, str]:
    """Each row's name composed of ``head`` (a word or three) and its whole number, when
    every number composes one."""
    if not re.fullmatch(r"[^\W\d_]{2,}(?:\s+[^\W\d_]{2,}){0,2}", head) or not all(
            re.fullmatch(r"\d{1,3}", text) for text in cells.values()):
        return {}
    names = {index: _composed(head, text, vocabulary) for index, text in cells.items()}
    return names if cells and all(names.values()) else {}


def _composed(head: str, text: str, vocabulary: Vocabulary) -> str:
    """The first of ``head`` and ``text`` written together that names a run, or nothing."""
    return next((name for name in (head + text, f"{head} {text}", text + head, f"{text} {head}")
                 if _names_a_run(name, vocabulary)), "")


def _yes_or_no_named(cells: dict[int, str], head: str,
                     vocabulary: Vocabulary) -> dict[int, str]:
    """A column of ``Y`` and ``N`` (both there, nothing else) as ✓ and ✗, or as its header
    with each where that names runs; left as it is where a cell names runs itself."""
    filled = {index: text for index, text in cells.items() if text}
    if not (any(map(YES.fullmatch, filled.values())) and any(map(NO.fullmatch, filled.values()))
            and all(YES.fullmatch(text) or NO.fullmatch(text) for text in filled.values())):
        return {}
    if any(_names_a_run(text, vocabulary) for text in filled.values()):
        return {}
    composed = {index: f"{head} {text}" for index, text in filled.items()}
    if all(_names_a_run(name, vocabulary) for name in composed.values()):
        return composed
    return {index: "\u2713" if YES.fullmatch(text) else "\u2717" for index, text in filled.items()}


def _names_a_run(phrase: str, vocabulary: Vocabulary) -> bool:
    named = vocabulary.named(phrase)
    return "claims" in named or "variant" in named
