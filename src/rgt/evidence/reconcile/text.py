"""Prose split the way a reader scopes a number: clauses within sentences within paragraphs.

Every function keeps character offsets: spans found in a piece index the original text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Abbreviations whose period does not end a sentence.
ABBREVIATIONS = re.compile(
    r"(?:\b(?:e\.g|i\.e|et al|vs|v\.s|cf|Fig|Figs|Tab|Sec|Eq|Eqs|App|Alg|approx|resp|No|Ref|Refs|"
    r"incl|w\.r\.t|s\.d|s\.e\.m|s\.e)|\b[A-Z])\.$"
)
SENTENCE_END = re.compile(
    r"[.!?][\"'\u201d)\]*_]*(?=\s+(?:[A-Z0-9\[(\"'`*_\\$\u2212+-]|$))|[.!?][\"'\u201d)\]*_]*$")
CLAUSE_BREAK = re.compile(
    r",\s|;\s?|\s[\u2014\u2013]\s|\s--\s|[()]|\s(?:and|but|while|whereas|than|versus|vs\.?|"
    r"compared\s+(?:to|with)|against|respectively)\s",
    re.IGNORECASE,
)


def fold(text: str) -> str:
    """Lower-case with ``_`` and ``-`` read as spaces, same length as ``text`` (offsets hold)."""
    out = []
    for char in text:
        lower = char.lower()
        out.append(" " if char in "_-" else (lower if len(lower) == 1 else char))
    return "".join(out)


def _inside(position: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(start < position < end for start, end in spans)


def sentence_spans(text: str, protected: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence; a period inside a number or a statistic is not an end."""
    spans, start = [], 0
    for match in SENTENCE_END.finditer(text):
        end = match.end()
        if _inside(match.start(), protected) or ABBREVIATIONS.search(text[start:end]):
            continue
        spans.append((start, end))
        start = end
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def _closes(text: str, position: int, protected: list[tuple[int, int]]) -> bool:
    """Whether ``text[position]`` closes a parenthesis a statement opened (``96 (+/- 4.7)``):
    the statement's, no break."""
    return text[position] == ")" and any(
        end == position and "(" in text[start:end] for start, end in protected)


def clause_span(text: str, position: int, protected: list[tuple[int, int]],
                bounds: tuple[int, int]) -> tuple[int, int]:
    """The clause of ``text`` around ``position``, within ``bounds`` (its sentence)."""
    low, high = bounds
    for match in CLAUSE_BREAK.finditer(text, low, high):
        if _inside(match.start(), protected) or _inside(match.end() - 1, protected) or \
                _closes(text, match.start(), protected):
            continue
        if match.end() <= position:
            low = match.end()
        elif match.start() >= position:
            high = match.start()
            break
    lower = range_lower_end(text, low, position)
    return (lower[1] if lower else low), high


def range_lower_end(text: str, start: int, position: int) -> tuple[int, int] | None:
    """The span of the last range's lower end (``from … to``) between ``start`` and
    ``position``, or None."""
    ends = [found.span() for found in RANGE_TO.finditer(text, start, position)
            if found.end() <= position and re.search(r"[^\W\d_]{2,}", found.group("words"))]
    return ends[-1] if ends else None


# the upper end of a range whose lower end has words of its own (``from E = 0 with exact
# distances to E ≈ 0.2 radians``): a clause apart from the lower end's
RANGE_TO = re.compile(r"\bfrom\s[^.;\d]{0,25}?\d\S*(?P<words>(?:(?!\bfrom\b)[^.;])*?)\sto\s",
                      re.IGNORECASE)


# GitHub's check and cross emoji, as the marks they show
EMOJI_MARKS = [
    (re.compile(r":(?:white_check_mark|heavy_check_mark|ballot_box_with_check):"), "\u2713"),
    (re.compile(r":(?:x|heavy_multiplication_x|negative_squared_cross_mark):"), "\u2717")]


def marks(text: str) -> str:
    """``:white_check_mark:`` as ✓, ``:x:`` as ✗."""
    for pattern, mark in EMOJI_MARKS:
        text = pattern.sub(mark, text)
    return text
