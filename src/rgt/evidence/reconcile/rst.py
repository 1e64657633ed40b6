"""reStructuredText as blocks: what a Markdown reader does not know of it.

Section titles underlined (and perhaps overlined) with punctuation, their level the order in
which each style first appears; grid tables (``+----+`` borders, ``+====+`` under the header
rows; a border across some columns only ends their rows, the cell the others hold spanning
the rows it borders), simple tables (``====  ====`` borders), list tables (``..
list-table::``, a row per ``* -`` item) and CSV tables (``.. csv-table::``, its ``:header:``
option the header, a row per indented line of comma-separated, quoted values); hyperlinks
`` `text <url>`_ `` read as their text, ``literals`` as their content, escapes as what they
escape; comments (``.. anything``) not read, a directive's body (``.. note::``) read as prose.
Everything else reads as Markdown does.
"""

from __future__ import annotations

import csv
import re

from rgt.evidence.reconcile.blocks import Cell, Paragraph, Table
from rgt.evidence.reconcile.grid import GRID_BORDER, grid_table, header_texts
from rgt.evidence.reconcile.markdown import MarkdownReader
from rgt.evidence.reconcile.mdinline import inline

UNDERLINE = re.compile(r"^([=\-~^\"'`#*+:.])\1{2,}\s*$")
SIMPLE_BORDER = re.compile(r"^\s*=+(?:\s+=+)+\s*$")
COMMENT = re.compile(r"^\.\.(?:\s|$)(?!.*::)")
DIRECTIVE = re.compile(r"^\.\.\s+[\w-]+::")
LIST_TABLE = re.compile(r"^\.\.\s+list-table::\s*(.*)$")
CSV_TABLE = re.compile(r"^\.\.\s+csv-table::\s*(.*)$")
OPTION = re.compile(r"^\s+:([\w-]+):\s*(.*)$")
# ``* - v1-12``: a row and its first cell (``* -`` alone: an empty one)
ROW_ITEM = re.compile(r"^\s*\*\s+-(?:\s+(.*))?$")
CELL_ITEM = re.compile(r"^\s*-(?:\s+(.*))?$")  # ``  - 96.6%``: the row's next cell
RST_INLINE = [
    (re.compile(r"\\ "), ""),  # an escaped space joins (``NDCG\ :sub:`1```: NDCG1)
    (re.compile(r"\\(\S)"), r"\1"),  # an escaped character is itself (``xgboost\_hist``)
    (re.compile(r"`([^`<]+?)\s*<[^>]*>`__?"), r"\1"),  # `text <url>`_
    (re.compile(r"``([^`]+)``"), r"`\1`"),  # ``literal``: Markdown's code span
    (re.compile(r":[\w-]+:`([^`]*)`"), r"\1"),  # :ref:`text`, :raw-html:`<br>`
]


def as_markdown(text: str) -> str:
    """reST's inline markup as Markdown's (hyperlinks as their text, literals as code)."""
    for pattern, replacement in RST_INLINE:
        text = pattern.sub(replacement, text)
    return text


def rst_inline(text: str, names: bool = False) -> str:
    """A line of reST as plain text."""
    return inline(as_markdown(text), names)


class RstReader(MarkdownReader):
    """Walks the lines of one reST document."""

    def __init__(self, text: str):
        super().__init__(text)
        self.styles: list[str] = []  # the title styles, in the order they first appear

    def _step(self, line: str) -> None:
        if GRID_BORDER.match(line):
            self._grid_table()
        elif SIMPLE_BORDER.match(line) and self._simple_table_follows():
            self._simple_table()
        elif self._title_at(self.index):
            self._title()
        elif LIST_TABLE.match(line):
            self._list_table()
        elif CSV_TABLE.match(line):
            self._csv_table()
        elif COMMENT.match(line):
            self._skip_comment()
        elif DIRECTIVE.match(line):
            self.blocks.close()
            self.index += 1
        else:
            super()._step(line)

    def _title_at(self, index: int) -> bool:
        """A line of text underlined with punctuation at least as long (an overline may be
        above it)."""
        if index + 1 >= len(self.lines):
            return False
        text, under = self.lines[index], self.lines[index + 1]
        return bool(text.strip()) and not UNDERLINE.match(text) and \
            UNDERLINE.match(under) is not None and len(under.rstrip()) >= len(text.rstrip())

    def _title(self) -> None:
        style = self.lines[self.index + 1].strip()[0]
        overlined = self.index > 0 and UNDERLINE.match(self.lines[self.index - 1]) is not None
        key = style + ("o" if overlined else "")
        if key not in self.styles:
            self.styles.append(key)
        self.blocks.heading(self.styles.index(key) + 1, rst_inline(self.lines[self.index]))
        self.index += 2

    def _skip_comment(self) -> None:
        """A comment and the lines indented under it."""
        self.blocks.close()
        self.index += 1
        while self.index < len(self.lines) and self.lines[self.index].startswith((" ", "\t")):
            self.index += 1

    def _text(self, line: str) -> None:
        if UNDERLINE.match(line):  # an overline, or a transition: no text
            self.blocks.close()
            return
        super()._text(as_markdown(line))

    def _grid_table(self) -> None:
        """A grid table (``rgt.evidence.reconcile.grid``), captioned as a Markdown table is."""
        self.table_line = self.index + 1
        header, rows, self.index = grid_table(
            self.lines, self.index, lambda text: rst_inline(text, names=True))
        self.blocks.table(Table(header, rows, self._caption()))

    def _options(self) -> dict[str, tuple[int, str]]:
        """A directive's options (``:header-rows: 1``) from the line after it: each one's line
        number and value."""
        self.index += 1
        options = {}
        while self.index < len(self.lines) and OPTION.match(self.lines[self.index]):
            name, value = OPTION.match(self.lines[self.index]).groups()
            options[name] = (self.index + 1, value.strip())
            self.index += 1
        return options

    def _csv_table(self) -> None:
        """A ``csv-table`` directive: its title the caption (else the paragraph above), its
        ``:header:`` the header (else ``:header-rows:`` of its rows), then a row per line."""
        start, title = self.index, rst_inline(CSV_TABLE.match(self.lines[self.index]).group(1))
        options = self._options()
        rows = []
        while self.index < len(self.lines) and (
                not self.lines[self.index].strip() or self.lines[self.index][0] in " \t"):
            if self.lines[self.index].strip():
                rows.append(_csv_cells(self.lines[self.index], self.index + 1))
            self.index += 1
        if "header" in options:
            rows.insert(0, _csv_cells(options["header"][1], options["header"][0]))
            count = 1
        else:
            count = int(options.get("header-rows", (0, "0"))[1] or 0)
        width = max([len(row) for row in rows] + [0])
        self.table_line = start + 1
        self.blocks.table(Table(header_texts(rows[:count], width), rows[count:],
                                title or self._caption()))

    def _list_table(self) -> None:
        """A ``list-table`` directive: its title the caption (else the paragraph above), its
        ``:header-rows:`` the header, then a row per ``* -`` item, a cell per ``-`` item."""
        start, title = self.index, rst_inline(LIST_TABLE.match(self.lines[self.index]).group(1))
        options = {name: value for name, (_, value) in self._options().items()}
        rows = self._list_rows()
        count = int(options.get("header-rows", "0") or 0)
        width = max([len(row) for row in rows] + [0])
        self.table_line = start + 1
        caption = title or self._caption()
        self.blocks.table(Table(header_texts(rows[:count], width), rows[count:], caption))

    def _list_rows(self) -> list[list[Cell]]:
        """The rows of a list table: its indented items, until a line back at the margin."""
        rows: list[list[tuple[int, str]]] = []
        while self.index < len(self.lines) and (
                not self.lines[self.index].strip() or self.lines[self.index][0] in " \t"):
            line, number = self.lines[self.index], self.index + 1
            row, cell = ROW_ITEM.match(line), CELL_ITEM.match(line)
            if row:
                rows.append([(number, row.group(1) or "")])
            elif cell and rows:
                rows[-1].append((number, cell.group(1) or ""))
            elif line.strip() and rows:
                rows[-1][-1] = (rows[-1][-1][0], f"{rows[-1][-1][1]} {line.strip()}")
            self.index += 1
        return [[Cell(rst_inline(text, names=True).strip(), number) for number, text in row]
                for row in rows]

    def _simple_table_follows(self) -> bool:
        return any(SIMPLE_BORDER.match(line) for line in self.lines[self.index + 1:
                                                                      self.index + 4])

    def _simple_table(self) -> None:
        """A simple table: columns under the ``====`` runs of its first border; the rows
        above its second border are header rows when a third closes the body (blank lines
        between its rows); a line whose first column is blank continues the row above."""
        spans = [match.span() for match in re.finditer(r"=+", self.lines[self.index])]
        start, groups, current = self.index, [], []
        self.index += 1
        while self.index < len(self.lines):
            line = self.lines[self.index]
            self.index += 1
            if SIMPLE_BORDER.match(line):
                groups.append(current)
                current = []
                if len(groups) == 2 or not self._rows_then_border(self.index):
                    break
            elif line.strip():
                cells = [Cell(rst_inline(_span(line, span, i == len(spans) - 1),
                                         names=True).strip(), self.index)
                         for i, span in enumerate(spans)]
                if current and not cells[0].text and len(spans) > 1:
                    current[-1] = _continued(current[-1], cells)
                else:
                    current.append(cells)
        header_rows, rows = (groups[0], groups[1]) if len(groups) == 2 else ([], groups[0])
        self.table_line = start + 1
        header = [" ".join(row[j].text for row in header_rows if row[j].text).strip()
                  for j in range(len(spans))]
        self.blocks.table(Table(header, rows, self._caption()))

    def _rows_then_border(self, index: int) -> bool:
        """Whether rows and another border follow ``index``: a border with a blank line
        under it ends the table; blank lines between the rows below do not, but a title or
        a directive does."""
        if index >= len(self.lines) or not self.lines[index].strip():
            return False
        for at in range(index, len(self.lines)):
            line = self.lines[at]
            if SIMPLE_BORDER.match(line):
                return True
            if DIRECTIVE.match(line) or self._title_at(at):
                return False
        return False


def _csv_cells(line: str, number: int) -> list[Cell]:
    """One line of a CSV table's rows (``"BYOL", "Res18", "0.887"``) as its cells."""
    values = next(csv.reader([line.strip()], skipinitialspace=True), [])
    return [Cell(rst_inline(value, names=True).strip(), number) for value in values]


def _continued(row: list[Cell], more: list[Cell]) -> list[Cell]:
    """``row`` with a continuation line's cells joined to its own (``k: 400;`` then
    ``epochs: 4000;`` under it), each later line's start kept for its numbers' lines."""
    joined = []
    for cell, extra in zip(row, more, strict=True):
        if not extra.text:
            joined.append(cell)
            continue
        text = f"{cell.text} {extra.text}" if cell.text else extra.text
        later = (*cell.later, (len(text) - len(extra.text), extra.line)) if cell.text else ()
        joined.append(Cell(text, cell.line if cell.text else extra.line, later))
    return joined


def _span(line: str, span: tuple[int, int], last: bool) -> str:
    start, end = span
    return line[start:] if last else line[start:end + 1]


def rst_blocks(text: str) -> list[Paragraph | Table]:
    """The blocks of a reST document."""
    return RstReader(text).read()
