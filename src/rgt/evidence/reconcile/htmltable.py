"""HTML tables inside Markdown (``<table>`` … ``</table>``) as tables.

Rows are ``<tr>`` elements; header cells (``<th>``) may also stand outside any row, as some
READMEs write them, and any cell outside a row is a header cell (a ``<td>`` among them). The
leading rows of header cells are the header; a ``colspan`` repeats a header cell over every
column it spans (like LaTeX's ``\\multicolumn``) and leaves a body row's spanned columns
empty. A cell's text is what it shows: ``<br>`` is a space, a link is its
text, entities are their characters (``&plusmn;`` is ±, ``&#x2713`` ✓); comments are not read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

from rgt.evidence.reconcile.blocks import Cell, Table
from rgt.evidence.reconcile.text import marks


@dataclass
class _Cell:
    header: bool
    span: int
    line: int
    parts: list[str] = field(default_factory=list)

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

    def _line(self) -> int:
        return self.first + self.getpos()[0] - 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self._end_row()
            self.row, self.in_row = [], True
        elif tag in ("td", "th"):
            self._end_cell()
            span = dict(attrs).get("colspan") or "1"
            header = tag == "th" or not self.in_row
            self.cell = _Cell(header, int(span) if span.isdigit() else 1, self._line())
        elif tag == "br" and self.cell is not None:
            self.cell.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self._end_cell()
        elif tag in ("tr", "table", "thead", "tbody"):
            self._end_row()

    def handle_data(self, data: str) -> None:
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


def _expanded(row: list[_Cell], repeat: bool) -> list[Cell]:
    cells = []
    for cell in row:
        cells += [Cell(cell.text, cell.line)]
        cells += [Cell(cell.text if repeat else "", cell.line)] * (cell.span - 1)
    return cells


def html_table(lines: list[str], first: int, caption: str = "") -> Table:
    """The table of the HTML source ``lines``, whose first line is document line ``first``."""
    reader = _Reader(first)
    reader.feed("\n".join(lines))
    reader.close()
    reader._end_row()
    rows = reader.rows
    count = next((i for i, row in enumerate(rows) if not all(c.header for c in row)), len(rows))
    headers = [_expanded(row, repeat=True) for row in rows[:count]]
    width = max([len(row) for row in headers] + [0])
    header = [" ".join(row[j].text for row in headers if j < len(row)).strip()
              for j in range(width)]
    return Table(header, [_expanded(row, repeat=False) for row in rows[count:]], caption)
