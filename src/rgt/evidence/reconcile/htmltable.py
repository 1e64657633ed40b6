"""HTML tables inside Markdown (``<table>`` … ``</table>``) as tables.

Rows are ``<tr>`` elements; header cells (``<th>``) may also stand outside any row, as some
READMEs write them, and any cell outside a row is a header cell (a ``<td>`` among them). The
leading rows of header cells are the header; a ``colspan`` repeats a header cell over every
column it spans (like LaTeX's ``\\multicolumn``) and leaves a body row's spanned columns
empty; a ``rowspan`` repeats a cell in the rows below it that it spans (which leave its
column out: ``<td rowspan="2">ResNet18 + PPM</td>`` names both of its rows, a header's spans
its header rows); a ``<thead>``'s cells are header cells, and its rows are the header even
where the body's cells are ``<th>`` too. A cell's text is
what it shows: ``<br>`` is a space, so is the edge of a ``<sub>`` or ``<sup>``, a link is its
text, entities are their characters (``&plusmn;`` is ±, ``&#x2713`` ✓), a footnote's mark
in a ``<sup>`` (``<sup>[1]</sup>``) is not read, and neither are comments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from rgt.evidence.reconcile.blocks import Cell, Table
from rgt.evidence.reconcile.numbers import parse_number
from rgt.evidence.reconcile.text import marks

# a line break, or a sub- or superscript, sets its text apart (``CN-CLIP<sub>ViT-B/16</sub>``
# reads ``CN-CLIP ViT-B/16``, as the evidence's alias written with its tags does)
SEPARATE = ("br", "sub", "sup")
NOTE_MARK = re.compile(r"\s*\[\d{1,2}\]\s*")  # not ``R<sup>2</sup>``, a name


@dataclass
class _Cell:
    header: bool
    span: int
    line: int
    parts: list[str] = field(default_factory=list)
    rows: int = 1  # the rows it spans
    head: bool = False  # inside a <thead>

    @property
    def text(self) -> str:
        return marks(" ".join("".join(self.parts).split()))


class _Reader(HTMLParser):
    """Collects the rows of one table; ``first`` is the document line it starts on."""

    def __init__(self, first: int):
        super().__init__(convert_charrefs=True)
        self.first = first
        self.rows: list[list[_Cell]] = []
        self.row: list[_Cell] | None = None
        self.cell: _Cell | None = None
        self.in_row = False  # inside a <tr>
        self.in_head = False  # inside a <thead>: its cells are header cells, <td> or not
        self.in_sup = False  # inside a <sup>

    def _line(self) -> int:
        return self.first + self.getpos()[0] - 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "thead":
            self.in_head = True
        elif tag == "tr":
            self._end_row()
            self.row, self.in_row = [], True
        elif tag in ("td", "th"):
            self._end_cell()
            header = tag == "th" or not self.in_row or self.in_head
            self.cell = _Cell(header, _span(attrs, "colspan"), self._line(),
                              rows=_span(attrs, "rowspan"), head=self.in_head)
        elif tag in SEPARATE and self.cell is not None:
            self.cell.parts.append(" ")
        self.in_sup = self.in_sup or tag == "sup"

    def handle_endtag(self, tag: str) -> None:
        self.in_sup = self.in_sup and tag != "sup"
        if tag in ("td", "th"):
            self._end_cell()
        elif tag in SEPARATE and self.cell is not None:
            self.cell.parts.append(" ")
        elif tag in ("tr", "table", "thead", "tbody"):
            self._end_row()
            self.in_head = self.in_head and tag != "thead"

    def handle_data(self, data: str) -> None:
        if self.in_sup and NOTE_MARK.fullmatch(data):
            return  # a footnote's mark (``Mixed Dataset<sup>[1]</sup>``): no citation, no name
        if self.cell is not None:
            if data.strip() and not "".join(self.cell.parts).strip():
                self.cell.line = self._line()  # the line its text starts on
            self.cell.parts.append(data)

    def _end_cell(self) -> None:
        if self.cell is not None:
            if self.row is None:
                self.row = []
            self.row.append(self.cell)
            self.cell = None

    def _end_row(self) -> None:
        self._end_cell()
        if self.row:
            self.rows.append(self.row)
        self.row, self.in_row = None, False


def _span(attrs: list[tuple[str, str | None]], name: str) -> int:
    span = dict(attrs).get(name) or "1"
    return int(span) if span.isdigit() and int(span) > 0 else 1


def _spanned_down(rows: list[list[_Cell]]) -> list[list[_Cell]]:
    """``rows`` with each ``rowspan`` cell repeated, in its column, in the rows below it that
    it spans."""
    above: dict[int, tuple[_Cell, int]] = {}  # column -> the cell spanning it, rows left
    result = []
    for row in rows:
        cells, queue, column = [], list(row), 0
        while queue or any(spanned >= column for spanned in above):
            if column in above:
                cell, left = above.pop(column)
                cells.append(cell)
                if left > 1:
                    above[column] = (cell, left - 1)
                column += cell.span
                continue
            if not queue:
                column += 1
                continue
            cell = queue.pop(0)
            cells.append(cell)
            if cell.rows > 1:
                above[column] = (cell, cell.rows - 1)
            column += cell.span
        result.append(cells)
    return result


def _expanded(row: list[_Cell], repeat: bool) -> list[Cell]:
    cells = []
    for cell in row:
        cells += [Cell(cell.text, cell.line)]
        cells += [Cell(cell.text if repeat else "", cell.line)] * (cell.span - 1)
    return cells


def _names_over_numbers(rows: list[list[_Cell]]) -> int:
    """In a table without header cells, the leading rows that hold only names, over a row of
    numbers (``<td>nDCG@10</td><td>Avg</td>…`` over ``<td>Contriever</td><td>37.7</td>…``):
    its header, as a reader reads it."""
    numeric = [any(parse_number(cell.text) is not None for cell in row) for row in rows]
    return numeric.index(True) if True in numeric else 0


def _header_rows(rows: list[list[_Cell]]) -> int:
    """How many leading rows are the header: a ``<thead>``'s rows where it has some (the body
    may write its cells as ``<th>``, one per line), else the rows of header cells, else the
    rows of names over the first row of numbers."""
    if any(cell.head for row in rows for cell in row):
        return next((i for i, row in enumerate(rows) if not all(c.head for c in row)), len(rows))
    count = next((i for i, row in enumerate(rows) if not all(c.header for c in row)), len(rows))
    return _names_over_numbers(rows) if count in (0, len(rows)) else count


def html_table(lines: list[str], first: int, caption: str = "") -> Table:
    """The table of the HTML source ``lines``, whose first line is document line ``first``."""
    reader = _Reader(first)
    reader.feed("\n".join(lines))
    reader.close()
    reader._end_row()
    rows = _spanned_down(reader.rows)
    count = _header_rows(rows)
    headers = [_expanded(row, repeat=True) for row in rows[:count]]
    width = max([len(row) for row in headers] + [0])
    header = [_stacked([row[j].text for row in headers if j < len(row)]) for j in range(width)]
    return Table(header, [_expanded(row, repeat=False) for row in rows[count:]], caption)


def _stacked(texts: list[str]) -> str:
    """A column's header rows as one header, each text once; a group's name that a text
    below repeats (``Refcoco`` over ``Refcoco+ R@1``) adds nothing to it."""
    kept = list(dict.fromkeys(text for text in texts if text.strip()))
    return " ".join(text for at, text in enumerate(kept) if not any(
        text.lower() in below.lower() for below in kept[at + 1:])).strip()
