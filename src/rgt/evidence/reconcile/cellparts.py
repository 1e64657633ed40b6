"""A table cell's numbers apart: each number's part of a cell holding several
(``76.2 / 93.0``, ``0.82 (best 0.67)``, ``mae=0.4109 mse=0.3924``) and its name, where a
header, a caption or the row's label names them in turn (``(Top1/Top5)`` over ``22.4 / 6.3``,
``Prec@1 (Err)`` over ``77.698 (22.298)``, ``Teacher <br> Student``); a parenthesis holding a
spread (``0.8155 (0.0015)`` under ``ROC-AUC (STD)``) or another's number (``(paper: 0.830)``).
"""

from __future__ import annotations

import re

from rgt.evidence.reconcile.blocks import Table
from rgt.evidence.reconcile.numbers import parse_number
from rgt.evidence.reconcile.statistics import Statement

# a further number its name introduces after one (``mae=0.4109 <br> mse=0.3924``)
NEXT_NAMED = re.compile(r"(?<=[\d%])\s+([^\W\d_][\w\-@]{0,24}\s*[:=]\s*)(?=[-+\u2212]?\d)")


BLANK = re.compile(r"\s+")  # only spaces between two statements: ``91.30±0.85 92.42±0.43``
SEPARATOR = re.compile(r"\s*(?:/|,|;|\((?=\s*[^\W\d_]))\s*")  # "(" before a word: "(best 0.67)"


def segments(text: str, statements: list) -> list[tuple[int, int]]:
    """Each statement's part of a cell holding several, split where a ``/``, ``,``, ``;``, a
    parenthesis opening on a word or only spaces part them (``76.2 / 93.0``, ``21.9% top-1,
    5.79% top-5``, ``0.82 (best 0.67)``, ``91.30±0.85 92.42±0.43``) or the next one's name
    begins (``mae=0.4109 mse=0.3924``); else, in a cell of clauses apart by ``;`` (a list of
    results, ``24 of 56, 2 / 1 (…); 13 of 35, …``), each number's clause; else the whole
    cell for each."""
    cuts: list[tuple[int, int]] = []
    for left, right in zip(statements, statements[1:], strict=False):
        found = SEPARATOR.search(text, left.end, right.start) or BLANK.fullmatch(
            text, left.end, right.start)
        cut = found.span() if found else _named_next(text, left, right)
        if cut is None:
            return _clauses(text, statements)
        cuts.append(cut)
    starts = [0] + [end for _, end in cuts]
    ends = [start for start, _ in cuts] + [len(text)]
    return list(zip(starts, ends, strict=True))[:len(statements)]


def _clauses(text: str, statements: list) -> list[tuple[int, int]]:
    """Each statement's clause, apart from the next by ``;`` (the whole cell without one)."""
    bounds = [0] + [found.end() for found in re.finditer(r";\s", text)] + [len(text) + 1]
    spans = list(zip(bounds, [end - 1 for end in bounds[1:]], strict=False))
    return [next((start, end) for start, end in spans if start <= statement.start <= end)
            for statement in statements]


def _named_next(text: str, left: Statement, right: Statement) -> tuple[int, int] | None:
    """The space before ``right``'s name, when a name introduces it right after ``left``."""
    found = NEXT_NAMED.search(text, left.end)
    return (found.start(), found.start(1)) if found and found.end() == right.start else None


IN_TURN = re.compile(r"\(\s*([^()/,]+?(?:\s*[/,]\s*[^()/,]+?)+)\s*\)"  # "(AUC,AP)"
                     r"|(?:^|(?<=\s))([^\s/()]+(?:\s*/\s*[^\s/()]+)+)"  # "SQuAD 1.1 EM/F1"
                     r"(?=\s*(?:\([^()/]*\))?\s*$"  # a qualifier after: "mIoU/mAcc(ss)"
                     r"|(?P<after>(?:\s+[^\W\d_]+)+)\s*$)")  # words: "Training / Evaluation Time"


def in_turn(header: str, count: int) -> tuple[str, list[str]]:
    """A header naming a cell's numbers in turn (``Fast AA (transfer/direct)`` over
    ``3.6 / 3.7``, ``Top1/Top5`` over ``22.4 / 6.3``): the header without the list, and each
    number's name (with the words before a list that is not in parentheses: ``Flip AP`` of
    ``Flip AP / FPS``); the header and no names when it lists none, or not ``count``."""
    match = IN_TURN.search(header)
    names = re.split(r"\s*[/,]\s*" if match and match.group(1) else r"\s*/\s*",
                     (match.group(1) or match.group(2)).strip()) if match else []
    if count < 2 or len(names) != count:
        return header, [""] * count
    if match.group("after"):
        # the words after the list qualify each name: ``Training / Evaluation Time``
        after = match.group("after").strip()
        return (header[:match.start()] + " " + after).strip(), [f"{name} {after}"
                                                                 for name in names]
    if match.group(2) and header[match.end():].strip():
        return header, names  # ``mIoU/mAcc/aAcc(ss)``: the whole header is an alias
    before = header[:match.start()].strip()
    if match.group(2) and before:
        # the words before the list qualify each name: ``Flip AP / FPS`` is the flip AP
        names = [f"{before} {name}" for name in names]
    return (before + " " + header[match.end():]).strip(), names


def parts_in_turn(header: str, text: str, statements: list,
             table: Table) -> tuple[str, list[str], list]:
    parts = segments(text, statements)
    split = len(set(parts)) == len(parts)
    header, names = in_turn(header, len(statements)) if split else (header, [""] * len(parts))
    if split and not any(names):
        names = caption_in_turn(table.caption, len(statements))
    if split and not any(names) and len(table.in_turn) == len(statements) and "/" in text:
        names = list(table.in_turn)
    return header, names, parts


# a header naming a cell's second number in parentheses: "Prec@1 (Err)" over "77.698 (22.298)";
# not a unit or a spread ("Acc (%)", "Time (ms)", "ROC-AUC (STD)")
PARENTHESIS_NAME = re.compile(r"^(?P<first>.*\S)\s*\(\s*(?P<second>(?:%\s*)?[^\W\d_][\w@.\- ]*?)"
                              r"\s*\)\s*$")
NOT_A_NAME = {"ms", "s", "sec", "secs", "min", "mins", "h", "hr", "hrs", "hours", "mb", "gb",
              "m", "k", "b", "fps", "pp", "pts", "points", "x", "std", "sd", "se", "sem", "stdev",
              "avg", "mean", "median", "iqr", "ci"}


def named_parenthesis(header: str, text: str, count: int) -> list[str] | None:
    """Each number's name where the header names the cell's parenthesized number
    (``Prec@1 (Err)`` over ``77.698 (22.298)``: the precision, then the error); None
    otherwise."""
    match = PARENTHESIS_NAME.match(header.strip())
    if count != 2 or match is None or match.group("second").lower() in NOT_A_NAME or \
            VALUE_AND_PARENTHESIS.match(text) is None:
        return None
    return [match.group("first"), match.group("second")]


def parenthesis_in_turn(header: str, text: str,
                        statements: list) -> tuple[str, list[str], list] | None:
    """A cell ``77.698 (22.298)`` under ``Prec@1 (Err)``: the header, each number's name and
    its part of the cell (before the parenthesis, inside it); None for any other cell. A
    share's parenthesis (``R-Precision (% original)``) leaves the header, naming only the
    bracketed number (its aliases are not the score's)."""
    names = named_parenthesis(header, text, len(statements))
    if names is None:
        return None
    opening = text.index("(")
    return names[0] if names[1].startswith("%") else header, names, [
        (0, opening), (opening + 1, text.index(")", opening))]


def declared_brackets(table: Table, header: str, text: str,
                       statements: list) -> tuple[str, list[str], list] | None:
    """A cell ``79.0 (78.8)`` of a table a document says what brackets hold in (``Average
    scores are in brackets``): the header, each number's name and its part of the cell."""
    if not table.brackets[1] or len(statements) != 2 or not VALUE_AND_PARENTHESIS.match(text):
        return None
    opening = text.index("(")
    return header, list(table.brackets), [(0, opening), (opening + 1, text.index(")", opening))]


# a caption's names of a cell's numbers in turn, slashed without spaces: "with PSNR/SSIM
# metrics", "(3D/BEV)" (a digit and a capital: a name); not a pair of splits
# ("train/evaluation sets")
SLASHED_NAME = r"(?:[^\W\d_]|\d[A-Z])[\w@.+-]*"
SLASHED = re.compile(rf"(?<![\w/])({SLASHED_NAME}(?:/{SLASHED_NAME})+)(?![\w/])")
SPLIT_WORDS = {"train", "training", "val", "valid", "validation", "dev", "test", "testing",
               "eval", "evaluation"}


def caption_in_turn(caption: str, count: int) -> list[str]:
    """Each number's name where the table's caption names a cell's ``count`` numbers in turn
    (``Evaluation … with PSNR/SSIM metrics`` over ``38.31 / 0.9754``): its first slashed
    list of that many names, none a split's, or that many names it lists with
    ``respectively`` (``… denote the changed-class IoU and overall accuracy, respectively``);
    none where it has no such list."""
    for match in SLASHED.finditer(caption):
        names = match.group(1).split("/")
        if len(names) == count and not SPLIT_WORDS & {name.lower() for name in names}:
            return names
    listed = RESPECTIVELY.search(caption)
    names = LISTED_APART.split(listed.group(1)) if listed else []
    return names if count > 1 and len(names) == count else [""] * count


# names listed in turn: "… denote the changed-class IoU and overall accuracy, respectively"
RESPECTIVELY = re.compile(r"\b(?:denote|are|give|show|report)s?\s+(?:the\s+)?([^.;:]+?),?"
                          r"\s+respectively\b", re.IGNORECASE)
LISTED_APART = re.compile(r"\s*,\s*(?:and\s+)?(?:the\s+)?|\s+and\s+(?:the\s+)?")


# a cell holding a whole's number, then its parts' in parentheses: "86.0 (88.2/85.1)"
NUMERAL = r"[-+\u2212]?\d[\d.,]*\s*%?"
WHOLE_AND_PARTS = re.compile(rf"\s*{NUMERAL}\s*\(\s*{NUMERAL}(?:\s*/\s*{NUMERAL})+\s*\)\s*")


def whole_and_parts(header: str, text: str,
                    statements: list) -> tuple[str, list[str], list] | None:
    """A cell ``86.0 (88.2/85.1)`` under a header naming the parts in turn in parentheses
    (``RACE test (Middle/High)``): the header without the list, each number's name (none for
    the whole's) and its part of the cell; None for any other cell."""
    match = IN_TURN.search(header)
    if not (match and match.group(1) and WHOLE_AND_PARTS.fullmatch(text)):
        return None
    names = re.split(r"\s*/\s*", match.group(1).strip())
    if len(names) != len(statements) - 1:
        return None
    opening = text.index("(")
    parts = [(max(start, opening + 1), end) for start, end in segments(text, statements[1:])]
    rest = (header[:match.start()] + " " + header[match.end():]).strip()
    return rest, ["", *names], [(0, opening), *parts]


# a header saying its cells' parentheses hold the spread: "Valid ROC-AUC (STD)", "mean (s.d.)"
SPREAD_HEADER = re.compile(r"\(\s*(?:std|sd|s\.d\.|stdev|sem|s\.e\.m\.|se|standard\s+"
                           r"(?:deviation|error))\s*\)", re.IGNORECASE)
VALUE_AND_PARENTHESIS = re.compile(r"^(\s*[-+\u2212]?\d[\d.,]*\s*%?\s*)\((\s*\d[\d.,]*\s*%?\s*)\)")


def spread_in_parentheses(header: str, text: str, spreads: bool = False) -> str:
    """A cell ``0.8155 (0.0015)`` under a header naming the spread in parentheses
    (``ROC-AUC (STD)``), or whose parenthesis holds a number under a tenth of the value
    (``35.52 (0.44)``: a spread, not a second value) — or under the value, in a table whose
    parentheses are spreads (``spreads``: ``66.5(9.0)`` among ``67.1(2.9)``) — read as
    ``0.8155 ±0.0015`` (the same length: offsets hold)."""
    match = VALUE_AND_PARENTHESIS.match(text)
    times = 1 if spreads else 10
    if match is None or not (SPREAD_HEADER.search(header) or _small(match, times)) or \
            named_parenthesis(header, text, 2):
        return text
    return f"{match.group(1)}\u00b1{match.group(2)} {text[match.end():]}"


def _small(match: re.Match, times: float = 10) -> bool:
    value, inside = (parse_number(match.group(group)) for group in (1, 2))
    return value is not None and inside is not None and 0 < inside.magnitude * times < (
        value.magnitude)


# a caption saying the parentheses hold spreads: "standard deviations (brackets)"
CAPTION_SPREADS = re.compile(r"\b(?:standard\s+(?:deviation|error)s?|std|sd)\s*(?:\(\s*|in\s+)"
                             r"(?:brackets|parenthes[ie]s)\b", re.IGNORECASE)


def parenthesized_spreads(table: Table) -> bool:
    """Whether a table's ``value (number)`` cells hold spreads: its caption says so, or three
    or more, and three in four of them a number under a tenth of their value."""
    matches = [match for row in table.rows for cell in row
               if (match := VALUE_AND_PARENTHESIS.match(cell.text)) is not None]
    return bool(matches) and bool(CAPTION_SPREADS.search(table.caption)) or (
        len(matches) >= 3 and 4 * sum(map(_small, matches)) >= 3 * len(matches))


# a header or caption saying its cells' parentheses hold another's number: "mAP@0.5
# (darknet-reported mAP@0.5)", "Top-1 (paper)"
# (not a share of the original: ``(% original)``)
OTHERS_HEADER = re.compile(r"\((?!\s*%)[^()]*\b(?:reported|published|paper|original|official)\b"
                           r"[^()]*\)",
                           re.IGNORECASE)


# a parenthesis in a cell naming whose its number is: ``0.834 (paper: 0.830)``
OTHERS_IN_CELL = re.compile(r"\(\s*(?:paper|reported|published|original|official)\b\s*[:=]?\s*"
                            r"[-+\u2212]?\d[^()]*\)", re.IGNORECASE)


def others_in_parentheses(names: str, text: str) -> str:
    """A cell ``51.8 (51.5)`` where the header or caption (``names``) says the parentheses
    hold another's number (``(darknet-reported mAP@0.5)``), or ``0.834 (paper: 0.830)``: the
    parenthesis blanked out (the same length: offsets hold), the cell's number ours."""
    text = OTHERS_IN_CELL.sub(lambda found: " " * len(found.group(0)), text)
    match = VALUE_AND_PARENTHESIS.match(text)
    if not OTHERS_HEADER.search(names) or match is None:
        return text
    return match.group(1) + " " * (match.end() - match.end(1)) + text[match.end():]


LINE_BREAK = re.compile(r"\s+/\s+")  # a row label's line break (``Teacher <br> Student``)


def row_in_turn(label: str, count: int) -> list[str]:
    """A row label naming a cell's numbers in turn (``Teacher <br> Student`` beside ``75.61
    <br> 73.26``): each number's part of it; the whole label for each when it has not
    ``count`` parts."""
    names = LINE_BREAK.split(label)
    return names if count > 1 and len(names) == count else [label] * count
