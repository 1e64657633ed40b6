"""The rows of a Markdown pipe table: cells between pipes (``\\|`` a literal bar), cells that
stack several parts with ``<br>``, a header cell spanning the empty cells after it, and the
rows that are no results (a second row of names, a row of bold settings)."""

from __future__ import annotations

import re

from rgt.evidence.reconcile.blocks import Cell
from rgt.evidence.reconcile.mdinline import inline

# a line or cell all in bold (``**Results (10 epochs)**``)
BOLD_LINE = re.compile(r"\s*(\*\*|__)[^*_]+\1\s*")


def cells(line: str, number: int, wrapped: bool = False) -> list[Cell]:
    """The cells of a pipe-table row (``\\|`` is a literal bar); ``wrapped``: its line breaks
    only wrap a phrase (``Score on<br>SWE Bench<br>Lite``), read as spaces. A cell of several
    links (``[checkpoint](…) \\| [config](…)``, ``[S2EF](…) \\| [IS2RE](…)``) names files to
    fetch, not the row: read as ``links`` (not empty: an empty label cell carries the one
    above)."""
    return [Cell("links" if _links(piece) else inline(
        BREAK.sub(" ", text) if wrapped else _breaks(text), names=True).strip(), number)
        for piece, text in ((piece, piece.replace("\\|", "|")) for piece in _pieces(line))]


_LINK = r"\[[^\]]*\]\([^)]*\)"
# links listed apart by literal bars (``[checkpoint](…) \| [config](…)``), no number's text
LINK_LIST = re.compile(rf"\s*{_LINK}(?:\s*\\\|\s*{_LINK})+\s*")
NUMBER_LINK = re.compile(r"\[[*_\s]*[-+]?\d[\d.,]*%?[*_\s]*\]")  # ``[**75.0**](…)``


def _links(piece: str) -> bool:
    """Whether a cell, as written, lists two or more links apart by literal bars and nothing
    else, none of them a number's."""
    return LINK_LIST.fullmatch(piece) is not None and NUMBER_LINK.search(piece) is None


def header_cells(line: str, number: int, body: list[str]) -> list[Cell]:
    """A header row's cells: its line breaks wrap its names unless a ``body`` row stacks parts
    too (``Teacher <br> Student`` over ``75.61 <br> 73.26``: the parts are read in turn)."""
    return cells(line, number, wrapped=not any(BREAK.search(row) for row in body))


BREAK = re.compile(r"\s*<br\s*/?>\s*", re.IGNORECASE)


NAMED_NUMBER = re.compile(r"[=:]\s*-?\d*\.\d")
# ``(FP16)``; not a number's ``(0.3)``, nor alternatives' ``(box;mask)``
QUALIFIER = re.compile(r"\([^();/,]*[^\W\d_][^();/,]*\)")


def stacked_rows(line: str, number: int, header: str) -> list[list[Cell]]:
    """A row whose cells stack as many parts each with ``<br>`` (``None (BC) <br> a`` beside
    ``5.67 <br> 5.66``) as that many rows, a one-part cell repeated on each (``Mixing
    method``); any other row as itself, and every row under a header that stacks its names
    too (``Teacher <br> Student``: the parts are read in turn against the header's) or whose
    parts name their numbers (``mae=0.41 <br> mse=0.39``)."""
    stacks = [BREAK.split(text.replace("\\|", "|")) for text in _pieces(line)]
    depths = {len(parts) for parts in stacks if len(parts) > 1}
    if len(depths) != 1 or sum(len(parts) > 1 for parts in stacks) < 2 \
            or NAMED_NUMBER.search(line) or BREAK.search(header):
        return [cells(line, number)]
    return [[Cell(inline(parts[k] if len(parts) > 1 else parts[0], names=True).strip(), number)
             for parts in stacks] for k in range(depths.pop())]


def _breaks(text: str) -> str:
    """A cell's line breaks between plain parts (``75.61 <br> 73.26``, ``wrn-40-2 <br>
    wrn-16-2``) as a slash, the parts in turn; between named numbers (``mae=0.4109 <br>
    mse=0.3924``) and before a bracketed qualifier (``Tracktor <br> (FP16)``: one name,
    wrapped) a space."""
    parts = BREAK.split(text)
    if len(parts) < 2 or not all(part.strip() and not re.search(r"[=:]", part) for part in parts) \
            or all(QUALIFIER.fullmatch(part.strip()) for part in parts[1:]):
        return text
    return " / ".join(part.strip() for part in parts)


def _pieces(line: str) -> list[str]:
    """A pipe-table row's cells as written, between its outer pipes."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return re.split(r"(?<!\\)\|", body)


def spanned(header: list[Cell], line: str) -> list[str]:
    """A header row's texts, a cell followed by pipes with nothing between them heading the
    columns they span (MultiMarkdown: ``| **BOOTSTRAP** |||`` heads three)."""
    pieces = _pieces(line)
    texts = [cell.text for cell in header]
    for j in range(1, min(len(texts), len(pieces))):
        if pieces[j] == "" and texts[j - 1]:
            texts[j] = texts[j - 1]
    return texts


def over_its_group(header: list[str]) -> list[str]:
    """A header row of group names over a row naming every column (``| | Sur-to-Single | |
    | Sur-to-Book | |`` over ``Arch | Rank1 | Rank5 | 1% | Rank1 | …``): each group's name
    over the empty cells after it too, which Markdown cannot merge."""
    heads, group = [], ""
    for text in header:
        group = text or group
        heads.append(group)
    return heads


def names_only(row: list[Cell]) -> bool:
    """A first body row of names in every column and no number (``| **Dataset** | BottomUp |
    TopDown |`` below the methods' row): the header's second row; a name may hold digits
    (``Rank1``), and a threshold each group of columns repeats may be a percentage (``Rank1 |
    Rank5 | 1% | Rank1 | Rank5 | 1%``: the rate at 1 % false positives)."""
    texts = [cell.text for cell in row]
    return len(texts) > 2 and all(texts) and not any(
        re.fullmatch(r"[-\u2013\u2014\s]+|n/?a", text, re.I) or _a_number(text, texts)
        for text in texts)


def _a_number(text: str, texts: list[str]) -> bool:
    """Whether a cell holds a number apart from the letters of a name (``Alien (2611)``,
    ``76.1``; not ``Rank1``, ``R100``), but a threshold its row repeats."""
    if re.fullmatch(r"\d+%", text):
        return texts.count(text) < 2
    return re.search(r"(?<![^\W\d_])\d+(?:[.,]\d+)?(?![^\W_])", text) is not None


def all_bold(line: str) -> bool:
    """A row all of whose cells are bold, numbers among them (``| **k-way** | **5** |**20**|``):
    below a header that leaves columns unnamed, settings heading the columns, not results."""
    filled = [text.strip() for text in _pieces(line) if text.strip()]
    return len(filled) > 1 and all(BOLD_LINE.fullmatch(text) for text in filled) and any(
        re.search(r"\d", text) for text in filled[1:])
