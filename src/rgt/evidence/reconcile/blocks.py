"""What a document is made of, whatever its format: paragraphs of prose and tables.

Each reader (``markdown``, ``latex``, ``csvdoc``) turns its format into these; everything after
is format-free. ``scope`` is the chain of headings above a block (``Results / CIFAR-100``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class Paragraph:
    """Prose: lines joined with spaces; ``starts`` maps offsets back to line numbers."""

    text: str = ""
    starts: list[tuple[int, int]] = field(default_factory=list)
    scope: str = ""
    note: str = ""  # a footnote's: the table row its mark points to (``with_notes``)
    intro: str = ""  # output's: the paragraph presenting it, which says which run printed it

    def add(self, line: int, text: str) -> None:
        """Append one line of prose."""
        if self.text:
            self.text += " "
        self.starts.append((len(self.text), line))
        self.text += text


@dataclass(frozen=True)
class Cell:
    """One table cell: its text (plain), the line it starts on and, for a cell joined from
    lines of its own (a spread written in the row below its value), where each later line
    starts in the text: ``(offset, line)``."""

    text: str
    line: int
    later: tuple[tuple[int, int], ...] = ()


@dataclass
class Table:
    """A table: header text per column (header rows joined), body rows, caption and scope."""

    header: list[str]
    rows: list[list[Cell]]
    caption: str = ""
    scope: str = ""
    brackets: tuple[str, str] = ("", "")  # what a document says a cell's numbers outside
    # and inside brackets are (``max performances``, ``Average scores``)
    in_turn: tuple[str, ...] = ()  # what its notes say a cell's numbers apart by slashes are
    # (``no augmentation / flip augmentation / multi scale … augmentation``)


class Blocks:
    """Collects a document's blocks while a reader walks its lines."""

    def __init__(self) -> None:
        self.items: list[Paragraph | Table] = []
        self.headings: list[tuple[int, str]] = []
        self.current: Paragraph | None = None

    @property
    def scope(self) -> str:
        """The headings above the current position, outermost first."""
        return " / ".join(text for _, text in self.headings)

    def heading(self, level: int, text: str) -> None:
        """A heading of ``level`` (1 = outermost) closes the paragraph and sets the scope."""
        self.close()
        self.headings = [(lvl, txt) for lvl, txt in self.headings if lvl < level]
        self.headings.append((level, text.strip()))

    def leave(self, level: int) -> None:
        """The end of what the headings of ``level`` and below title (``</details>``)."""
        self.close()
        self.headings = [(lvl, txt) for lvl, txt in self.headings if lvl < level]

    def prose(self, line: int, text: str) -> None:
        """One line of prose, continuing the current paragraph."""
        if self.current is None:
            self.current = Paragraph(scope=self.scope)
        self.current.add(line, text.strip())

    def close(self) -> None:
        """End the current paragraph (a blank line, a list item, a heading, a table)."""
        if self.current is not None and self.current.text.strip():
            self.items.append(self.current)
        self.current = None

    def reopen(self) -> None:
        """Continue the last paragraph (a paragraph that points back to the one introducing
        the code between them: ``… and run:`` ```` ``` ```` ``This will run …``)."""
        if self.current is None and self.items and isinstance(self.items[-1], Paragraph):
            self.current = self.items.pop()

    def table(self, table: Table) -> None:
        """Add a table under the current scope (a folded one as its halves)."""
        self.close()
        for half in unfolded(named_cells(table)):
            for part in unstacked(half):
                part.scope = self.scope
                self.items.append(part)

    def done(self) -> list[Paragraph | Table]:
        """Every block, in document order."""
        self.close()
        return with_notes(self.items)


# a footnote's mark, glued to a table cell's number (``**85.5**\\*``, ``28.20†``, LaTeX's
# ``$^*$``) and opening the note under the table (``\\* To the best of our knowledge, the
# model … 85.5%``); a leading emoji (``:astonished:``) is decoration
MARK = r"\^?[*\u2020\u2021\u00a7\u00b6]+"
MARKED_NUMBER = re.compile(rf"\d\s?({MARK})$")
NOTE_OPENING = re.compile(rf"^(?:\s*:[a-z_]+:)*\s*({MARK})\s*(?=[^\W\d_])")


# a numbered note of the document's own (``[1] During evaluation, we have only extracted …``),
# not a reference: no year, no ``et al``, no ``arXiv`` in it
NUMBERED_NOTE = re.compile(r"^\s*\[(\d+)\]\s+(?=[^\W\d_])")
REFERENCE_WORDS = re.compile(r"(?<![\d-])(?:19|20)\d\d(?![\d-])|\bet\s+al\b|\barxiv\b",
                             re.IGNORECASE)


def with_notes(items: list[Paragraph | Table]) -> list[Paragraph | Table]:
    """The blocks, each paragraph that opens with a footnote's mark under a table (the same
    headings above both) noting the one row whose number carries that mark; a numbered
    note's mark after a cell's number (``70.5 [1]``) blanked, no citation."""
    table = None
    for item in items:
        if isinstance(item, Table):
            table = item
        elif table is not None and item.scope == table.scope:
            item.note = noted_row(table, item.text)
    return _without_note_marks(_without_others_rows(items))


# a sentence saying a mark sets rows apart as another system's: "the result marked with *
# (the last line) is the official one", "results marked † are taken from the paper"
OTHERS_LEGEND = re.compile(
    rf"\b(?:marked|denoted|indicated)\s+(?:with\s+|by\s+)?\\?({MARK})[^.]*?\b(?:is|are)\s+"
    r"(?:the\s+)?(?:official|reported|published|original|taken|copied|quoted)\b", re.IGNORECASE)


def _without_others_rows(items: list[Paragraph | Table]) -> list[Paragraph | Table]:
    """The blocks, each table without the rows whose name carries a mark that its caption or
    the paragraph just above or below it (the same headings above both) calls another
    system's (``Tracktor\\*`` under "the result marked with * … is the official one")."""
    for at, table in enumerate(items):
        if isinstance(table, Table):
            near = [item.text for item in items[max(at - 1, 0):at + 2]
                    if isinstance(item, Paragraph) and item.scope == table.scope]
            marks = {legend.group(1).lstrip("^") for text in [table.caption, *near]
                     for legend in OTHERS_LEGEND.finditer(text)}
            table.rows = [row for row in table.rows if not _names_marked(row, marks)]
    return items


def _names_marked(row: list[Cell], marks: set[str]) -> bool:
    """Whether a name in ``row`` (a cell with a letter, not a number) ends with one of ``marks``."""
    return any(re.search(r"[^\W\d_]", cell.text) and cell.text.rstrip().replace("\\", "")
               .endswith(tuple(marks)) for cell in row) if marks else False


def _without_note_marks(items: list[Paragraph | Table]) -> list[Paragraph | Table]:
    """The blocks, the marks of the document's numbered notes blanked after table numbers."""
    notes = {opening.group(1) for item in items if isinstance(item, Paragraph)
             and (opening := NUMBERED_NOTE.match(item.text))
             and not REFERENCE_WORDS.search(item.text)}
    if not notes:
        return items
    mark = re.compile(rf"(?<=\d)(\s?\[(?:{'|'.join(sorted(notes))})\])")
    for table in (item for item in items if isinstance(item, Table)):
        table.rows = [[Cell(mark.sub(lambda found: " " * len(found.group(1)), cell.text),
                            cell.line) for cell in row] for row in table.rows]
    return items


def noted_row(table: Table, text: str) -> str:
    """What a note opening ``text`` is about: the name of the row whose number carries its
    mark, and that cell's column head; nothing when no row or more than one does."""
    opening = NOTE_OPENING.match(text)
    if opening is None:
        return ""
    mark = opening.group(1).lstrip("^")
    marked = [(row, j) for row in table.rows for j, cell in enumerate(row) if j and (
        match := MARKED_NUMBER.search(cell.text)) and match.group(1).lstrip("^") == mark]
    if len({id(row) for row, _ in marked}) != 1:
        return ""
    row, column = marked[0]
    head = table.header[column] if column < len(table.header) else ""
    return f"{row[0].text} {head}".strip()


# a setting's name with its value's letter: ``k-way`` (5 → ``5-way``), ``top-k`` (5 → ``top-5``)
LETTER_FIRST = re.compile(r"[A-Za-z]-([A-Za-z]\w*)")
LETTER_LAST = re.compile(r"([A-Za-z]\w*)-[A-Za-z]")


def setting(name: str, value: str) -> str:
    """A setting row's name and one column's value as a reader says them: ``k-way`` with
    ``5`` is ``5-way``, ``top-k`` with ``5`` is ``top-5``; ``lr`` with ``0.1`` is ``lr 0.1``."""
    first, last = LETTER_FIRST.fullmatch(name), LETTER_LAST.fullmatch(name)
    if value and first:
        return f"{value}-{first.group(1)}"
    if value and last:
        return f"{last.group(1)}-{value}"
    return f"{name} {value}".strip()


def with_setting_rows(header: list[str], settings: list[list[Cell]]) -> list[str]:
    """The header of a table whose first body rows are settings (``k-way``, ``n-shot``, their
    values in each column): each column's header followed by its settings; a title alone over
    the first data column (``| | Omniglot | | |``: Markdown merges no cells) heads them all."""
    named = [j for j, text in enumerate(header) if text]
    spanning = named == [1] and len(header) > 2
    heads = [header[1] if spanning and j else text for j, text in enumerate(header)]
    for row in settings:
        name = row[0].text if row else ""
        heads = [head if j == 0 else " ".join(filter(None, [head, setting(
            name, row[j].text if j < len(row) else "")])) for j, head in enumerate(heads)]
    return heads


# a cell that is a name and its number in parentheses: ``Alien (2611)``, ``Pong(21)``
NAME_AND_NUMBER = re.compile(r"\s*([^\W\d_][^()]*?)\s*\(\s*([-+\u2212]?\d[\d.,]*%?)\s*\)\s*")


def named_cells(table: Table) -> Table:
    """A table whose every filled cell, header row none, is a name with its number in
    parentheses (a grid of games and their scores, ``[Alien](…) (2611)``), as a table of
    two columns, one row a cell: its name, then its number; any other as itself."""
    cells = [cell for row in table.rows for cell in row if cell.text.strip()]
    if any(head.strip() for head in table.header) or len(cells) < 2 or not all(
            NAME_AND_NUMBER.fullmatch(cell.text) for cell in cells):
        return table
    pairs = [NAME_AND_NUMBER.fullmatch(cell.text) for cell in cells]
    return Table(["", ""], [[Cell(pair.group(1), cell.line, cell.later),
                             Cell(pair.group(2), cell.line, cell.later)]
                            for pair, cell in zip(pairs, cells, strict=True)], table.caption)


def unfolded(table: Table) -> list[Table]:
    """A table folded into side-by-side halves, its header repeating (``| Dataset | Depth |
    Metric | Dataset | Depth | Metric |``), as one table per half; any other as itself."""
    header, width = table.header, len(table.header)
    period = next((k for k in range(2, width // 2 + 1) if width % k == 0 and header[0] and all(
        header[j] == header[j % k] or j % k == 0 and _names_column(table, j)
        for j in range(width))), 0)
    if not period:
        return [table]
    return [Table(header[start:start + period],
                  [row[start:start + period] for row in table.rows if row[start:start + period]],
                  table.caption) for start in range(0, width, period)]


NAME_CELL = re.compile(r"^[^\W\d_][^\n]*$")  # opens with a letter: ``R_Hip``, ``WalkDog``
# a value its name sets (``avg = 0.4838``): a result, not a name, even opening with a letter
ASSIGNED_DECIMAL = re.compile(r"[=:]\s*[-+\u2212]?\d*\.\d")


def _names_column(table: Table, column: int) -> bool:
    """Whether ``column`` opens a half of its own: a head of its own over row names, as the
    first column is (``| ResNet-50 | 1/16 | … | ResNet-101 | 1/16 | …``, each half's
    backbone over ``SupBaseline`` and ``Ours`` again)."""
    rows = [row for row in table.rows if len(row) > column]
    return bool(rows) and all(NAME_CELL.match(row[j].text.strip()) for row in rows
                              for j in (0, column))


def unstacked(table: Table) -> list[Table]:
    """A table stacked in parts, a row of names heading the numbers below it (``R_Hip &
    R_Knee …`` over its numbers, then ``Nose & Head …`` over theirs), as one table per part;
    any other as itself."""
    header, body = _under_header(table)
    parts, rows = [], []
    for row in body:
        if rows and _a_header_row(row, len(table.header)):
            parts.append(Table(header, rows, table.caption))
            header, rows = [cell.text for cell in row], []
        else:
            rows.append(row)
    if not parts and header is table.header:
        return [table]
    return [*parts, Table(header, rows, table.caption)]


def _under_header(table: Table) -> tuple[list[str], list[list[Cell]]]:
    """The header and body of a table whose first body row is a second header row (``Test
    set | Large valid | CASP14 …`` under ``Unsupervised contact prediction`` spanning its
    sets): that row's names joined to the header's, column by column. Its first cell says
    what the names are (``Test set``), not which set the row names below are measured on."""
    rows, width = table.rows, len(table.header)
    if len(rows) < 2 or not (_a_header_row(rows[0], width) or _a_counts_row(table)) or len(
            {cell.text.strip() for cell in rows[0][1:]}) < 2:  # ``download`` under each model
        return table.header, rows
    names = [cell.text.strip() for cell in rows[0][1:width]]
    names = ["", *names, *[""] * (width - 1 - len(names))]
    joined = [" ".join(filter(None, [head, name])) for head, name in zip(
        _spanning(table.header, names), names, strict=True)]
    return joined, rows[1:]


def _spanning(header: list[str], names: list[str]) -> list[str]:
    """The header's heads over the names below them: an empty head over a name continues the
    head to its left (``| original $x$ | |`` over ``| Accuracy | Eq. Opp |``: a span written
    without ``||``), up to a column empty in both rows (a spacer); the columns of a group
    before its first head take that head (``| | CIFAR-10 | |``: a name set over the middle of
    its columns)."""
    spanned, carried = [], ""
    for head, name in zip(header, names, strict=True):
        carried = head.strip() or (carried if name else "")
        spanned.append(carried)
    for j in reversed(range(len(spanned) - 1)):
        if not spanned[j] and names[j] and names[j + 1]:
            spanned[j] = spanned[j + 1]
    return spanned


MISSING = re.compile(r"^(?:n/?a|tbd|nan|none)$", re.IGNORECASE)  # a number not given
COUNT = re.compile(r"^\d+[kKM]?$")  # ``40``, ``4000``, ``100k``: how many, no measurement
DECIMAL = re.compile(r"\d\.\d")


def _a_counts_row(table: Table) -> bool:
    """A first body row of counts under a header naming groups over some of its columns only
    (``| | 40 | 250 | 4000 |`` under ``| | | CIFAR-10 | |``): a second header row (how many
    labels each column's runs had), when the rows below hold the measurements."""
    first, below = table.rows[0], table.rows[1:]
    texts = [cell.text.strip() for cell in first[1:] if cell.text.strip()]
    spanning = any(not head.strip() for head in table.header[1:])
    return spanning and not (first and first[0].text.strip()) and len(texts) >= 2 and all(
        COUNT.match(text) for text in texts) and any(
        DECIMAL.search(cell.text) for row in below for cell in row[1:])


def _one_cell_across(texts: list[str], width: int) -> bool:
    """Whether one text fills most of a row, a cell spanning the numbers' columns (``Out of
    Memory`` beside a run that could not run): what the row has instead of its numbers."""
    most = max((texts.count(text) for text in texts), default=0)
    return most >= 3 and most * 2 > width


def _a_header_row(row: list[Cell], width: int) -> bool:
    """Names in (nearly) every column and no number (nor a number's ``N/A``): the header of
    the rows below it."""
    texts = [cell.text.strip() for cell in row if cell.text.strip()]
    # a narrow table's names over all but its label column (``| | top-1 | top-5 |``) too
    unlabelled = bool(row) and not row[0].text.strip() and len(texts) >= min(2, width - 1) \
        and len(texts) == width - 1
    if _one_cell_across(texts, width):
        return False
    return (len(texts) >= max(3, 0.6 * width) or unlabelled) and all(
        NAME_CELL.match(text) and not MISSING.match(text) and not ASSIGNED_DECIMAL.search(text)
        for text in texts)
