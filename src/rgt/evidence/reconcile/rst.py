"""reStructuredText as blocks: what a Markdown reader does not know of it.

Section titles underlined (and perhaps overlined) with punctuation, their level the order in
which each style first appears; grid tables (``+----+`` borders, ``+====+`` under the header
rows; a border across some columns only ends their rows, the cell the others hold spanning
the rows it borders), simple tables (``====  ====`` borders) and list tables (``..
list-table::``, a row per ``* -`` item); hyperlinks `` `text <url>`_ ``
read as their text, ``literals`` as their content, escapes as what they escape; comments
(``.. anything``) not read, a directive's body (``.. note::``) read as prose. Everything else
reads as Markdown does.
"""

from __future__ import annotations

import re

from rgt.evidence.reconcile.blocks import Cell, Paragraph, Table
from rgt.evidence.reconcile.markdown import MarkdownReader, inline
from rgt.evidence.reconcile.tables import is_numeric

UNDERLINE = re.compile(r"^([=\-~^\"'`#*+:.])\1{2,}\s*$")
GRID_BORDER = re.compile(r"^\s*\+(?:[-=]+\+)+\s*$")
SIMPLE_BORDER = re.compile(r"^\s*=+(?:\s+=+)+\s*$")
COMMENT = re.compile(r"^\.\.(?:\s|$)(?!.*::)")
DIRECTIVE = re.compile(r"^\.\.\s+[\w-]+::")
LIST_TABLE = re.compile(r"^\.\.\s+list-table::\s*(.*)$")
OPTION = re.compile(r"^\s+:([\w-]+):\s*(.*)$")
ROW_ITEM = re.compile(r"^\s*\*\s+-\s+(.*)$")  # ``* - v1-12``: a row and its first cell
CELL_ITEM = re.compile(r"^\s*-\s+(.*)$")  # ``  - 96.6%``: the row's next cell
RST_INLINE = [
    (re.compile(r"\\ "), ""),  # an escaped space joins (``NDCG\ :sub:`1```: NDCG1)
    (re.compile(r"\\(\S)"), r"\1"),  # an escaped character is itself (``xgboost\_hist``)
    (re.compile(r"`([^`<]+?)\s*<[^>]*>`__?"), r"\1"),  # `text <url>`_
    (re.compile(r"``([^`]+)``"), r"`\1`"),  # ``literal``: Markdown's code span
    (re.compile(r":\w+:`([^`]*)`"), r"\1"),  # :ref:`text`
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
        """A grid table: columns where its first border has ``+``; rows above the ``+====+``
        border, and rows of names only right under it, are header rows."""
        start = self.index
        cuts = self._grid_cuts()
        header, rows = self._grid_rows(cuts)
        while rows and not any(is_numeric(cell.text) for cell in rows[0]):
            header.append(rows.pop(0))  # a row of names under the header (``A2C`` / ``gSDE``)
        self.table_line = start + 1
        self.blocks.table(Table(_header(header, len(cuts) - 1), rows, self._caption()))

    def _grid_rows(self, cuts: list[int]) -> tuple[list[list[Cell]], list[list[Cell]]]:
        """The header rows and body rows of the grid table at ``self.index``; a row ends at a
        border."""
        groups: dict[bool, list[list[Cell]]] = {False: [], True: []}  # True: the body
        pending, body, carry = [], False, set()
        self.index += 1
        while self.index < len(self.lines) and _in_grid(self.lines[self.index]):
            line = self.lines[self.index]
            spanning = _spanning(line, cuts)
            if GRID_BORDER.match(line) or spanning:
                if pending:
                    groups[body].append(_carried(_joined(pending), groups[body], carry))
                pending, body, carry = [], body or "=" in line, spanning
            else:
                pending.append((self.index + 1, _grid_cells(line, cuts)))
            self.index += 1
        return (groups[False], groups[True]) if body else ([], groups[False])

    def _list_table(self) -> None:
        """A ``list-table`` directive: its title the caption (else the paragraph above), its
        ``:header-rows:`` the header, then a row per ``* -`` item, a cell per ``-`` item."""
        start, title = self.index, rst_inline(LIST_TABLE.match(self.lines[self.index]).group(1))
        self.index += 1
        options = {}
        while self.index < len(self.lines) and OPTION.match(self.lines[self.index]):
            name, value = OPTION.match(self.lines[self.index]).groups()
            options[name] = value.strip()
            self.index += 1
        rows = self._list_rows()
        count = int(options.get("header-rows", "0") or 0)
        width = max([len(row) for row in rows] + [0])
        self.table_line = start + 1
        caption = title or self._caption()
        self.blocks.table(Table(_header(rows[:count], width), rows[count:], caption))

    def _list_rows(self) -> list[list[Cell]]:
        """The rows of a list table: its indented items, until a line back at the margin."""
        rows: list[list[tuple[int, str]]] = []
        while self.index < len(self.lines) and (
                not self.lines[self.index].strip() or self.lines[self.index][0] in " \t"):
            line, number = self.lines[self.index], self.index + 1
            row, cell = ROW_ITEM.match(line), CELL_ITEM.match(line)
            if row:
                rows.append([(number, row.group(1))])
            elif cell and rows:
                rows[-1].append((number, cell.group(1)))
            elif line.strip() and rows:
                rows[-1][-1] = (rows[-1][-1][0], f"{rows[-1][-1][1]} {line.strip()}")
            self.index += 1
        return [[Cell(rst_inline(text, names=True).strip(), number) for number, text in row]
                for row in rows]

    def _grid_cuts(self) -> list[int]:
        """Where the grid table's columns are cut: every ``+`` of its borders (a border under
        ``LibriSpeech Dataset`` cuts the columns its first border spans)."""
        cuts, index = set(), self.index
        while index < len(self.lines) and _in_grid(self.lines[index]):
            if self.lines[index].lstrip().startswith("+"):
                cuts |= {i for i, char in enumerate(self.lines[index]) if char == "+"}
            index += 1
        return sorted(cuts)

    def _simple_table_follows(self) -> bool:
        return any(SIMPLE_BORDER.match(line) for line in self.lines[self.index + 1:
                                                                      self.index + 4])

    def _simple_table(self) -> None:
        """A simple table: columns under the ``====`` runs of its first border; the rows
        above its second border are header rows when a third closes the body."""
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
                current.append([Cell(rst_inline(_span(line, span, i == len(spans) - 1),
                                                names=True).strip(), self.index)
                                for i, span in enumerate(spans)])
        header_rows, rows = (groups[0], groups[1]) if len(groups) == 2 else ([], groups[0])
        self.table_line = start + 1
        header = [" ".join(row[j].text for row in header_rows if row[j].text).strip()
                  for j in range(len(spans))]
        self.blocks.table(Table(header, rows, self._caption()))

    def _rows_then_border(self, index: int) -> bool:
        """Whether rows and another border follow ``index`` before a blank line."""
        for line in self.lines[index:]:
            if not line.strip():
                return False
            if SIMPLE_BORDER.match(line):
                return True
        return False


def _spanning(line: str, cuts: list[int]) -> set[int]:
    """The columns a partial border (``|     +------+``) leaves open: their cell spans on into
    the next row; empty for a full border or a line of cells."""
    segments = _grid_cells(line, cuts)
    bordered = [bool(re.fullmatch(r"[-=]+", cell)) for cell in segments]
    if not any(bordered) or all(bordered):
        return set()
    return {j for j, closed in enumerate(bordered) if not closed}


def _carried(row: list[Cell], above: list[list[Cell]], carry: set[int]) -> list[Cell]:
    """``row`` with the cells of the columns a partial border left open taken from above."""
    if not carry or not above:
        return row
    return [above[-1][j] if j in carry and j < len(above[-1]) and not cell.text else cell
            for j, cell in enumerate(row)]


def _in_grid(line: str) -> bool:
    return line.lstrip().startswith(("+", "|"))


def _grid_cells(line: str, cuts: list[int]) -> list[str]:
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


def _joined(lines: list[tuple[int, list[str]]]) -> list[Cell]:
    """One grid row from its text lines: each column's lines joined, on the row's first line."""
    width = max(len(cells) for _, cells in lines)
    first = lines[0][0]
    return [Cell(rst_inline(" ".join(cells[j].strip(" |") for _, cells in lines
                                     if j < len(cells)), names=True).strip(), first)
            for j in range(width)]


def _header(rows: list[list[Cell]], width: int) -> list[str]:
    """Each column's header, its header rows' texts joined (``A2C`` over ``Gaussian``; a cell
    spanning header rows once)."""
    heads = []
    for j in range(width):
        texts = [row[j].text for row in rows if j < len(row) and row[j].text]
        heads.append(" ".join(text for i, text in enumerate(texts)
                              if i == 0 or text != texts[i - 1]).strip())
    return heads


def _span(line: str, span: tuple[int, int], last: bool) -> str:
    start, end = span
    return line[start:] if last else line[start:end + 1]


def rst_blocks(text: str) -> list[Paragraph | Table]:
    """The blocks of a reST document."""
    return RstReader(text).read()
