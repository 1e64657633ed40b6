"""Tables a program printed, in a code block: a header of names over rows of numbers, the
columns lined up by spaces (scikit-learn's and seqeval's ``classification_report``, a results
summary), COCO's evaluation summary, a line per metric, and a header of names apart by
arrows over rows of numbers apart by them (``Valid acc -> Test acc`` over ``Args []: 73.68 ±
0.04 -> 72.22 ± 0.02``: a run's best validation score and its test score). Each number belongs
to the header name it stands under (its span nearest that name's), so a row with a blank
cell (``accuracy`` under ``f1-score`` only) still reads right; a row's leading words name it
(``avg / total``); a row a number names (a class, ``0``) is not read, as no claim's. The
command above a table in its block (``$ python3 test.py --img-size 608``) captions it: it
says which run printed it.
Anything else in the block stays code: a line that is neither a row nor blank ends the table,
and a number that lines up under no name, or two under one, means the block is not such a
table.
"""

from __future__ import annotations

import re

from rgt.evidence.reconcile.blocks import Cell, Table

FIELD = re.compile(r"\S+(?: \S+)*")  # fields are apart by two spaces or more
NUMERIC = re.compile(r"[-+\u2212]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:e[-+]?\d+)?%?", re.IGNORECASE)
NAME = re.compile(r"[^\W\d_]")
SLACK = 3  # how far (characters) a number may stand from the name it is under
COMMAND = re.compile(r"\s*(?:\$|>>>|%|!)?\s*python\d?\s|\s*\$\s")
ARROW = re.compile(r"\s+->\s+")
COCO_LINE = re.compile(r"\s*(Average\s+(?:Precision|Recall)\s+\((?:AP|AR)\)\s*@\[[^\]]*\])"
                       r"\s*=\s*([-+]?\d*\.?\d+)\s*(?:<-+)?\s*$")


def _fields(line: str) -> list[tuple[int, int, str]]:
    return [(match.start(), match.end(), match.group(0))
            for match in FIELD.finditer(line.expandtabs())]


def _header(line: str) -> list[tuple[int, int, str]] | None:
    fields = _fields(line)
    names = len(fields) >= 2 and all(
        NAME.search(text) and not NUMERIC.fullmatch(text) for _, _, text in fields)
    return fields if names else None


def _gap(field: tuple[int, int, str], column: tuple[int, int, str]) -> int:
    return max(0, column[0] - field[1], field[0] - column[1])


def _row(line: str, header: list[tuple[int, int, str]]) -> list[str] | None:
    """The cells of ``line`` under ``header`` (its name first), None when it is no row."""
    fields = _fields(line)
    # the name: a word, or a class's number left of every column (``           0       0.50``)
    named = bool(fields) and (not NUMERIC.fullmatch(fields[0][2]) or fields[0][1] < header[0][0])
    words, numbers = fields[:int(named)], fields[int(named):]
    if not numbers or not all(NUMERIC.fullmatch(text) for _, _, text in numbers):
        return None
    cells = [words[0][2] if words else ""] + [""] * len(header)
    for number in numbers:
        gap, column = min((_gap(number, column), index) for index, column in enumerate(header))
        if gap > SLACK or cells[column + 1]:
            return None
        cells[column + 1] = number[2]
    return cells


def aligned_tables(lines: list[str], first_line: int, caption: str = "") -> list[Table]:
    """The printed tables of a code block whose first line is document line ``first_line``;
    each is captioned by the command above it in the block (``$ python3 test.py --img-size
    608``), which says which run printed it."""
    tables, index, command = [], 0, ""
    while index < len(lines):
        command = lines[index].strip() if COMMAND.match(lines[index]) else command
        table = _coco_table(lines, index, first_line) or _arrow_table(lines, index, first_line) \
            or _aligned_table(lines, index, first_line)
        if table is not None:
            table.caption = " ".join(part for part in (caption, command) if part)
            tables.append(table)
            index = table.rows[-1][0].line - first_line
        index += 1
    return tables


def _aligned_table(lines: list[str], index: int, first_line: int) -> Table | None:
    header = _header(lines[index])
    rows = _rows_under(header, lines, index + 1, first_line) if header else []
    if not rows or (len(rows) == 1 and sum(bool(cell.text) for cell in rows[0][1:]) < 2):
        return None  # one row lines up by chance unless several of its numbers do
    named = [row for row in rows if not NUMERIC.fullmatch(row[0].text)]
    return Table(["", *(text for _, _, text in header)], named) if named else None


def _arrow_table(lines: list[str], index: int, first_line: int) -> Table | None:
    """Names apart by arrows (``Valid acc -> Test acc``) over lines of as many numbers apart
    by arrows, each led by the words before its first number (``Args []:``)."""
    names = ARROW.split(lines[index].strip())
    if len(names) < 2 or not all(NAME.search(name) and not NUMERIC.search(name) for name in names):
        return None
    rows = []
    for number in range(index + 1, len(lines)):
        cells = ARROW.split(lines[number].strip())
        first = NUMERIC.search(cells[0])
        if len(cells) != len(names) or first is None or not all(map(NUMERIC.search, cells)):
            break
        line = first_line + number
        rows.append([Cell(cells[0][:first.start()].strip(), line),
                     Cell(cells[0][first.start():], line), *(Cell(c, line) for c in cells[1:])])
    return Table(["", *names], rows) if rows else None


def _coco_table(lines: list[str], index: int, first_line: int) -> Table | None:
    """COCO's evaluation summary (``Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all |
    maxDets=100 ] = 0.367``): each line a row its description names."""
    rows = []
    while index < len(lines) and (match := COCO_LINE.match(lines[index])):
        rows.append([Cell(match.group(1), first_line + index),
                     Cell(match.group(2), first_line + index)])
        index += 1
    return Table(["", ""], rows) if rows else None


def _rows_under(header: list[tuple[int, int, str]], lines: list[str], start: int,
                first_line: int) -> list[list[Cell]]:
    rows = []
    for index in range(start, len(lines)):
        if not lines[index].strip():
            continue
        cells = _row(lines[index], header)
        if cells is None:
            break
        rows.append([Cell(text, first_line + index) for text in cells])
    return rows
