"""Grid tables, as reST writes them and as programs print them (``+-------+`` borders around
``| STS12 | STS13 |``): columns cut wherever a border has ``+``, a row ended by a border, the
rows above a ``+====+`` border (or the rows of names only at the top) the header. A border
across some columns only ends their rows; the cell the others hold spans the rows it borders,
above its text as below it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rgt.evidence.reconcile.blocks import Cell
from rgt.evidence.reconcile.tables import is_numeric

GRID_BORDER = re.compile(r"^\s*\+(?:[-=]+\+)+\s*$")
Render = Callable[[str], str]  # a cell's markup as plain text


def grid_table(lines: list[str], index: int,
               render: Render) -> tuple[list[str], list[list[Cell]], int]:
    """The header texts and body rows of the grid table whose first border is
    ``lines[index]`` (document line ``index + 1``), and the index of the line after it."""
    cuts = _cuts(lines, index)
    header, rows, end = _rows(lines, index, cuts, render)
    while rows and not any(is_numeric(cell.text) for cell in rows[0]):
        header.append(rows.pop(0))  # a row of names under the header (``A2C`` / ``gSDE``)
    return header_texts(header, len(cuts) - 1), rows, end


def header_texts(rows: list[list[Cell]], width: int) -> list[str]:
    """Each column's header, its header rows' texts joined (``A2C`` over ``Gaussian``; a cell
    spanning header rows once)."""
    heads = []
    for j in range(width):
        texts = [row[j].text for row in rows if j < len(row) and row[j].text]
        heads.append(" ".join(text for i, text in enumerate(texts)
                              if i == 0 or text != texts[i - 1]).strip())
    return heads


def _cuts(lines: list[str], index: int) -> list[int]:
    """Where the columns are cut: every ``+`` of the borders (a border under ``LibriSpeech
    Dataset`` cuts the columns its first border spans)."""
    cuts = set()
    while index < len(lines) and _in_grid(lines[index]):
        if lines[index].lstrip().startswith("+"):
            cuts |= {i for i, char in enumerate(lines[index]) if char == "+"}
        index += 1
    return sorted(cuts)


def _rows(lines: list[str], index: int, cuts: list[int],
          render: Render) -> tuple[list[list[Cell]], list[list[Cell]], int]:
    """The header rows and the body rows from ``lines[index]`` on, and where they end."""
    groups: dict[bool, list[list[Cell]]] = {False: [], True: []}  # True: the body
    joins: dict[bool, list[set[int]]] = {False: [], True: []}  # columns open above each row
    pending, body, carry = [], False, set()
    index += 1
    while index < len(lines) and _in_grid(lines[index]):
        line = lines[index]
        spanning = _spanning(line, cuts)
        if GRID_BORDER.match(line) or spanning:
            if pending:
                groups[body].append(_joined(pending, render))
                joins[body].append(carry if groups[body][:-1] else set())
            pending, body, carry = [], body or "=" in line, spanning
        else:
            pending.append((index + 1, _cells(line, cuts)))
        index += 1
    for part in (False, True):
        _spanned(groups[part], joins[part])
    header, rows = (groups[False], groups[True]) if body else ([], groups[False])
    return header, rows, index


def _spanning(line: str, cuts: list[int]) -> set[int]:
    """The columns a partial border (``|     +------+``) leaves open: their cell spans on into
    the next row; empty for a full border or a line of cells."""
    segments = _cells(line, cuts)
    bordered = [bool(re.fullmatch(r"[-=]+", cell)) for cell in segments]
    if not any(bordered) or all(bordered):
        return set()
    return {j for j, closed in enumerate(bordered) if not closed}


def _spanned(rows: list[list[Cell]], joins: list[set[int]]) -> None:
    """Each cell a partial border left open over several rows (``Micro-F1``, written on the
    middle of three) given to every row it spans, above its text as below it."""
    width = max((len(row) for row in rows), default=0)
    for j in range(width):
        start = 0
        for i in range(1, len(rows) + 1):
            if i < len(rows) and j in joins[i]:
                continue
            texts = [row[j].text for row in rows[start:i] if j < len(row) and row[j].text]
            for row in rows[start:i] if len(set(texts)) == 1 and i - start > 1 else []:
                if j < len(row) and not row[j].text:
                    row[j] = Cell(texts[0], row[j].line)
            start = i


def _in_grid(line: str) -> bool:
    return line.lstrip().startswith(("+", "|"))


def _cells(line: str, cuts: list[int]) -> list[str]:
    """Each column's text on ``line``; a cell that spans columns (no ``|`` or ``+`` where a
    column is cut) gives each its text, but a number only the first."""
    groups: list[list[int]] = []
    for j, cut in enumerate(cuts[:-1]):
        if groups and cut < len(line) and line[cut] not in "|+":
            groups[-1].append(j)
        else:
            groups.append([j])
    texts = [""] * (len(cuts) - 1)
    for group in groups:
        text = " ".join(line[cuts[group[0]] + 1:cuts[group[-1] + 1]].split())
        for j in group[:1] if is_numeric(text) else group:
            texts[j] = text
    return texts


def _joined(lines: list[tuple[int, list[str]]], render: Render) -> list[Cell]:
    """One grid row from its text lines: each column's lines joined, on the row's first line."""
    width = max(len(cells) for _, cells in lines)
    first = lines[0][0]
    return [Cell(render(" ".join(cells[j].strip(" |") for _, cells in lines
                                 if j < len(cells))).strip(), first)
            for j in range(width)]
