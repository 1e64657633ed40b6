"""Each statement where a document makes it, with the text around it in order of closeness.

In prose the levels are the clause, the sentence, the paragraph's earlier sentences (latest
first) and the headings above. In a table they are the cell, its column's header, its row's
label (the cells of the table's label columns, with the group row above), the caption and the
headings. Names are looked for level by level (``rgt.evidence.reconcile.attribute``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rgt.evidence.reconcile.blocks import Cell, Paragraph, Table
from rgt.evidence.reconcile.numbers import find_numbers
from rgt.evidence.reconcile.statistics import Statement, find_statements
from rgt.evidence.reconcile.text import clause_span, sentence_spans


@dataclass(frozen=True)
class Level:
    """Text around a statement: ``anchor`` is the statement's offset in it (None for a header,
    caption or heading); names found at a ``strong`` level bind firmly."""

    tier: str
    text: str
    anchor: int | None
    strong: bool
    names_variants: bool = True
    before: str = ""  # a clause's sentence before and after it (an intro, a citation)
    after: str = ""


@dataclass(frozen=True)
class Site:
    """A statement, where it is (``starts`` maps its offsets to lines; ``text`` is a short
    quote for messages) and its levels."""

    statement: Statement
    starts: tuple[tuple[int, int], ...]
    text: str
    levels: tuple[Level, ...]
    in_table: bool = False
    unit: str = ""  # "%", "M", "K" or "B" when the table's header declares one

    def line_of(self, offset: int) -> int:
        """The document line of character ``offset`` of the statement's text."""
        return next(line for start, line in reversed(self.starts) if start <= offset)


def _protected(text: str, statements: list[Statement]) -> list[tuple[int, int]]:
    spans = [(s.start, s.end) for s in statements]
    return spans + [(n.start, n.end) for n in find_numbers(text)]


# A sentence that names no variant takes the previous one's only when it points back to it.
ANAPHORA = re.compile(r"\b(?:it|its|it's|this|these|they|their|the same|both)\b", re.I)


def paragraph_sites(paragraph: Paragraph) -> list[Site]:
    """One site per statement of a paragraph."""
    text = paragraph.text
    statements = find_statements(text)
    protected = _protected(text, statements)
    sentences = sentence_spans(text, protected)
    return [_prose_site(paragraph, statement, sentences, protected) for statement in statements]


def _prose_site(paragraph: Paragraph, statement: Statement, sentences: list[tuple[int, int]],
                protected: list[tuple[int, int]]) -> Site:
    text, anchor = paragraph.text, statement.anchor
    index = next((i for i, (start, end) in enumerate(sentences) if start <= anchor < end),
                 len(sentences) - 1)
    s_start, s_end = sentences[index]
    c_start, c_end = clause_span(text, anchor, protected, (s_start, s_end))
    levels = [Level("clause", text[c_start:c_end], anchor - c_start, True,
                    before=text[s_start:c_start], after=text[c_end:s_end]),
              Level("sentence", text[s_start:s_end], anchor - s_start, False)]
    refers_back = ANAPHORA.search(text[s_start:s_end]) is not None
    levels += [Level("paragraph", text[start:end], None, False, names_variants=refers_back)
               for start, end in reversed(sentences[:index])]
    levels.append(Level("scope", paragraph.scope, None, False))
    return Site(statement, tuple(paragraph.starts), text[s_start:s_end].strip(), tuple(levels))


NUMBER_TEXT = re.compile(r"[-+\u2212]?\d[\d,]*(?:\.\d+)?")


def is_numeric(text: str) -> bool:
    """A cell that holds numbers only (``96.1 ± 0.2``, ``**11.2M**``, ``[0.71, 1.18]``)."""
    rest = NUMBER_TEXT.sub(" ", text)
    words = re.findall(r"[^\W\d_]+", rest)
    has_digit = any(char.isdigit() for char in text)
    return has_digit and all(word in ("pp", "M", "K", "B", "x", "CI") for word in words)


POINT_HEADER = re.compile(r"^\s*(?:seed|run|fold|trial)(?:\s*(?:id|#|no\.?))?\s*$", re.I)


def label_columns(table: Table) -> set[int]:
    """Columns none of whose body cells is numeric, and seed columns: they name the rows."""
    width = max([len(table.header)] + [len(row) for row in table.rows])
    return {j for j in range(width) if _header(table, j) and POINT_HEADER.match(_header(table, j))
            or not any(j < len(row) and is_numeric(row[j].text) for row in table.rows)}


def _header(table: Table, column: int) -> str:
    return table.header[column] if column < len(table.header) else ""


def _label(table: Table, column: int, text: str) -> str:
    """A label cell as the row's name; a seed column's cell keeps its header (``seed 0``)."""
    header = _header(table, column)
    return f"{header} {text}" if text and POINT_HEADER.match(header) else text


def _is_group(row: list[Cell], labels: set[int]) -> bool:
    """A row naming a group of rows below it: only its first cell has text."""
    filled = [cell for cell in row if cell.text.strip()]
    return len(row) > 1 and len(filled) == 1 and row[0].text.strip() != "" and 0 in labels


UNIT = re.compile(r"(%)|\((?:in\s+)?([KMB])\)|\[([KMB])\]|_(?:(pct|percent)|([mkb]))$")
UNITS = {"pct": "%", "percent": "%", "m": "M", "k": "K", "b": "B"}


def declared_unit(*texts: str) -> str:
    """The first unit a header, row label or caption declares: ``%`` or ``M``/``K``/``B``."""
    for text in texts:
        match = UNIT.search(text or "")
        if match:
            found = next(group for group in match.groups() if group)
            return UNITS.get(found, found)
    return ""


SPREAD_ONLY = re.compile(
    r"^[\s(\[]*(?:\u00b1|\+/-)?\s*(?:std|sd|s\.d\.|stdev|sem|s\.e\.m\.|se|s\.e\.|"
    r"standard\s+(?:deviation|error))[\s)\]]*$", re.IGNORECASE)


def headers(table: Table) -> list[str]:
    """Each column's header; a spread-only one (``± s.e.m.``) is read with the one before it
    (``ECE (%) ± s.e.m.``): it qualifies that column's numbers."""
    names = list(table.header)
    for j in range(1, len(names)):
        if SPREAD_ONLY.match(names[j]):
            names[j] = f"{names[j - 1]} {names[j]}"
    return names


def table_sites(table: Table) -> list[Site]:
    """One site per statement of every data cell of ``table``."""
    labels = label_columns(table)
    names_of = headers(table)
    sites: list[Site] = []
    group, previous = "", {}
    for row in table.rows:
        if _is_group(row, labels):
            group, previous = row[0].text.strip(), {}
            continue
        names = []
        for j in sorted(labels):
            text = row[j].text.strip() if j < len(row) else ""
            previous[j] = text or previous.get(j, "")
            names.append(_label(table, j, previous[j]))
        label = " ".join([group, *names]).strip()
        for j, cell in enumerate(row):
            if j not in labels:
                sites += _cell_sites(table, cell, label, names_of[j] if j < len(names_of) else "")
    return sites


def _cell_sites(table: Table, cell: Cell, label: str, header: str) -> list[Site]:
    unit = declared_unit(header, label, table.caption)
    where = f"{label} | {header}: {cell.text.strip()}"
    return [Site(statement, ((0, cell.line),), where, (
        Level("cell", cell.text, statement.anchor, True),
        Level("column", header, None, True),
        Level("row", label, None, True),
        Level("caption", table.caption, None, False, names_variants=False),
        Level("scope", table.scope, None, False, names_variants=False),
    ), in_table=True, unit=unit) for statement in find_statements(cell.text, integers=True)]
