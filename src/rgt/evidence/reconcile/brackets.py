"""What a document says its tables' brackets hold: ``Average scores are in brackets, and max
performances are the numbers that out of brackets`` (or ``in the format of <Rank-1 (mAP)>``)
over cells ``79.0 (78.8)`` names each number of such a cell. Spreads in brackets are the
tables' own reading (``tables``). Notes below a table may name its cells' slashed numbers in
turn the same way (``We show … AP with no augmentation / flip augmentation / multi scale
augmentation`` under ``40.3 / 42.2 / 45.5``)."""

from __future__ import annotations

import re

from rgt.evidence.reconcile.blocks import Paragraph, Table

BRACKETS = r"(?:brackets|parenthes[ie]s)"
NAME = r"(?P<name>[^\W\d_][\w\s-]{1,40}?)"
BE = r"\s+(?:are|is)\s+"
# "Average scores are in brackets"; "max performances are the numbers that out of brackets"
INSIDE = re.compile(rf"{NAME}{BE}(?:shown\s+|given\s+|reported\s+)?in\s+(?:the\s+)?{BRACKETS}",
                    re.IGNORECASE)
OUTSIDE = re.compile(rf"{NAME}{BE}(?:the\s+)?(?:numbers?|values?|scores?)?\s*(?:that\s+)?"
                     rf"(?:are\s+)?out(?:side)?\s+(?:of\s+)?(?:the\s+)?{BRACKETS}", re.IGNORECASE)
LEADING = re.compile(r"^(?:and|while|but|the)\s+", re.IGNORECASE)
SPREAD_WORDS = re.compile(r"\b(?:std|sd|s\.?e\.?m?|standard\s+(?:deviation|error)s?|"
                          r"confidence|interval|spread|variance)\b", re.IGNORECASE)


# "Results are presented in the format of <Rank-1 (mAP)>"
FORMAT = re.compile(r"\bformat\s+(?:of\s+)?<?\s*(?P<outside>[^\W\d_][\w\s@.-]{0,40}?)\s*"
                    r"\(\s*(?P<name>[^\W\d_][\w\s@.-]{0,40}?)\s*\)\s*>?", re.IGNORECASE)


def declared(text: str) -> tuple[str, str] | None:
    """The names a paragraph gives the numbers outside and inside a cell's brackets; None
    where it gives none (or says the brackets hold a spread)."""
    shown = FORMAT.search(text)
    if shown is not None and not SPREAD_WORDS.search(shown.group("name")):
        return shown.group("outside").strip(), shown.group("name").strip()
    inside = INSIDE.search(text)
    if inside is None or SPREAD_WORDS.search(inside.group("name")):
        return None
    outside = OUTSIDE.search(text)
    names = (outside.group("name") if outside else "", inside.group("name"))
    return tuple(LEADING.sub("", name.strip()) for name in names)


def name_cell_parts(blocks: list[Paragraph | Table]) -> list[Paragraph | Table]:
    """The blocks, each table after a paragraph naming what brackets hold carrying those
    names (the latest such paragraph's), and each table before notes naming what its cells'
    slashed numbers are carrying those."""
    names: tuple[str, str] | None = None
    for block in blocks:
        if isinstance(block, Paragraph):
            names = declared(block.text) or names
        elif names is not None:
            block.brackets = names
    _name_slashed(blocks)
    return blocks


# "We show test time and AP with no augmentation / flip augmentation / multi scale (0.5, 0.75,
# 1, 1.25, 1.5) augmentation." (to the sentence's end, past a number's decimal point)
WITH_IN_TURN = re.compile(r"\bwith\s+(?P<names>[^;:]+?\s/\s[^;:]+?)(?=\.(?:\s|$)|;|$)")


def listed_in_turn(text: str) -> tuple[str, ...]:
    """The names a note lists in turn, apart by spaced slashes, after ``with`` (``with no
    augmentation / flip augmentation``); none where it lists none."""
    listed = WITH_IN_TURN.search(text)
    names = tuple(name.strip() for name in re.split(r"\s+/\s+", listed.group("names"))) \
        if listed else ()
    return names if all(re.search(r"[^\W\d_]{2}", name) for name in names) else ()


def _name_slashed(blocks: list[Paragraph | Table]) -> None:
    """Each table carries the names the notes after it list in turn, up to the next table:
    notes in its section (under a heading of their own too, ``#### Notes``)."""
    table: Table | None = None
    for block in blocks:
        if isinstance(block, Table):
            table = block
        elif table is not None and block.scope.startswith(table.scope) and \
                (names := listed_in_turn(block.text)):
            table.in_turn = names
