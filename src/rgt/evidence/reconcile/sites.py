"""Each statement where a document makes it, with the text around it in order of closeness.

In prose the levels are the clause, the sentence, the paragraph's earlier sentences (latest
first) and the headings above; a table's are built in ``tables``. Names are looked for level by
level (``rgt.evidence.reconcile.facets``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rgt.evidence.reconcile.blocks import Paragraph
from rgt.evidence.reconcile.numbers import find_numbers
from rgt.evidence.reconcile.statistics import Statement, find_statements
from rgt.evidence.reconcile.text import clause_span, range_lower_end, sentence_spans


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
    carries: bool = False  # the sentence just before: names a difference's variants
    own: str = ""  # a table row's own names, less a group's carried down from a row above


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
    column: int = -1  # a table cell's column
    row: int = -1  # and its row (two rows may carry one label)
    nameless: bool = False  # a table cell of rows nothing names (their order tells them apart)

    def line_of(self, offset: int) -> int:
        """The document line of character ``offset`` of the statement's text."""
        return next(line for start, line in reversed(self.starts) if start <= offset)

    def level(self, tier: str) -> Level | None:
        """The statement's first level of ``tier`` (``row``, ``sentence``, …), if it has one."""
        return next((level for level in self.levels if level.tier == tier), None)


def _protected(text: str, statements: list[Statement]) -> list[tuple[int, int]]:
    spans = [(s.start, s.end) for s in statements]
    return spans + [(n.start, n.end) for n in find_numbers(text)]


# A sentence that names no variant takes an earlier one's only when it points back to it (a
# difference also takes the sentence just before's: the change it describes).
ANAPHORA = re.compile(r"\b(?:it|its|it's|this|these|they|their|both)\b", re.I)


def paragraph_sites(paragraph: Paragraph) -> list[Site]:
    """One site per statement of a paragraph."""
    text = paragraph.text
    statements = find_statements(text)
    protected = _protected(text, statements)
    sentences = sentence_spans(text, protected)
    names = in_turn(text, statements, sentences)
    return [_prose_site(paragraph, statement, sentences, protected, names.get(index, ""))
            for index, statement in enumerate(statements)]


NAMES_IN_TURN = re.compile(r"\(\s*([^()/\d]+?(?:\s*/\s*[^()/\d]+?)+)\s*\)")
# names slashed without brackets or spaces, beside the numbers (``**5.655%/0.330**
# EER/minDCF``, ``EER/minDCF … are 0.723%/0.069``); not a path's or a link's parts
NAMES_SLASHED = re.compile(r"(?<![\w/:.])([^\W\d_][\w-]*(?:/[^\W\d_][\w-]*)+)(?![\w/.])")


def _groups(text: str, statements: list[Statement]) -> list[list[int]]:
    """Runs of statements joined by slashes (``60.6 / 58.3``), as indices."""
    groups: list[list[int]] = []
    for index, statement in enumerate(statements):
        joined = index and re.fullmatch(r"[\s`*]*/[\s`*]*",
                                        text[statements[index - 1].end:statement.start])
        if joined:
            groups[-1].append(index)
        else:
            groups.append([index])
    return [group for group in groups if len(group) > 1]


def in_turn(text: str, statements: list[Statement],
            sentences: list[tuple[int, int]]) -> dict[int, str]:
    """Each slashed number's name where its sentence names them in turn (`` `60.6` / `58.3`
    (validation / testing) ``, ``5.655%/0.330 EER/minDCF``, and the sentence's later pairs
    the same way)."""
    names: dict[int, str] = {}
    for start, end in sentences:
        listed = [re.split(r"\s*/\s*", match.group(1).strip())
                  for pattern in (NAMES_IN_TURN, NAMES_SLASHED)
                  for match in pattern.finditer(text, start, end)]
        for group in _groups(text, statements):
            if not start <= statements[group[0]].start < end:
                continue
            words = next((w for w in listed if len(w) == len(group)), None)
            names.update(zip(group, words, strict=True) if words else ())
    return names


OTHER_CLAUSE = re.compile(r"[,;]|\s(?:and|but|while|whereas)\s")


def _upper_end_only(text: str, start: int, end: int, clause: int) -> str:
    """A sentence as its range's upper end reads it, the lower end's words blanked out
    (``from E = 0 with exact distances to E ≈ 0.2 radians (≈ 11.5°)``: neither 0.2 nor its
    aside in brackets is the exact distances')."""
    lower = range_lower_end(text, start, clause)
    if lower is None or OTHER_CLAUSE.search(text, lower[1], clause):
        return text[start:end]
    return text[start:lower[0]] + " " * (lower[1] - lower[0]) + text[lower[1]:end]


def _prose_site(paragraph: Paragraph, statement: Statement, sentences: list[tuple[int, int]],
                protected: list[tuple[int, int]], named: str = "") -> Site:
    text, anchor = paragraph.text, statement.anchor
    index = next((i for i, (start, end) in enumerate(sentences) if start <= anchor < end),
                 len(sentences) - 1)
    s_start, s_end = sentences[index]
    c_start, c_end = clause_span(text, anchor, protected, (s_start, s_end))
    levels = [Level("clause", text[c_start:c_end], anchor - c_start, True,
                    before=text[s_start:c_start], after=text[c_end:s_end])]
    if named:  # the name its sentence gives it in turn: as near as its clause
        levels.append(Level("turn", named, None, True))
    if paragraph.note:  # a footnote's: the row its mark points to, as near as its clause
        levels.append(Level("note", paragraph.note, None, True))
    levels.append(Level("sentence", _upper_end_only(text, s_start, s_end, c_start),
                        anchor - s_start, False))
    refers_back = ANAPHORA.search(text[s_start:s_end]) is not None
    levels += [Level("paragraph", text[start:end], None, False, names_variants=refers_back,
                     carries=start == sentences[index - 1][0])
               for start, end in reversed(sentences[:index])]
    if paragraph.intro:
        levels.append(Level("intro", paragraph.intro, None, False))
    levels.append(Level("scope", paragraph.scope, None, False))
    return Site(statement, tuple(paragraph.starts), text[s_start:s_end].strip(), tuple(levels))
